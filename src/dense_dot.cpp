#include "dense_dot.hpp"

#include <cstring>

namespace fastamfm {

namespace {
// GCC's generic vectors: four lanes map to one AVX register, or two SSE2 registers.
typedef double Lanes __attribute__((vector_size(32)));
}  // namespace

// Unaligned loads of four lanes (memcpy compiles to one vector load).
#define FASTAMFM_LOAD_LANES(dst, src) std::memcpy(&(dst), (src), sizeof(Lanes))

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=haswell", "default")))
#endif
double dense_dot(const double* a, const double* b, size_t n) {
  // Two independent accumulators hide the add latency; a plain loop would not
  // vectorise because reassociating a floating-point sum needs -ffast-math.
  Lanes acc0 = {0, 0, 0, 0}, acc1 = {0, 0, 0, 0};
  size_t i = 0;
  Lanes x0, y0, x1, y1;
  for (; i + 8 <= n; i += 8) {
    FASTAMFM_LOAD_LANES(x0, a + i);
    FASTAMFM_LOAD_LANES(y0, b + i);
    FASTAMFM_LOAD_LANES(x1, a + i + 4);
    FASTAMFM_LOAD_LANES(y1, b + i + 4);
    acc0 += x0 * y0;
    acc1 += x1 * y1;
  }
  for (; i + 4 <= n; i += 4) {
    FASTAMFM_LOAD_LANES(x0, a + i);
    FASTAMFM_LOAD_LANES(y0, b + i);
    acc0 += x0 * y0;
  }
  const Lanes acc = acc0 + acc1;
  double sum = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

}  // namespace fastamfm
