// AM, the adequacy half of AM-FM: each sentence becomes a unit vector in the LSI
// space (weighted bag of words x U[:, :dims], L2-normalised), and a response
// scores cos(hyp, ref) clipped below at 0, combined over its references.
//
// A sentence with no vocabulary word has the zero vector: every cosine with it is
// 0, so a hypothesis without known words scores 0, and so does a reference.
//
// The scoring core is adequacy_scores below: plain arrays in, one score per
// hypothesis out, so that other backends (CUDA) can mirror it exactly.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "lsi/lsi_model.hpp"
#include "parallel/parallel.hpp"
#include "text/tokenized_batch.hpp"

namespace fastamfm {

// How the per-reference results of one hypothesis are combined:
//   Max       max_r max(0, cos(h, r))                  (the AM-FM paper's choice)
//   Mean      mean_r max(0, cos(h, r))
//   Centroid  max(0, cos(h, c)), c = sum_r of the unit reference vectors
// The max(0, .) clipping is classic AM's; with clip = false the cosines are kept
// signed (Deep AM-FM's encoder cosine is not clipped).
enum class AdequacyCombine : uint32_t { Max = 0, Mean = 1, Centroid = 2 };

AdequacyCombine parse_adequacy_combine(const std::string& name);

// Unit vectors of the sentences of `batch` in the first `dims` LSI dimensions:
// out is batch.size() x dims, row-major; a row is all zero when the sentence has no
// vocabulary word. dims must be in 1..model.dims().
std::vector<float> project_unit_vectors(const LsiModel& model, const TokenizedBatch& batch, size_t dims, int workers,
                                        const InterruptCheck& interrupted = {});
// The same from raw texts, tokenized with the model's tokenizer on the fly (no
// TokenizedBatch is built: scoring a system needs only the token ids).
std::vector<float> project_unit_vectors(const LsiModel& model, const TextBatch& texts, size_t dims, int workers,
                                        const InterruptCheck& interrupted = {});

// The scoring core.
//   hyps        n x dims unit (or zero) vectors, row-major
//   refs        n_refs x dims unit (or zero) vectors, row-major
//   ref_offsets n + 1 ascending offsets: the references of hypothesis i are rows
//               ref_offsets[i] .. ref_offsets[i+1]-1 of refs (at least one each)
//   clip        clip each cosine below at 0 (classic AM) or keep it signed
//   out         n scores in [0, 1] (clip) or [-1, 1]
// Dot products are summed in double, as dot_float (vector_clones.hpp) orders them.
void adequacy_scores(const float* hyps, size_t n, const float* refs, const uint64_t* ref_offsets, size_t dims,
                     AdequacyCombine combine, bool clip, double* out, int workers,
                     const InterruptCheck& interrupted = {});

}  // namespace fastamfm
