#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "embedding_metrics.cuh"
#include "warp_reduce.cuh"

namespace fastamfm::cuda {
namespace {

using detail::kWarpSize;
using detail::kWarpsPerBlock;

__device__ __forceinline__ float nlg_eval_extremum(float hi, float lo) {
  if (lo > 0.f) return hi;
  if (lo < 0.f) return hi > -lo ? hi : lo;
  return lo;
}

// One warp per sentence, lanes across dimensions: every token's row is read by
// the warp as one coalesced run, and the tokens are visited in order so the sum
// does not depend on the launch shape.
__global__ void pool_kernel(const int32_t* __restrict__ token_ids, const int64_t* __restrict__ token_offsets,
                            int64_t sentences, const float* __restrict__ vectors, int64_t dims, int pooling,
                            float* __restrict__ out) {
  const int lane = detail::lane_index();
  for (int64_t s = detail::global_warp_index(); s < sentences; s += detail::warp_count()) {
    const int64_t begin = token_offsets[s];
    const int64_t end = token_offsets[s + 1];
    for (int64_t d = lane; d < dims; d += kWarpSize) {
      float sum = 0.f;
      float hi = -INFINITY;
      float lo = INFINITY;
      for (int64_t p = begin; p < end; ++p) {
        const float v = vectors[static_cast<int64_t>(token_ids[p]) * dims + d];
        sum += v;
        hi = fmaxf(hi, v);
        lo = fminf(lo, v);
      }
      float value = sum;
      if (pooling == static_cast<int>(Pooling::extrema)) value = begin == end ? 0.f : nlg_eval_extremum(hi, lo);
      out[s * dims + d] = value;
    }
  }
}

// a·b, a·a and b·b of two word vectors, summed over the warp.
struct Dots {
  float ab, aa, bb;
};

__device__ __forceinline__ Dots warp_dots(const float* a, const float* b, int64_t dims, int lane) {
  Dots dots{0.f, 0.f, 0.f};
  for (int64_t d = lane; d < dims; d += kWarpSize) {
    const float x = a[d];
    const float y = b[d];
    dots.ab += x * y;
    dots.aa += x * x;
    dots.bb += y * y;
  }
  return {detail::warp_sum(dots.ab), detail::warp_sum(dots.aa), detail::warp_sum(dots.bb)};
}

// Mean over the tokens of `from` of their best cosine with a token of `to`.
__device__ float mean_best_cosine(const int32_t* from, int64_t from_len, const int32_t* to, int64_t to_len,
                                  const float* vectors, int64_t dims, int lane) {
  float total = 0.f;
  for (int64_t a = 0; a < from_len; ++a) {
    const float* va = vectors + static_cast<int64_t>(from[a]) * dims;
    float best = -INFINITY;
    for (int64_t b = 0; b < to_len; ++b) {
      const Dots dots = warp_dots(va, vectors + static_cast<int64_t>(to[b]) * dims, dims, lane);
      best = fmaxf(best, detail::cosine_from_dots(dots.ab, dots.aa, dots.bb));
    }
    total += best;
  }
  return total / static_cast<float>(from_len);
}

// One block per hypothesis, one warp per reference (strided); the block's warps
// then take the maximum through shared memory. A short batch (a training step's
// rewards) still spreads over many warps.
__global__ void greedy_kernel(const int32_t* __restrict__ hyp_ids, const int64_t* __restrict__ hyp_offsets, int64_t n,
                              const int32_t* __restrict__ ref_ids, const int64_t* __restrict__ ref_token_offsets,
                              const int64_t* __restrict__ ref_offsets, const float* __restrict__ vectors, int64_t dims,
                              float* __restrict__ scores) {
  __shared__ float warp_best[kWarpsPerBlock];
  const int lane = detail::lane_index();
  const int warp = static_cast<int>(threadIdx.x / kWarpSize);
  for (int64_t i = blockIdx.x; i < n; i += gridDim.x) {
    const int32_t* hyp = hyp_ids + hyp_offsets[i];
    const int64_t hyp_len = hyp_offsets[i + 1] - hyp_offsets[i];
    float best = -INFINITY;
    for (int64_t j = ref_offsets[i] + warp; j < ref_offsets[i + 1]; j += kWarpsPerBlock) {
      const int32_t* ref = ref_ids + ref_token_offsets[j];
      const int64_t ref_len = ref_token_offsets[j + 1] - ref_token_offsets[j];
      float score = 0.f;
      if (hyp_len > 0 && ref_len > 0) {
        score = 0.5f * (mean_best_cosine(hyp, hyp_len, ref, ref_len, vectors, dims, lane) +
                        mean_best_cosine(ref, ref_len, hyp, hyp_len, vectors, dims, lane));
      }
      best = fmaxf(best, score);
    }
    if (lane == 0) warp_best[warp] = best;
    __syncthreads();
    if (threadIdx.x == 0) {
      float block_best = -INFINITY;
      for (int w = 0; w < kWarpsPerBlock; ++w) block_best = fmaxf(block_best, warp_best[w]);
      scores[i] = ref_offsets[i + 1] > ref_offsets[i] ? block_best : 0.f;
    }
    __syncthreads();  // warp_best is reused by the next hypothesis of this block
  }
}

unsigned blocks_for_rows(int64_t rows) {
  constexpr int64_t kMaxBlocks = int64_t{1} << 20;
  return static_cast<unsigned>(rows < kMaxBlocks ? rows : kMaxBlocks);
}

}  // namespace

void pool_token_vectors(const int32_t* token_ids, const int64_t* token_offsets, int64_t sentences,
                        const float* vectors, int64_t dims, Pooling pooling, float* out, Stream stream) {
  if (sentences <= 0) return;
  pool_kernel<<<detail::blocks_for_warps(sentences), detail::kThreadsPerBlock, 0,
                reinterpret_cast<cudaStream_t>(stream)>>>(token_ids, token_offsets, sentences, vectors, dims,
                                                          static_cast<int>(pooling), out);
  check_launch("pool_token_vectors");
}

void greedy_matching(const int32_t* hyp_ids, const int64_t* hyp_offsets, int64_t n, const int32_t* ref_ids,
                     const int64_t* ref_token_offsets, const int64_t* ref_offsets, const float* vectors,
                     int64_t dims, float* scores, Stream stream) {
  if (n <= 0) return;
  greedy_kernel<<<blocks_for_rows(n), detail::kThreadsPerBlock, 0, reinterpret_cast<cudaStream_t>(stream)>>>(
      hyp_ids, hyp_offsets, n, ref_ids, ref_token_offsets, ref_offsets, vectors, dims, scores);
  check_launch("greedy_matching");
}

}  // namespace fastamfm::cuda
