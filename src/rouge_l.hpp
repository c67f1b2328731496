// ROUGE-L of each hypothesis against its references, from LCS lengths on token ids.
//
// MaxPrecisionRecall is pycocoevalcap's Rouge (nlg-eval, DSTC-6): precision and
// recall are each maximised over the references, then combined into
// F = (1 + beta^2) P R / (R + beta^2 P). pycocoevalcap splits on single spaces, so an
// empty text is one empty token: an empty hypothesis matches an empty reference
// with P = R = 1. That case is reproduced; runs of whitespace are one separator here.
// MaxF is rouge-score's score_multi: the F of the best reference; empty text scores 0.
#pragma once
#include <string_view>
#include <vector>

#include "parallel.hpp"
#include "reference_set.hpp"
#include "tokenized_batch.hpp"

namespace fastamfm {

enum class RougeMultiRef { MaxPrecisionRecall, MaxF };
RougeMultiRef parse_rouge_multi_ref(std::string_view name);

// One F score per hypothesis. [n]
std::vector<double> rouge_l_scores(const TokenizedBatch& hyps, const ReferenceSet& refs, double beta,
                                   RougeMultiRef multi_ref, int workers, const InterruptCheck& interrupted = {});

}  // namespace fastamfm
