// Document frequencies of n-grams for CIDEr: in how many segments' reference sets
// each n-gram occurs (once per segment however many references hold it). Built by
// adding reference sets one after another, so the references of a corpus can be
// streamed in chunks before any hypothesis is scored.
#pragma once
#include <cstdint>
#include <vector>

#include "hashing.hpp"
#include "parallel.hpp"
#include "reference_set.hpp"

namespace fastamfm {

class DocumentFrequency {
 public:
  explicit DocumentFrequency(int max_order = 4);

  // Counts the n-grams (orders 1..max_order) of every segment of refs.
  void add(const ReferenceSet& refs, int workers, const InterruptCheck& interrupted = {});

  int max_order() const { return max_order_; }
  uint64_t num_segments() const { return segments_; }
  size_t num_ngrams() const { return used_ + (zero_key_count_ > 0 ? 1 : 0); }
  // Segments whose references contain the n-gram; 0 when never seen.
  uint32_t count(NgramKey key) const;
  // Starts loading key's slot into cache: a batch of lookups then overlaps its misses.
  void prefetch(NgramKey key) const { __builtin_prefetch(&slots_[key & (slots_.size() - 1)]); }

 private:
  void increment(NgramKey key);
  void grow();

  // Open addressing with linear probing; key 0 marks an empty slot, so the (one in
  // 2^64) n-gram whose key is 0 is counted apart.
  std::vector<NgramCount> slots_;  // key and count side by side: one cache line per probe
  size_t used_ = 0;
  uint32_t zero_key_count_ = 0;
  int max_order_;
  uint64_t segments_ = 0;
};

}  // namespace fastamfm
