// Hot loops over LSI dimensions compiled twice, for AVX2+FMA CPUs and for any
// x86-64; the dynamic loader picks one per machine, so results are reproducible on
// a given machine (and may differ in the last bits between machines).
#pragma once
#include <cstddef>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define FASTAMFM_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define FASTAMFM_VECTOR_CLONES
#endif

namespace fastamfm {

// out[0..n) += w * row[0..n)
void add_scaled_row(double* out, const float* row, double w, size_t n);
// sum of a[c] * b[c] over c in [0, n), in double, in order
double dot_float(const float* a, const float* b, size_t n);

}  // namespace fastamfm
