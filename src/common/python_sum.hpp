// Python's built-in sum() of floats, for formulas that a peer writes with it (sacrebleu's
// BLEU sums the logs of its precisions with sum()). CPython changed that sum in 3.12: up
// to 3.11 it adds left to right, rounding at every step; from 3.12 on it carries a
// Neumaier compensation term and adds it once at the end (bltinmodule.c, builtin_sum_impl),
// so the same list can sum to a value a few ulps away. A score that must be bit-identical
// to the peer's therefore sums as the interpreter the peer runs under: the caller says
// which (the bindings pass the interpreter they were compiled for).
//
// Only floats reach the sum here. sacrebleu also puts the int -9999999999 (log of a zero
// precision) into its list, which 3.12/3.13 add without compensation and 3.14 with it;
// that term always sends exp(sum / n) to exactly 0.0, so the difference cannot show.
#pragma once
#include <cmath>

namespace fastamfm {

enum class PythonSum {
  Plain,        // CPython <= 3.11
  Compensated,  // CPython >= 3.12 (Neumaier's improved Kahan-Babuska summation)
};

class PythonFloatSum {
 public:
  explicit PythonFloatSum(PythonSum kind) : kind_(kind) {}

  void add(double x) {
    // sum() starts from the int 0; 0 + x is x exactly, so the first item starts the sum.
    const double t = total_ + x;
    if (kind_ == PythonSum::Compensated) {
      if (std::fabs(total_) >= std::fabs(x))
        compensation_ += (total_ - t) + x;
      else
        compensation_ += (x - t) + total_;
    }
    total_ = t;
  }

  double value() const {
    // As CPython: the compensation is added only when it is non-zero and finite, so a
    // negative zero keeps its sign and an overflowed sum does not turn into NaN.
    if (compensation_ != 0.0 && std::isfinite(compensation_)) return total_ + compensation_;
    return total_;
  }

 private:
  PythonSum kind_;
  double total_ = 0.0;
  double compensation_ = 0.0;
};

}  // namespace fastamfm
