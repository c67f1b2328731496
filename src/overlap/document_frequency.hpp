// Document frequencies of n-grams for CIDEr: in how many segments' reference sets
// each n-gram occurs (once per segment however many references hold it). Built by
// adding reference sets one after another, so the references of a corpus can be
// streamed in chunks before any hypothesis is scored.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "text/hashing.hpp"
#include "parallel/parallel.hpp"
#include "overlap/ngram_counts.hpp"
#include "overlap/reference_set.hpp"

namespace fastamfm {

class DocumentFrequency {
 public:
  explicit DocumentFrequency(int max_order = 4);

  // Counts the n-grams (orders 1..max_order) of every segment of refs.
  void add(const ReferenceSet& refs, int workers, const InterruptCheck& interrupted = {});

  // The counts as (key, segments) pairs sorted by key, and their inverse: adding the
  // entries of another table (counted over other segments) merges the two, so tables
  // counted on separate partitions of a corpus add up to the whole corpus' table.
  std::vector<NgramCount> entries() const;
  void add_entries(const std::vector<NgramCount>& entries, uint64_t segments);

  int max_order() const { return max_order_; }
  uint64_t num_segments() const { return segments_; }
  size_t num_ngrams() const;
  // Segments whose references contain the n-gram; 0 when never seen.
  uint32_t count(NgramKey key) const { return shards_[shard_of(key)].count(key); }
  // Starts loading key's slot into cache: a batch of lookups then overlaps its misses.
  void prefetch(NgramKey key) const { shards_[shard_of(key)].prefetch(key); }

 private:
  // Open addressing with linear probing; key 0 marks an empty slot, so the (one in
  // 2^64) n-gram whose key is 0 is counted apart.
  class Shard {
   public:
    Shard() : slots_(64, NgramCount{0, 0}) {}
    uint32_t count(NgramKey key) const;
    void prefetch(NgramKey key) const { __builtin_prefetch(&slots_[key & (slots_.size() - 1)]); }
    void increment(NgramKey key);
    void add_count(NgramKey key, uint32_t count);
    void append_entries(std::vector<NgramCount>& out) const;
    size_t size() const { return used_ + (zero_key_count_ > 0 ? 1 : 0); }

   private:
    void grow();
    std::vector<NgramCount> slots_;  // key and count side by side: one cache line per probe
    size_t used_ = 0;
    uint32_t zero_key_count_ = 0;
  };

  // The table is split by the keys' top bits so that filling one shard stays within
  // cache, and the shards fill on separate threads.
  static constexpr int kShardBits = 6;
  static size_t shard_of(NgramKey key) { return static_cast<size_t>(key >> (64 - kShardBits)); }

  std::array<Shard, size_t{1} << kShardBits> shards_;
  int max_order_;
  uint64_t segments_ = 0;
};

}  // namespace fastamfm
