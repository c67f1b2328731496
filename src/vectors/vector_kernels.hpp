// Float64 vector kernels, the inner loops of the embedding metrics. On x86-64
// each is compiled twice (AVX2+FMA and the baseline) and the variant the CPU
// supports is picked once at load time, so one wheel is fast everywhere.
#pragma once
#include <cstddef>

namespace fastamfm {

// Float32 operands are widened to float64, which is exact, so every product is
// exact and only the float64 sum rounds.
double dense_dot(const double* a, const double* b, size_t n);
double dense_dot(const double* a, const float* b, size_t n);

// out[kTileB * i + j] = dot(a[i], b[j]) for na (1 to kTileA) vectors a and kTileB
// float32 vectors b: a register tile that reads each b once for all a. 3 x 3
// measured fastest on the DSTC-6 Greedy Matching benchmark (4 x 2, 4 x 3, 2 x 4
// slower). The b (word vectors straight from the table) are the stream from
// memory, so they stay float32: half the bytes.
constexpr size_t kTileA = 3, kTileB = 3;
void dense_dot_tile(const double* const a[], size_t na, const float* const b[kTileB], size_t n, double out[]);

// acc += v, with v in float32 (widened exactly) or float64
void add_into(double* acc, const float* v, size_t n);
void add_into(double* acc, const double* v, size_t n);

// lo = min(lo, v), hi = max(hi, v), elementwise
void min_max_into(double* lo, double* hi, const float* v, size_t n);
void min_max_into(double* lo, double* hi, const double* v, size_t n);

}  // namespace fastamfm
