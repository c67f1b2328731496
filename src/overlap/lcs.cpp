#include "overlap/lcs.hpp"

#include <algorithm>
#include <bitset>

namespace fastamfm {

namespace {
// Dense masks up to 8 MiB per instance (per thread).
constexpr size_t kDenseMaskWords = size_t{1} << 20;
}  // namespace

void BitParallelLcs::set_pattern(const TokenId* ids, size_t n) {
  pattern_size_ = n;
  words_ = (n + 63) / 64;
  size_t capacity = 16;
  while (capacity < 2 * n) capacity *= 2;
  slot_token_.assign(capacity, 0);
  slot_mask_.assign(capacity, 0);
  std::fill(std::begin(filter_), std::end(filter_), uint64_t{0});
  // Distinct tokens first, numbered in order of appearance.
  std::vector<uint32_t>& mask_at = positions_;  // reused: the mask number of each position
  mask_at.resize(n);
  uint32_t distinct = 0;
  for (size_t i = 0; i < n; ++i) {
    filter_[ids[i] >> 60] |= uint64_t{1} << ((ids[i] >> 54) & 63);
    size_t slot = ids[i] & (capacity - 1);
    while (slot_mask_[slot] != 0 && slot_token_[slot] != ids[i]) slot = (slot + 1) & (capacity - 1);
    if (slot_mask_[slot] == 0) {
      slot_token_[slot] = ids[i];
      slot_mask_[slot] = ++distinct;
    }
    mask_at[i] = slot_mask_[slot] - 1;
  }
  dense_ = static_cast<size_t>(distinct) * words_ <= kDenseMaskWords;
  if (dense_) {
    masks_.assign(static_cast<size_t>(distinct) * words_, 0);
    for (size_t i = 0; i < n; ++i) masks_[mask_at[i] * words_ + i / 64] |= uint64_t{1} << (i % 64);
    return;
  }
  // Counting sort of the positions by mask number (positions stay ascending).
  masks_.clear();
  begin_.assign(static_cast<size_t>(distinct) + 1, 0);
  for (size_t i = 0; i < n; ++i) ++begin_[mask_at[i] + 1];
  for (size_t k = 0; k < distinct; ++k) begin_[k + 1] += begin_[k];
  std::vector<uint32_t> sorted(n);
  std::vector<uint32_t> fill(begin_.begin(), begin_.end() - 1);
  for (size_t i = 0; i < n; ++i) sorted[fill[mask_at[i]]++] = static_cast<uint32_t>(i);
  positions_.swap(sorted);
  scratch_.assign(words_, 0);
}

uint32_t BitParallelLcs::mask_of(TokenId token) const {
  if (!(filter_[token >> 60] >> ((token >> 54) & 63) & 1)) return 0;
  const size_t mask = slot_token_.size() - 1;
  for (size_t slot = token & mask; slot_mask_[slot] != 0; slot = (slot + 1) & mask)
    if (slot_token_[slot] == token) return slot_mask_[slot];
  return 0;
}

size_t BitParallelLcs::length_with(const TokenId* text, size_t n) {
  if (pattern_size_ == 0 || n == 0) return 0;
  // V starts all ones; a zero bit marks a pattern position that ended a match.
  v_.assign(words_, ~uint64_t{0});
  for (size_t t = 0; t < n; ++t) {
    const uint32_t k = mask_of(text[t]);
    if (k == 0) continue;  // a token absent from the pattern leaves V unchanged
    const uint64_t* mask;
    if (dense_) {
      mask = masks_.data() + (k - 1) * words_;
    } else {
      for (uint32_t b = begin_[k - 1]; b < begin_[k]; ++b) scratch_[positions_[b] / 64] |= uint64_t{1} << (positions_[b] % 64);
      mask = scratch_.data();
    }
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
    if (!dense_)
      for (uint32_t b = begin_[k - 1]; b < begin_[k]; ++b) scratch_[positions_[b] / 64] = 0;
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
