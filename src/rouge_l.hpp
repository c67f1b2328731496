// ROUGE-L of each hypothesis against its references, from LCS lengths on token ids.
//
// MaxPrecisionRecall is pycocoevalcap's Rouge (nlg-eval, DSTC-6): precision and
// recall are each maximised over the references, then combined into
// F = (1 + beta^2) P R / (R + beta^2 P). Feed it split_on_spaces tokens to see the
// text exactly as pycocoevalcap does.
// MaxF is rouge-score's score_multi: the F of the best reference; an empty side scores 0.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "parallel.hpp"
#include "tokenized_batch.hpp"

namespace fastamfm {

enum class RougeMultiRef { MaxPrecisionRecall, MaxF };
RougeMultiRef parse_rouge_multi_ref(std::string_view name);

// refs: all references; those of hypothesis i are segment_offsets[i]..segment_offsets[i+1].
// One F score per hypothesis. [n]
std::vector<double> rouge_l_scores(const TokenizedBatch& hyps, const TokenizedBatch& refs,
                                   const std::vector<uint64_t>& segment_offsets, double beta, RougeMultiRef multi_ref,
                                   int workers, const InterruptCheck& interrupted = {});

}  // namespace fastamfm
