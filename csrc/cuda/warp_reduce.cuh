// Warp-level building blocks shared by the kernel families (device code only;
// include from .cu files). Kernels here give one warp (or one group of lanes
// inside a warp) to one row, so every reduction is a shuffle, never shared memory.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace fastamfm::cuda::detail {

constexpr int kWarpSize = 32;
constexpr unsigned kFullMask = 0xffffffffu;
// Eight warps per block: enough to hide latency, small enough that the grid of
// short ragged rows spreads over every SM.
constexpr int kThreadsPerBlock = 256;
constexpr int kWarpsPerBlock = kThreadsPerBlock / kWarpSize;

// Sum over aligned groups of `Width` lanes (a power of two <= 32); every lane of a
// group gets the group's total. All 32 lanes must call it.
template <int Width>
__device__ __forceinline__ float group_sum(float value) {
#pragma unroll
  for (int offset = Width / 2; offset > 0; offset >>= 1) value += __shfl_xor_sync(kFullMask, value, offset, Width);
  return value;
}

__device__ __forceinline__ float warp_sum(float value) { return group_sum<kWarpSize>(value); }

__device__ __forceinline__ int64_t global_warp_index() {
  return static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / kWarpSize;
}

__device__ __forceinline__ int64_t warp_count() { return static_cast<int64_t>(gridDim.x) * kWarpsPerBlock; }

__device__ __forceinline__ int lane_index() { return static_cast<int>(threadIdx.x % kWarpSize); }

// cos(a, b) from a·b, a·a and b·b; 0 when either vector is zero (as scikit-learn's
// cosine_similarity, which nlg-eval uses, leaves zero rows at zero).
__device__ __forceinline__ float cosine_from_dots(float dot, float aa, float bb) {
  return (aa > 0.f && bb > 0.f) ? dot / (sqrtf(aa) * sqrtf(bb)) : 0.f;
}

// Blocks for a grid-stride loop giving one warp per row; capped so huge inputs
// loop instead of exceeding the grid limit.
inline unsigned blocks_for_warps(int64_t rows) {
  const int64_t blocks = (rows + kWarpsPerBlock - 1) / kWarpsPerBlock;
  constexpr int64_t kMaxBlocks = int64_t{1} << 20;
  return static_cast<unsigned>(blocks < kMaxBlocks ? blocks : kMaxBlocks);
}

}  // namespace fastamfm::cuda::detail
