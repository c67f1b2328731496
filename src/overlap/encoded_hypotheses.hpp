// Hypotheses encoded once for every metric scored on them: their tokens under one
// tokenizer and, for the overlap metrics, their n-gram counts. AM and FM need only the
// token ids, so max_order 0 skips the counting.
#pragma once
#include "overlap/ngram_counts.hpp"
#include "parallel/parallel.hpp"
#include "text/text_batch.hpp"
#include "text/tokenized_batch.hpp"
#include "text/tokenizer.hpp"

namespace fastamfm {

struct EncodedHypotheses {
  Tokenizer tokenizer;
  TokenizedBatch tokens;
  NgramTable ngrams;  // orders 1..max_order; empty when max_order is 0

  int max_order() const { return ngrams.max_order(); }
  size_t size() const { return tokens.size(); }
};

// Throws InputError for an empty batch or a max_order outside 0..kMaxNgramOrder.
EncodedHypotheses encode_hypotheses(const TextBatch& texts, const Tokenizer& tokenizer, int max_order, int workers,
                                    const InterruptCheck& interrupted = {});

// Two sides of one comparison must be tokenized alike; InputError naming `what` otherwise.
void check_same_tokenizer(const Tokenizer& hyps, const Tokenizer& refs, const char* what);

}  // namespace fastamfm
