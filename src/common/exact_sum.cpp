#include "common/exact_sum.hpp"

#include <cmath>
#include <utility>

namespace fastamfm {

namespace {

// 2^-1074 .. 2^1024 spans 2098 bits; 64 more bits of headroom absorb 2^64 additions.
constexpr size_t kLimbs = (2098 + 64 + 63) / 64;

void add_shifted(std::vector<uint64_t>& limbs, uint64_t mantissa, unsigned bit) {
  size_t i = bit / 64;
  const unsigned shift = bit % 64;
  const uint64_t low = mantissa << shift;
  const uint64_t high = shift == 0 ? 0 : mantissa >> (64 - shift);
  uint64_t before = limbs[i];
  limbs[i] += low;
  uint64_t carry = limbs[i] < before ? 1 : 0;
  ++i;
  before = limbs[i];
  limbs[i] += high + carry;  // high < 2^53: the addend itself cannot overflow
  carry = limbs[i] < before ? 1 : 0;
  while (carry && ++i < limbs.size()) carry = ++limbs[i] == 0 ? 1 : 0;
}

}  // namespace

ExactSum exact_sum(const double* values, size_t n) {
  ExactSum out;
  out.positive.assign(kLimbs, 0);
  out.negative.assign(kLimbs, 0);
  for (size_t i = 0; i < n; ++i) {
    const double v = values[i];
    out.fallback += v;
    if (!std::isfinite(v)) {
      out.finite = false;
      continue;
    }
    if (v == 0.0) continue;
    int exponent = 0;
    const double fraction = std::frexp(std::fabs(v), &exponent);  // |v| = fraction * 2^exponent, fraction in [0.5, 1)
    // |v| = mantissa * 2^(exponent - 53) with a 53-bit integer mantissa; for subnormals the
    // low bits of the mantissa are zero, so the bit position never goes below 2^-1074.
    auto mantissa = static_cast<uint64_t>(std::ldexp(fraction, 53));
    int bit = exponent - 53 + 1074;
    while (bit < 0) {  // only subnormals: their low mantissa bits are zero
      mantissa >>= 1;
      ++bit;
    }
    add_shifted(v > 0 ? out.positive : out.negative, mantissa, static_cast<unsigned>(bit));
  }
  return out;
}

double correctly_rounded_sum(const double* values, size_t n) {
  std::vector<double> partials;
  for (size_t k = 0; k < n; ++k) {
    double x = values[k];
    size_t i = 0;
    for (double y : partials) {
      if (std::fabs(x) < std::fabs(y)) std::swap(x, y);
      const double hi = x + y;
      const double lo = y - (hi - x);
      if (lo != 0.0) partials[i++] = lo;
      x = hi;
    }
    partials.resize(i);
    partials.push_back(x);
  }
  size_t m = partials.size();
  if (m == 0) return 0.0;
  double hi = partials[--m], lo = 0.0;
  while (m > 0) {
    const double x = hi, y = partials[--m];
    hi = x + y;
    lo = y - (hi - x);
    if (lo != 0.0) break;
  }
  // Round half to even across the partials below: a half-way lo decides with their sign.
  if (m > 0 && ((lo < 0 && partials[m - 1] < 0) || (lo > 0 && partials[m - 1] > 0))) {
    const double y = lo * 2, x = hi + y;
    if (y == x - hi) hi = x;
  }
  return hi;
}

}  // namespace fastamfm
