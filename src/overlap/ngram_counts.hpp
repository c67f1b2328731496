// Per-sentence n-gram counts, the sufficient statistics BLEU, CIDEr and Distinct-n share.
// For each sentence and each order 1..max_order: the distinct n-grams as
// (key, count) pairs sorted by key, so two sentences are compared by a linear merge.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "text/hashing.hpp"
#include "parallel/parallel.hpp"
#include "text/tokenized_batch.hpp"

namespace fastamfm {

// The largest n-gram order any metric counts (BLEU, CIDEr, Distinct-n, the reference
// tables): an n-gram key hashes at most this many tokens. Exposed to Python as
// _core.MAX_NGRAM_ORDER, which the metrics' option checks read.
constexpr int kMaxNgramOrder = 16;

struct NgramCount {
  NgramKey key;
  uint32_t count;
};

struct NgramSpan {
  const NgramCount* data = nullptr;
  size_t size = 0;
  const NgramCount* begin() const { return data; }
  const NgramCount* end() const { return data + size; }
};

// Counts the n-grams of one token sequence for order `order`, appending the sorted
// (key, count) pairs to out. `keys` is scratch space.
void count_ngrams(const TokenId* ids, size_t n_tokens, int order, std::vector<NgramKey>& keys,
                  std::vector<NgramCount>& out);

// Joins counts built in parts (part p: its entries, and the size of each span in
// order) into one flat array and span offsets (offsets starts as {0}).
void join_ngram_parts(const std::vector<std::vector<NgramCount>>& part_entries,
                      const std::vector<std::vector<uint64_t>>& part_sizes, std::vector<NgramCount>& entries,
                      std::vector<uint64_t>& offsets);

// Totals of two count spans and the n-grams they share, each counted min(a, b) times.
struct NgramOverlap {
  uint64_t left_total = 0, right_total = 0, matched = 0;
};
NgramOverlap ngram_overlap(NgramSpan left, NgramSpan right);

class NgramTable {
 public:
  NgramTable() = default;
  // `slots` spans per item for n items: count_item(i, entries, sizes) appends item i's
  // sorted counts of each slot to entries and each span's size to sizes, in slot order
  // (count_ngrams per order, or other n-gram kinds such as chrF's characters and words).
  template <class CountItem>
  static NgramTable build(size_t n, int slots, int workers, const InterruptCheck& interrupted,
                          CountItem&& count_item);
  // Counts orders 1..max_order of every sentence of `batch`.
  NgramTable(const TokenizedBatch& batch, int max_order, int workers, const InterruptCheck& interrupted = {});

  int max_order() const { return max_order_; }
  size_t size() const { return max_order_ == 0 ? 0 : (offsets_.size() - 1) / static_cast<size_t>(max_order_); }
  // Counts of sentence i for order in 1..max_order.
  NgramSpan at(size_t i, int order) const {
    const size_t slot = i * static_cast<size_t>(max_order_) + static_cast<size_t>(order - 1);
    return {entries_.data() + offsets_[slot], offsets_[slot + 1] - offsets_[slot]};
  }

 private:
  int max_order_ = 0;
  std::vector<NgramCount> entries_;
  std::vector<uint64_t> offsets_{0};
};

template <class CountItem>
NgramTable NgramTable::build(size_t n, int slots, int workers, const InterruptCheck& interrupted,
                             CountItem&& count_item) {
  constexpr size_t kPartSize = 4096;
  const size_t parts = part_count(n, kPartSize);
  std::vector<std::vector<NgramCount>> part_entries(parts);
  std::vector<std::vector<uint64_t>> part_sizes(parts);
  parallel_parts(
      parts, workers,
      [&](size_t p) {
        const size_t begin = p * kPartSize, end = std::min(n, begin + kPartSize);
        for (size_t i = begin; i < end; ++i) count_item(i, part_entries[p], part_sizes[p]);
      },
      interrupted);
  NgramTable table;
  table.max_order_ = slots;
  join_ngram_parts(part_entries, part_sizes, table.entries_, table.offsets_);
  return table;
}

}  // namespace fastamfm
