// n token-id sequences without their text: what the metrics that compare token ids
// take (integer ids from a model's tokenizer for RL rewards, or the hashed tokens of
// text), stored flat with n + 1 offsets.
#pragma once
#include <cstdint>
#include <vector>

#include "text/hashing.hpp"
#include "text/tokenized_batch.hpp"

namespace fastamfm {

class TokenIdBatch {
 public:
  TokenIdBatch() : offsets_{0} {}
  TokenIdBatch(std::vector<TokenId> ids, std::vector<uint64_t> offsets)
      : ids_(std::move(ids)), offsets_(std::move(offsets)) {}
  // The ids of tokenized text (hashes of the tokens).
  static TokenIdBatch of(const TokenizedBatch& batch) {
    TokenIdBatch out;
    out.ids_.reserve(batch.total_tokens());
    for (size_t i = 0; i < batch.size(); ++i) {
      out.ids_.insert(out.ids_.end(), batch.ids(i), batch.ids(i) + batch.num_tokens(i));
      out.offsets_.push_back(out.ids_.size());
    }
    return out;
  }

  size_t size() const { return offsets_.size() - 1; }
  size_t num_tokens(size_t i) const { return offsets_[i + 1] - offsets_[i]; }
  const TokenId* ids(size_t i) const { return ids_.data() + offsets_[i]; }
  const std::vector<uint64_t>& offsets() const { return offsets_; }

 private:
  std::vector<TokenId> ids_;
  std::vector<uint64_t> offsets_;
};

}  // namespace fastamfm
