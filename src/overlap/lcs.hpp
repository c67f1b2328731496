// Length of the longest common subsequence of two token-id sequences, bit-parallel
// (Allison & Dix 1986; Hyyro 2004): the pattern's positions are bits of a vector V,
// and each text token updates V with one add and a few bit operations per 64
// pattern positions, so a pair costs O(|text| * ceil(|pattern| / 64)) word ops.
// Each distinct pattern token has a mask of the positions holding it; for long
// patterns with many distinct tokens those masks would take distinct x length / 8
// bytes (gigabytes at 10^5 tokens), so past a budget they are built per text
// token from position lists instead, keeping memory linear in the pattern.
#pragma once
#include <cstdint>
#include <vector>

#include "text/hashing.hpp"

namespace fastamfm {

class BitParallelLcs {
 public:
  // Prepares the pattern; buffers are reused across calls, so one instance per thread.
  void set_pattern(const TokenId* ids, size_t n);
  // LCS length of the pattern and text[0..n).
  size_t length_with(const TokenId* text, size_t n);

 private:
  // 1 + the index of the token's mask, or 0 when the pattern lacks the token.
  uint32_t mask_of(TokenId token) const;

  size_t pattern_size_ = 0;
  size_t words_ = 0;
  bool dense_ = true;
  // The pattern's distinct tokens in a small open-addressing table (token ids are
  // already well-mixed hashes): slot_mask_[s] is 1 + the index of the token's mask, 0 = empty.
  std::vector<TokenId> slot_token_;
  std::vector<uint32_t> slot_mask_;
  std::vector<uint64_t> masks_;  // dense: words_ words per distinct token, the positions holding it
  // Sparse: the positions of distinct token k are positions_[begin_[k] .. begin_[k + 1]),
  // turned into a mask in scratch_ (all zero between uses) when a text token needs it.
  std::vector<uint32_t> begin_, positions_;
  std::vector<uint64_t> scratch_;
  uint64_t filter_[16] = {};     // one bit per pattern token (top 10 bits of its id): clear = absent
  std::vector<uint64_t> v_;      // scratch: the current bit vector
};

}  // namespace fastamfm
