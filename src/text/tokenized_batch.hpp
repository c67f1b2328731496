// n sentences after tokenization: per token its 64-bit id and its text.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "text/hashing.hpp"
#include "parallel/parallel.hpp"
#include "text/text_batch.hpp"
#include "text/tokenizer.hpp"

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


// Tokenizes every text on `workers` threads with split_text(text, scratch, emit),
// which calls emit(token) for each token. Fixed-size parts are tokenized apart and
// joined in order, so the result never depends on the thread count.
template <class SplitText>
TokenizedBatch tokenize_in_parts(const TextBatch& texts, int workers, const InterruptCheck& interrupted,
                                 SplitText&& split_text) {
  constexpr size_t kPartSize = 4096;
  const size_t n = texts.size();
  const size_t parts = part_count(n, kPartSize);
  std::vector<TokenizedBatch> partial(parts);
  parallel_parts(
      parts, workers,
      [&](size_t p) {
        TokenizedBatch& out = partial[p];
        std::string scratch;
        for (size_t i = p * kPartSize; i < std::min(n, (p + 1) * kPartSize); ++i) {
          split_text(texts[i], scratch, [&](std::string_view token) { out.add_token(token); });
          out.end_sentence();
        }
      },
      interrupted);
  if (parts == 1) return std::move(partial[0]);
  TokenizedBatch result;
  size_t tokens = 0;
  for (const auto& part : partial) tokens += part.total_tokens();
  result.reserve(n, tokens, texts.total_bytes());
  for (const auto& part : partial) result.append(part);
  return result;
}

// Tokenizes every text with `tokenizer`; the result does not depend on workers.
TokenizedBatch tokenize_batch(const TextBatch& texts, const Tokenizer& tokenizer, int workers,
                              const InterruptCheck& interrupted = {});

}  // namespace fastamfm
