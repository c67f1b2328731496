#include "overlap/encoded_hypotheses.hpp"

#include <string>

#include "common/errors.hpp"
#include "overlap/ngram_counts.hpp"

namespace fastamfm {

EncodedHypotheses encode_hypotheses(const TextBatch& texts, const Tokenizer& tokenizer, int max_order, int workers,
                                    const InterruptCheck& interrupted) {
  if (texts.empty()) throw InputError("hyps is empty");
  if (max_order < 0 || max_order > kMaxNgramOrder)
    throw InputError("max_order must be in 0.." + std::to_string(kMaxNgramOrder) + ", got " + std::to_string(max_order));
  EncodedHypotheses out{tokenizer, tokenize_batch(texts, tokenizer, workers, interrupted), {}};
  if (max_order > 0) out.ngrams = NgramTable(out.tokens, max_order, workers, interrupted);
  return out;
}

void check_same_tokenizer(const Tokenizer& hyps, const Tokenizer& refs, const char* what) {
  if (hyps.describe() != refs.describe())
    throw InputError(std::string(what) + ": hypotheses encoded with " + hyps.describe() + " but references with " +
                     refs.describe());
}

}  // namespace fastamfm
