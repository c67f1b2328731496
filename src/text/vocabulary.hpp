// A closed vocabulary: word <-> dense index, for the models that own one (LSI
// rows, language-model unigrams). Lookup goes through the same 64-bit token ids
// the tokenizer produces, so a tokenized sentence is mapped without re-hashing.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "text/hashing.hpp"

namespace fastamfm {

class Vocabulary {
 public:
  static constexpr uint32_t kNotFound = UINT32_MAX;

  // Adds word if new; returns its index. Throws if two different words share an id.
  uint32_t add(std::string_view word);
  uint32_t find(TokenId id) const {
    auto it = index_.find(id);
    return it == index_.end() ? kNotFound : it->second;
  }
  uint32_t find(std::string_view word) const { return find(hash_token(word)); }
  size_t size() const { return words_.size(); }
  const std::string& word(uint32_t index) const { return words_[index]; }
  const std::vector<std::string>& words() const { return words_; }

 private:
  std::vector<std::string> words_;
  std::unordered_map<TokenId, uint32_t> index_;
};

}  // namespace fastamfm
