#include "vectors/vector_kernels.hpp"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

// The helpers below pass 32-byte vectors by value; they are always inlined, so the
// ABI GCC warns about (AVX vs. no AVX) is never used across a call.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace fastamfm {

namespace {

// GCC/Clang generic vectors: four lanes are one AVX register, or two SSE2 registers.
typedef double Lanes __attribute__((vector_size(32)));
constexpr size_t kLanes = 4;

#define FASTAMFM_INLINE __attribute__((always_inline)) inline

FASTAMFM_INLINE Lanes load(const double* p) {
  Lanes v;
  std::memcpy(&v, p, sizeof v);  // unaligned load
  return v;
}
FASTAMFM_INLINE Lanes load(const float* p) {
  typedef float Narrow __attribute__((vector_size(16)));
  Narrow v;
  std::memcpy(&v, p, sizeof v);
  return __builtin_convertvector(v, Lanes);  // float32 -> float64 is exact
}
FASTAMFM_INLINE void store(double* p, Lanes v) { std::memcpy(p, &v, sizeof v); }
FASTAMFM_INLINE double lane_sum(Lanes v) { return (v[0] + v[1]) + (v[2] + v[3]); }

// Bodies shared by both variants. Two accumulators hide the add latency; a plain
// loop would not vectorise because reassociating a floating-point sum needs -ffast-math.
template <class T>
FASTAMFM_INLINE double dot_body(const double* a, const T* b, size_t n) {
  Lanes acc0 = {0, 0, 0, 0}, acc1 = {0, 0, 0, 0};
  size_t i = 0;
  for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
    acc0 += load(a + i) * load(b + i);
    acc1 += load(a + i + kLanes) * load(b + i + kLanes);
  }
  for (; i + kLanes <= n; i += kLanes) acc0 += load(a + i) * load(b + i);
  double sum = lane_sum(acc0 + acc1);
  for (; i < n; ++i) sum += a[i] * static_cast<double>(b[i]);
  return sum;
}

// NA a-vectors against kTileB b-vectors, out[kTileB * k + m] = dot(a[k], b[m]). Every
// dot is summed in the same order whatever NA, so the tile height never changes a result.
template <size_t NA, class Widen>
FASTAMFM_INLINE void dot_tile_body(Widen widen, const double* const a[], const float* const b[kTileB], size_t n,
                                   double out[]) {
  Lanes acc[NA * kTileB] = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    Lanes y[kTileB];
    for (size_t m = 0; m < kTileB; ++m) y[m] = widen(b[m] + i);
    for (size_t k = 0; k < NA; ++k) {
      const Lanes x = load(a[k] + i);
      for (size_t m = 0; m < kTileB; ++m) acc[kTileB * k + m] += x * y[m];
    }
  }
  for (size_t k = 0; k < NA * kTileB; ++k) out[k] = lane_sum(acc[k]);
  for (; i < n; ++i)
    for (size_t k = 0; k < NA; ++k)
      for (size_t m = 0; m < kTileB; ++m) out[kTileB * k + m] += a[k][i] * static_cast<double>(b[m][i]);
}

// A tile of na (1 to kTileA) rows: a full-height tile would compute and drop the missing rows.
template <class Widen>
FASTAMFM_INLINE void dot_tile_any(Widen widen, const double* const a[], size_t na, const float* const b[kTileB],
                                  size_t n, double out[]) {
  switch (na) {
    case 1: return dot_tile_body<1>(widen, a, b, n, out);
    case 2: return dot_tile_body<2>(widen, a, b, n, out);
    default: return dot_tile_body<kTileA>(widen, a, b, n, out);
  }
}

template <class T>
FASTAMFM_INLINE void add_body(double* acc, const T* v, size_t n) {
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) store(acc + i, load(acc + i) + load(v + i));
  for (; i < n; ++i) acc[i] += static_cast<double>(v[i]);
}

template <class T>
FASTAMFM_INLINE void min_max_body(double* lo, double* hi, const T* v, size_t n) {
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const Lanes x = load(v + i), l = load(lo + i), h = load(hi + i);
    store(lo + i, x < l ? x : l);
    store(hi + i, x > h ? x : h);
  }
  for (; i < n; ++i) {
    lo[i] = std::min(lo[i], static_cast<double>(v[i]));
    hi[i] = std::max(hi[i], static_cast<double>(v[i]));
  }
}

// One variant of every kernel; FASTAMFM_KERNELS(suffix, attributes) defines them.
struct Kernels {
  double (*dot_d)(const double*, const double*, size_t);
  double (*dot_f)(const double*, const float*, size_t);
  void (*dot_tile)(const double* const[], size_t, const float* const[kTileB], size_t, double[]);
  void (*add_f)(double*, const float*, size_t);
  void (*add_d)(double*, const double*, size_t);
  void (*min_max_f)(double*, double*, const float*, size_t);
  void (*min_max_d)(double*, double*, const double*, size_t);
};

#define FASTAMFM_KERNELS(suffix, attributes)                                                                    \
  attributes double dot_d_##suffix(const double* a, const double* b, size_t n) { return dot_body(a, b, n); }    \
  attributes double dot_f_##suffix(const double* a, const float* b, size_t n) { return dot_body(a, b, n); }     \
  attributes void dot_tile_##suffix(const double* const a[], size_t na, const float* const b[kTileB], size_t n,  \
                                    double out[]) {                                                           \
    dot_tile_any(widen_##suffix, a, na, b, n, out);                                                           \
  }                                                                                                           \
  attributes void add_f_##suffix(double* acc, const float* v, size_t n) { add_body(acc, v, n); }               \
  attributes void add_d_##suffix(double* acc, const double* v, size_t n) { add_body(acc, v, n); }              \
  attributes void min_max_f_##suffix(double* lo, double* hi, const float* v, size_t n) {                      \
    min_max_body(lo, hi, v, n);                                                                               \
  }                                                                                                           \
  attributes void min_max_d_##suffix(double* lo, double* hi, const double* v, size_t n) {                     \
    min_max_body(lo, hi, v, n);                                                                               \
  }                                                                                                           \
  const Kernels kernels_##suffix = {dot_d_##suffix, dot_f_##suffix,     dot_tile_##suffix, add_f_##suffix,      \
                                    add_d_##suffix, min_max_f_##suffix, min_max_d_##suffix};

// Four float32 values widened to float64 (exact). The generic load serves the
// baseline; for AVX2 GCC splits it into two half-width conversions and a lane
// insert, so that variant uses the one-instruction intrinsic.
FASTAMFM_INLINE Lanes widen_baseline(const float* p) { return load(p); }
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx2,fma"))) FASTAMFM_INLINE Lanes widen_avx2(const float* p) {
  return reinterpret_cast<Lanes>(_mm256_cvtps_pd(_mm_loadu_ps(p)));
}
#endif

FASTAMFM_KERNELS(baseline, )

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
FASTAMFM_KERNELS(avx2, __attribute__((target("avx2,fma"))))

// Chosen by CPU features (target_clones("arch=...") would test the CPU model instead).
const Kernels& pick_kernels() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? kernels_avx2 : kernels_baseline;
}
#else
const Kernels& pick_kernels() { return kernels_baseline; }
#endif

const Kernels& kernels = pick_kernels();

}  // namespace

double dense_dot(const double* a, const double* b, size_t n) { return kernels.dot_d(a, b, n); }
double dense_dot(const double* a, const float* b, size_t n) { return kernels.dot_f(a, b, n); }
void dense_dot_tile(const double* const a[], size_t na, const float* const b[kTileB], size_t n, double out[]) {
  kernels.dot_tile(a, na, b, n, out);
}
void add_into(double* acc, const float* v, size_t n) { kernels.add_f(acc, v, n); }
void add_into(double* acc, const double* v, size_t n) { kernels.add_d(acc, v, n); }
void min_max_into(double* lo, double* hi, const float* v, size_t n) { kernels.min_max_f(lo, hi, v, n); }
void min_max_into(double* lo, double* hi, const double* v, size_t n) { kernels.min_max_d(lo, hi, v, n); }

}  // namespace fastamfm
