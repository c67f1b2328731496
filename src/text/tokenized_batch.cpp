#include "text/tokenized_batch.hpp"

#include <algorithm>

namespace fastamfm {

std::vector<std::string> TokenizedBatch::tokens(size_t i) const {
  std::vector<std::string> out;
  out.reserve(num_tokens(i));
  for (size_t j = 0; j < num_tokens(i); ++j) out.emplace_back(token(i, j));
  return out;
}

void TokenizedBatch::reserve(size_t n_sentences, size_t n_tokens, size_t n_bytes) {
  sentence_offsets_.reserve(n_sentences + 1);
  ids_.reserve(n_tokens);
  token_end_.reserve(n_tokens);
  text_.reserve(n_bytes);
}

void TokenizedBatch::append(const TokenizedBatch& other) {
  const uint64_t text_base = text_.size();
  const uint64_t token_base = ids_.size();
  text_ += other.text_;
  for (uint64_t end : other.token_end_) token_end_.push_back(text_base + end);
  ids_.insert(ids_.end(), other.ids_.begin(), other.ids_.end());
  for (size_t i = 1; i < other.sentence_offsets_.size(); ++i)
    sentence_offsets_.push_back(token_base + other.sentence_offsets_[i]);
}

TokenizedBatch tokenize_batch(const TextBatch& texts, const Tokenizer& tokenizer, int workers,
                              const InterruptCheck& interrupted) {
  return tokenize_in_parts(texts, workers, interrupted, [&](std::string_view text, std::string& scratch, auto&& emit) {
    tokenizer.for_each_token(text, scratch, emit);
  });
}

}  // namespace fastamfm
