#include "lsi/vector_clones.hpp"

namespace fastamfm {

FASTAMFM_VECTOR_CLONES
void add_scaled_row(double* __restrict out, const float* __restrict row, double w, size_t n) {
  for (size_t c = 0; c < n; ++c) out[c] += w * static_cast<double>(row[c]);
}

FASTAMFM_VECTOR_CLONES
double dot_float(const float* __restrict a, const float* __restrict b, size_t n) {
  // Four partial sums let the vector units work; the order is fixed, so the result is too.
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  size_t c = 0;
  for (; c + 4 <= n; c += 4) {
    s0 += static_cast<double>(a[c]) * b[c];
    s1 += static_cast<double>(a[c + 1]) * b[c + 1];
    s2 += static_cast<double>(a[c + 2]) * b[c + 2];
    s3 += static_cast<double>(a[c + 3]) * b[c + 3];
  }
  for (; c < n; ++c) s0 += static_cast<double>(a[c]) * b[c];
  return (s0 + s1) + (s2 + s3);
}

}  // namespace fastamfm
