#include "overlap/segment_clipper.hpp"

#include <algorithm>

namespace fastamfm {

void SegmentClipper::set_hypothesis(const TokenId* ids, size_t n) {
  const size_t ngrams = n * static_cast<size_t>(max_order_);
  size_t capacity = 64;
  while (capacity < 2 * ngrams) capacity *= 2;
  // The table only grows, and only the slots the previous hypothesis used are
  // dirty: clearing those is far cheaper than wiping the table for every segment.
  if (capacity > table_.size()) {
    table_.assign(capacity, Entry{});
  } else {
    for (uint32_t slot : used_) table_[slot] = Entry{};
  }
  used_.clear();
  for (size_t i = 0; i < n; ++i) {
    NgramKey key = ids[i];
    for (int order = 1; order <= max_order_ && i + static_cast<size_t>(order) <= n; ++order) {
      if (order > 1) key = extend_key(key, ids[i + static_cast<size_t>(order) - 1]);
      const size_t slot = find_slot(key);
      Entry& e = table_[slot];
      if (!e.used) {
        e = Entry{key, 0, 0, 0, static_cast<uint8_t>(order), true};
        used_.push_back(static_cast<uint32_t>(slot));
      }
      ++e.hyp_count;
    }
  }
}

void SegmentClipper::count_reference(const TokenId* ids, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    NgramKey key = ids[i];
    for (size_t order = 1;; ++order) {
      Entry& e = table_[find_slot(key)];
      // An n-gram the hypothesis lacks has no extension it holds: stop here.
      if (!e.used) break;
      if (e.ref_count++ == 0) touched_.push_back(static_cast<uint32_t>(&e - table_.data()));
      if (order == static_cast<size_t>(max_order_) || i + order >= n) break;
      key = extend_key(key, ids[i + order]);
    }
  }
}

void SegmentClipper::add_reference(const std::vector<TokenId>& ids) {
  count_reference(ids.data(), ids.size());
  for (uint32_t slot : touched_) {
    Entry& e = table_[slot];
    e.max_ref = std::max(e.max_ref, e.ref_count);
    e.ref_count = 0;
  }
  touched_.clear();
}

void SegmentClipper::correct(uint64_t* out) const {
  std::fill(out, out + max_order_, uint64_t{0});
  for (uint32_t slot : used_) {
    const Entry& e = table_[slot];
    out[e.order - 1] += std::min(e.hyp_count, e.max_ref);
  }
}

void SegmentClipper::match(const TokenId* ids, size_t n, uint64_t* matched) {
  std::fill(matched, matched + max_order_, uint64_t{0});
  if (table_.empty()) return;
  count_reference(ids, n);
  for (uint32_t slot : touched_) {
    Entry& e = table_[slot];
    matched[e.order - 1] += std::min(e.hyp_count, e.ref_count);
    e.ref_count = 0;
  }
  touched_.clear();
}

}  // namespace fastamfm
