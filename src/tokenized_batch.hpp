// n sentences after tokenization: per token its 64-bit id and its text.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hashing.hpp"
#include "parallel.hpp"
#include "text_batch.hpp"
#include "tokenizer.hpp"

namespace fastamfm {

class TokenizedBatch {
 public:
  TokenizedBatch() : sentence_offsets_{0} {}

  size_t size() const { return sentence_offsets_.size() - 1; }
  size_t total_tokens() const { return ids_.size(); }
  size_t num_tokens(size_t i) const { return sentence_offsets_[i + 1] - sentence_offsets_[i]; }
  const TokenId* ids(size_t i) const { return ids_.data() + sentence_offsets_[i]; }
  // Offset of sentence i's first token in the flat token arrays.
  uint64_t first_token(size_t i) const { return sentence_offsets_[i]; }
  std::string_view token(size_t i, size_t j) const { return token_at(sentence_offsets_[i] + j); }
  std::string_view token_at(uint64_t flat_index) const {
    const uint64_t begin = flat_index == 0 ? 0 : token_end_[flat_index - 1];
    return std::string_view(text_.data() + begin, token_end_[flat_index] - begin);
  }
  std::vector<std::string> tokens(size_t i) const;

  // Builder interface: add tokens, then close the sentence.
  void add_token(std::string_view token) {
    text_.append(token.data(), token.size());
    token_end_.push_back(text_.size());
    ids_.push_back(hash_token(token));
  }
  void end_sentence() { sentence_offsets_.push_back(ids_.size()); }
  void append(const TokenizedBatch& other);
  void reserve(size_t n_sentences, size_t n_tokens, size_t n_bytes);

 private:
  std::string text_;                        // token bytes, concatenated without separators
  std::vector<uint64_t> token_end_;         // end of each token in text_
  std::vector<TokenId> ids_;                // hash_token of each token
  std::vector<uint64_t> sentence_offsets_;  // n + 1 offsets into the token arrays
};

// Tokenizes every text on `workers` threads; the result does not depend on workers.
TokenizedBatch tokenize_batch(const TextBatch& texts, const Tokenizer& tokenizer, int workers,
                              const InterruptCheck& interrupted = {});

// Splits [0, n) into parts of about `part_size` items for parallel_parts.
inline size_t part_count(size_t n, size_t part_size) { return (n + part_size - 1) / part_size; }

}  // namespace fastamfm
