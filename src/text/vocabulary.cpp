#include "text/vocabulary.hpp"

#include <stdexcept>

namespace fastamfm {

uint32_t Vocabulary::add(std::string_view word) {
  const TokenId id = hash_token(word);
  auto [it, inserted] = index_.emplace(id, static_cast<uint32_t>(words_.size()));
  if (inserted) {
    if (words_.size() >= kNotFound) throw std::runtime_error("vocabulary: more than 2^32-1 words");
    words_.emplace_back(word);
  } else if (words_[it->second] != word) {
    throw std::runtime_error("vocabulary: 64-bit id collision between '" + words_[it->second] + "' and '" +
                             std::string(word) + "'");
  }
  return it->second;
}

}  // namespace fastamfm
