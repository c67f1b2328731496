#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "cosine_max.cuh"
#include "warp_reduce.cuh"

namespace fastamfm::cuda {
namespace {

using detail::kFullMask;
using detail::kWarpSize;

__device__ __forceinline__ float dot_elem(float a, float b) { return a * b; }
__device__ __forceinline__ float dot_elem(const float4& a, const float4& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}

// One warp per query. The warp is cut into groups of Width lanes; each group takes
// one reference at a time, so short vectors (AM's k = 10) still keep every lane
// loading and consecutive groups read consecutive rows (the reference rows of a
// query are contiguous, so a warp streams one contiguous block of memory).
// Each pass covers kRefsInFlight references per group, all loads issued before any
// reduction, so enough bytes are in flight to keep the memory system busy.
// Vec = float4 when rows are 16-byte aligned: a quarter of the load instructions.
constexpr int kRefsInFlight = 4;

template <int Width, typename Vec>
__global__ void cosine_over_references_kernel(const Vec* __restrict__ queries, int64_t n,
                                              const Vec* __restrict__ refs, const int64_t* __restrict__ ref_offsets,
                                              int64_t vec_dims, int combine, bool clip, float* __restrict__ scores) {
  constexpr int kGroups = kWarpSize / Width;
  const int lane = detail::lane_index();
  const int group = lane / Width;
  const int group_lane = lane % Width;
  for (int64_t i = detail::global_warp_index(); i < n; i += detail::warp_count()) {
    const Vec* query = queries + i * vec_dims;
    float qq = 0.f;
    for (int64_t d = lane; d < vec_dims; d += kWarpSize) qq += dot_elem(query[d], query[d]);
    qq = detail::warp_sum(qq);

    const int64_t begin = ref_offsets[i];
    const int64_t end = ref_offsets[i + 1];
    float best = -INFINITY;
    float total = 0.f;
    for (int64_t first = begin; first < end; first += int64_t{kGroups} * kRefsInFlight) {
      float dot[kRefsInFlight];
      float rr[kRefsInFlight];
#pragma unroll
      for (int u = 0; u < kRefsInFlight; ++u) dot[u] = rr[u] = 0.f;
      for (int64_t d = group_lane; d < vec_dims; d += Width) {
        const Vec q = query[d];
#pragma unroll
        for (int u = 0; u < kRefsInFlight; ++u) {
          const int64_t j = first + u * kGroups + group;
          if (j < end) {
            const Vec r = refs[j * vec_dims + d];
            dot[u] += dot_elem(q, r);
            rr[u] += dot_elem(r, r);
          }
        }
      }
#pragma unroll
      for (int u = 0; u < kRefsInFlight; ++u) {
        // Every lane takes part in the shuffles: the loop bounds are warp-uniform.
        const float ab = detail::group_sum<Width>(dot[u]);
        const float bb = detail::group_sum<Width>(rr[u]);
        if (first + u * kGroups + group < end) {
          float c = detail::cosine_from_dots(ab, qq, bb);
          if (clip) c = fminf(fmaxf(c, 0.f), 1.f);
          best = fmaxf(best, c);
          total += c;
        }
      }
    }
    // Fold the groups together: lanes of one group already agree, so exchange across groups only.
#pragma unroll
    for (int offset = Width; offset < kWarpSize; offset <<= 1) {
      best = fmaxf(best, __shfl_xor_sync(kFullMask, best, offset));
      total += __shfl_xor_sync(kFullMask, total, offset);
    }
    if (lane == 0) {
      const int64_t count = end - begin;
      scores[i] = count <= 0 ? 0.f : (combine == static_cast<int>(Combine::mean) ? total / static_cast<float>(count) : best);
    }
  }
}

template <int Width, typename Vec>
void launch(const float* queries, int64_t n, const float* refs, const int64_t* ref_offsets, int64_t vec_dims,
            Combine combine, bool clip, float* scores, cudaStream_t stream) {
  cosine_over_references_kernel<Width, Vec><<<detail::blocks_for_warps(n), detail::kThreadsPerBlock, 0, stream>>>(
      reinterpret_cast<const Vec*>(queries), n, reinterpret_cast<const Vec*>(refs), ref_offsets, vec_dims,
      static_cast<int>(combine), clip, scores);
}

// The narrowest group that still gives every lane an element of the row.
template <typename Vec>
void launch_for_width(const float* queries, int64_t n, const float* refs, const int64_t* ref_offsets, int64_t vec_dims,
                      Combine combine, bool clip, float* scores, cudaStream_t stream) {
  if (vec_dims <= 1) return launch<1, Vec>(queries, n, refs, ref_offsets, vec_dims, combine, clip, scores, stream);
  if (vec_dims <= 2) return launch<2, Vec>(queries, n, refs, ref_offsets, vec_dims, combine, clip, scores, stream);
  if (vec_dims <= 4) return launch<4, Vec>(queries, n, refs, ref_offsets, vec_dims, combine, clip, scores, stream);
  if (vec_dims <= 8) return launch<8, Vec>(queries, n, refs, ref_offsets, vec_dims, combine, clip, scores, stream);
  if (vec_dims <= 16) return launch<16, Vec>(queries, n, refs, ref_offsets, vec_dims, combine, clip, scores, stream);
  launch<32, Vec>(queries, n, refs, ref_offsets, vec_dims, combine, clip, scores, stream);
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

void cosine_over_references(const float* queries, int64_t n, const float* refs, const int64_t* ref_offsets,
                            int64_t dims, Combine combine, bool clip, float* scores, Stream stream) {
  if (n <= 0) return;
  const auto cuda_stream = reinterpret_cast<cudaStream_t>(stream);
  if (dims % 4 == 0 && aligned16(queries) && aligned16(refs)) {
    launch_for_width<float4>(queries, n, refs, ref_offsets, dims / 4, combine, clip, scores, cuda_stream);
  } else {
    launch_for_width<float>(queries, n, refs, ref_offsets, dims, combine, clip, scores, cuda_stream);
  }
  check_launch("cosine_over_references");
}

}  // namespace fastamfm::cuda
