// The nlg-eval embedding metrics on token-vector index lists: pooling for
// Embedding Average and Vector Extrema (their cosine is cosine_over_references),
// and Greedy Matching.
#pragma once
#include <cstdint>

#include "device.cuh"

namespace fastamfm::cuda {

enum class Pooling : int {
  sum = 0,      // Embedding Average: the sum (its direction is that of the mean)
  extrema = 1,  // Vector Extrema, nlg-eval's rule per dimension (see pool_token_vectors)
};

// All pointers are device memory. vectors: words x dims row-major float32.
// Sentence s is the token rows token_ids[token_offsets[s] .. token_offsets[s+1]-1]
// (int32 row numbers into vectors, in range; int64 offsets).
// out (sentences x dims): per sentence the pooled vector; an empty sentence gives
// zeros. Extrema follows nlg-eval: with hi/lo the max/min of a dimension, take hi
// when lo > 0, hi when lo < 0 and hi > -lo, otherwise lo (so lo = 0 gives 0).
void pool_token_vectors(const int32_t* token_ids, const int64_t* token_offsets, int64_t sentences,
                        const float* vectors, int64_t dims, Pooling pooling, float* out, Stream stream);

// scores[i] = max over the references j of hypothesis i (rows ref_offsets[i] ..
// ref_offsets[i+1]-1 of the reference token lists) of Greedy Matching:
// (mean over hyp tokens of the best cosine with a ref token + mean over ref tokens
// of the best cosine with a hyp token) / 2. A pair with an empty side scores 0,
// a hypothesis with no references 0. Asynchronous on `stream`.
void greedy_matching(const int32_t* hyp_ids, const int64_t* hyp_offsets, int64_t n, const int32_t* ref_ids,
                     const int64_t* ref_token_offsets, const int64_t* ref_offsets, const float* vectors,
                     int64_t dims, float* scores, Stream stream);

}  // namespace fastamfm::cuda
