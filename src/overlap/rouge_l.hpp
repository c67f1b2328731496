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

#include "parallel/parallel.hpp"
#include "text/text_batch.hpp"
#include "text/tokenized_batch.hpp"
#include "text/tokenizer.hpp"

namespace fastamfm {

enum class RougeMultiRef { MaxPrecisionRecall, MaxF };
RougeMultiRef parse_rouge_multi_ref(std::string_view name);

// refs: all references; those of hypothesis i are segment_offsets[i]..segment_offsets[i+1].
// One F score per hypothesis. [n]
std::vector<double> rouge_l_scores(const TokenizedBatch& hyps, const TokenizedBatch& refs,
                                   const std::vector<uint64_t>& segment_offsets, double beta, RougeMultiRef multi_ref,
                                   int workers, const InterruptCheck& interrupted = {});

// The same scores straight from text, for a one-off scoring: each text is tokenized
// into ids as its segment is scored (with split_on_spaces' rule when
// split_like_pycoco, else the tokenizer), so no token text is ever stored.
std::vector<double> rouge_l_scores_from_text(const TextBatch& hyps, const TextBatch& refs,
                                             const std::vector<uint64_t>& segment_offsets, const Tokenizer& tokenizer,
                                             bool split_like_pycoco, double beta, RougeMultiRef multi_ref, int workers,
                                             const InterruptCheck& interrupted = {});

}  // namespace fastamfm
