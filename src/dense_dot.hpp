// Dot product of float64 vectors, the inner loop of the embedding metrics.
// On x86-64 with GCC it is compiled twice (AVX2+FMA and the baseline) and the
// loader picks the variant the CPU supports, so one wheel is fast everywhere.
#pragma once
#include <cstddef>

namespace fastamfm {

double dense_dot(const double* a, const double* b, size_t n);

}  // namespace fastamfm
