// Exact sums of doubles. Sentence scores summed per chunk and the chunk sums added
// must give the same corpus mean however the corpus was chunked (streamed, split over
// Dask workers); floating-point addition is not associative, so the sum is kept
// exactly, as an integer count of 2^-1074 (the smallest double), in 64-bit limbs.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace fastamfm {

struct ExactSum {
  // Magnitudes of the positive and of the negative values, little-endian limbs of
  // sum * 2^1074. Their difference is the exact sum.
  std::vector<uint64_t> positive, negative;
  // False when a value was NaN or infinite: then only `fallback` (the plain sum) means anything.
  bool finite = true;
  double fallback = 0.0;
};

ExactSum exact_sum(const double* values, size_t n);

// The sum of finite values rounded once, to nearest (ties to even): Python's math.fsum
// (Shewchuk's partials), for formulas that sum a few logarithms with it (NLTK's BLEU).
double correctly_rounded_sum(const double* values, size_t n);

}  // namespace fastamfm
