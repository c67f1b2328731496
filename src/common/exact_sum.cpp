#include "common/exact_sum.hpp"

#include <cmath>

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

}  // namespace fastamfm
