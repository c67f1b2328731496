#include "lcs.hpp"

#include <algorithm>
#include <bitset>

namespace fastamfm {

void BitParallelLcs::set_pattern(const TokenId* ids, size_t n) {
  pattern_size_ = n;
  words_ = (n + 63) / 64;
  distinct_.assign(ids, ids + n);
  std::sort(distinct_.begin(), distinct_.end());
  distinct_.erase(std::unique(distinct_.begin(), distinct_.end()), distinct_.end());
  masks_.assign(distinct_.size() * words_, 0);
  for (size_t i = 0; i < n; ++i) {
    const size_t d = static_cast<size_t>(std::lower_bound(distinct_.begin(), distinct_.end(), ids[i]) - distinct_.begin());
    masks_[d * words_ + i / 64] |= uint64_t{1} << (i % 64);
  }
}

const uint64_t* BitParallelLcs::match_mask(TokenId token) const {
  const auto it = std::lower_bound(distinct_.begin(), distinct_.end(), token);
  if (it == distinct_.end() || *it != token) return nullptr;
  return masks_.data() + static_cast<size_t>(it - distinct_.begin()) * words_;
}

size_t BitParallelLcs::length_with(const TokenId* text, size_t n) {
  if (pattern_size_ == 0 || n == 0) return 0;
  // V starts all ones; a zero bit marks a pattern position that ended a match.
  v_.assign(words_, ~uint64_t{0});
  for (size_t t = 0; t < n; ++t) {
    const uint64_t* mask = match_mask(text[t]);
    if (mask == nullptr) continue;  // a token absent from the pattern leaves V unchanged
    uint64_t carry = 0;
    for (size_t w = 0; w < words_; ++w) {
      const uint64_t v = v_[w];
      const uint64_t u = v & mask[w];
      // V' = (V + U) | (V & ~M), the addition carried across words.
      const uint64_t partial = v + carry;
      const uint64_t carry_a = partial < carry ? 1 : 0;
      const uint64_t sum = partial + u;
      const uint64_t carry_b = sum < partial ? 1 : 0;
      carry = carry_a | carry_b;
      v_[w] = sum | (v & ~mask[w]);
    }
  }
  // Count the zero bits among the pattern's positions (padding bits are ignored).
  size_t zeros = 0;
  for (size_t w = 0; w < words_; ++w) {
    const size_t bits = std::min<size_t>(64, pattern_size_ - w * 64);
    const uint64_t valid = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    zeros += std::bitset<64>(~v_[w] & valid).count();
  }
  return zeros;
}

}  // namespace fastamfm
