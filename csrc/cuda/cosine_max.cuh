// Cosine of each query vector with its own ragged set of reference vectors,
// combined over the set: AM's "cosine, clip, max over references" and the last
// step of Embedding Average and Vector Extrema.
#pragma once
#include <cstdint>

#include "device.cuh"

namespace fastamfm::cuda {

enum class Combine : int { max = 0, mean = 1 };

// All pointers are device memory. queries: n x dims, refs: ref_offsets[n] x dims
// (row-major float32); the references of query i are rows
// ref_offsets[i] .. ref_offsets[i+1]-1 (non-decreasing int64, ref_offsets[0] = 0).
// scores[i] = combine over those rows of cos(query i, ref j); when `clip` each
// cosine is first clipped to [0, 1] (AM). A zero vector has cosine 0 with
// everything; a query with no references scores 0. Inputs need no normalisation.
// Asynchronous on `stream`.
void cosine_over_references(const float* queries, int64_t n, const float* refs, const int64_t* ref_offsets,
                            int64_t dims, Combine combine, bool clip, float* scores, Stream stream);

}  // namespace fastamfm::cuda
