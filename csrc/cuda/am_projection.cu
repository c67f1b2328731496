#include <cuda_runtime.h>

#include <cstdint>

#include "am_projection.cuh"
#include "warp_reduce.cuh"

namespace fastamfm::cuda {
namespace {

using detail::kFullMask;
using detail::kWarpSize;

// One warp per row. The warp fetches 32 (term, weight) entries at once and
// broadcasts them by shuffle; each lane owns dims lane, lane+32, ... and keeps up
// to Regs partial sums in registers. Rows wider than 32 * Regs are done in slices
// of that width, written unnormalised and rescaled at the end.
template <int Regs>
__global__ void am_projection_kernel(const int64_t* __restrict__ indptr, const int32_t* __restrict__ indices,
                                     const float* __restrict__ data, int64_t rows,
                                     const float* __restrict__ components, int64_t dims, float* __restrict__ out) {
  constexpr int64_t kSlice = int64_t{kWarpSize} * Regs;
  const int lane = detail::lane_index();
  for (int64_t row = detail::global_warp_index(); row < rows; row += detail::warp_count()) {
    const int64_t begin = indptr[row];
    const int64_t end = indptr[row + 1];
    float* out_row = out + row * dims;
    float squares = 0.f;
    float acc[Regs];
    for (int64_t slice = 0; slice < dims; slice += kSlice) {
#pragma unroll
      for (int r = 0; r < Regs; ++r) acc[r] = 0.f;
      for (int64_t first = begin; first < end; first += kWarpSize) {
        const int64_t mine = first + lane;
        const int32_t my_term = mine < end ? indices[mine] : 0;
        const float my_weight = mine < end ? data[mine] : 0.f;
        const int count = static_cast<int>(end - first < kWarpSize ? end - first : kWarpSize);
        for (int t = 0; t < count; ++t) {
          const int32_t term = __shfl_sync(kFullMask, my_term, t);
          const float weight = __shfl_sync(kFullMask, my_weight, t);
          const float* u = components + static_cast<int64_t>(term) * dims + slice;
#pragma unroll
          for (int r = 0; r < Regs; ++r) {
            const int64_t d = lane + int64_t{kWarpSize} * r;
            if (slice + d < dims) acc[r] += weight * u[d];
          }
        }
      }
#pragma unroll
      for (int r = 0; r < Regs; ++r) {
        const int64_t d = slice + lane + int64_t{kWarpSize} * r;
        if (d < dims) {
          squares += acc[r] * acc[r];
          if (dims > kSlice) out_row[d] = acc[r];
        }
      }
    }
    squares = detail::warp_sum(squares);
    const float scale = squares > 0.f ? 1.f / sqrtf(squares) : 0.f;
    if (dims <= kSlice) {
#pragma unroll
      for (int r = 0; r < Regs; ++r) {
        const int64_t d = lane + int64_t{kWarpSize} * r;
        if (d < dims) out_row[d] = acc[r] * scale;
      }
    } else {
      // Each lane rescales exactly the elements it wrote above (d = lane mod 32).
      for (int64_t d = lane; d < dims; d += kWarpSize) out_row[d] *= scale;
    }
  }
}

template <int Regs>
void launch(const int64_t* indptr, const int32_t* indices, const float* data, int64_t rows, const float* components,
            int64_t dims, float* out, cudaStream_t stream) {
  am_projection_kernel<Regs><<<detail::blocks_for_warps(rows), detail::kThreadsPerBlock, 0, stream>>>(
      indptr, indices, data, rows, components, dims, out);
}

}  // namespace

void am_projection(const int64_t* indptr, const int32_t* indices, const float* data, int64_t rows,
                   const float* components, int64_t dims, float* out, Stream stream) {
  if (rows <= 0) return;
  const auto s = reinterpret_cast<cudaStream_t>(stream);
  // Enough registers for the whole row when it fits (k <= 512 covers LSI models).
  if (dims <= 32) {
    launch<1>(indptr, indices, data, rows, components, dims, out, s);
  } else if (dims <= 64) {
    launch<2>(indptr, indices, data, rows, components, dims, out, s);
  } else if (dims <= 128) {
    launch<4>(indptr, indices, data, rows, components, dims, out, s);
  } else if (dims <= 256) {
    launch<8>(indptr, indices, data, rows, components, dims, out, s);
  } else {
    launch<16>(indptr, indices, data, rows, components, dims, out, s);
  }
  check_launch("am_projection");
}

}  // namespace fastamfm::cuda
