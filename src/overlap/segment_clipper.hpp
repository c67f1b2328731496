// Matched n-grams of one hypothesis against references, without sorting: the
// hypothesis n-grams of orders 1..max_order go into a small open-addressing table
// (it stays in L1) and each reference only probes it, counting the n-grams the
// hypothesis has. Keys are chained hashes (order n extends order n-1 by one token),
// consistent within one clipper only; token ids must be well-mixed (hashes, or mix64
// of integer ids). BLEU clips against the largest count in any reference; chrF and
// pairwise scores take each reference's own matches.
#pragma once
#include <cstdint>
#include <vector>

#include "text/hashing.hpp"

namespace fastamfm {

class SegmentClipper {
 public:
  explicit SegmentClipper(int max_order) : max_order_(max_order) {}

  void set_hypothesis(const TokenId* ids, size_t n);
  void set_hypothesis(const std::vector<TokenId>& ids) { set_hypothesis(ids.data(), ids.size()); }

  // BLEU: raises each hypothesis n-gram's clipping limit to its count in this reference.
  void add_reference(const std::vector<TokenId>& ids);
  // correct[k] for orders k + 1 = 1..max_order: hypothesis counts clipped by those limits.
  void correct(uint64_t* out) const;

  // matched[k]: the n-grams of order k + 1 this one reference shares with the
  // hypothesis, each counted min(hypothesis count, reference count) times.
  void match(const TokenId* ids, size_t n, uint64_t* matched);

 private:
  struct Entry {
    NgramKey key = 0;
    uint32_t hyp_count = 0, max_ref = 0, ref_count = 0;
    uint8_t order = 0;
    bool used = false;
  };

  // The key of an n-gram from its prefix's key and its last token.
  static NgramKey extend_key(NgramKey prefix, TokenId last) { return mix64(prefix + last * 0x9e3779b97f4a7c15ULL); }
  size_t find_slot(NgramKey key) const {
    const size_t mask = table_.size() - 1;
    size_t slot = key & mask;  // keys are mixed already: their low bits are uniform
    while (table_[slot].used && table_[slot].key != key) slot = (slot + 1) & mask;
    return slot;
  }
  // Counts the reference's occurrences of hypothesis n-grams into ref_count (touched_).
  void count_reference(const TokenId* ids, size_t n);

  int max_order_;
  std::vector<Entry> table_;
  std::vector<uint32_t> used_, touched_;
};

}  // namespace fastamfm
