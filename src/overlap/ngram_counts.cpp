#include "overlap/ngram_counts.hpp"

#include <algorithm>
#include <string>

#include "common/errors.hpp"

namespace fastamfm {

void count_ngrams(const TokenId* ids, size_t n_tokens, int order, std::vector<NgramKey>& keys,
                  std::vector<NgramCount>& out) {
  const size_t k = static_cast<size_t>(order);
  if (n_tokens < k) return;
  keys.clear();
  for (size_t i = 0; i + k <= n_tokens; ++i) keys.push_back(ngram_key(ids + i, k));
  std::sort(keys.begin(), keys.end());
  for (size_t i = 0; i < keys.size();) {
    size_t j = i + 1;
    while (j < keys.size() && keys[j] == keys[i]) ++j;
    out.push_back({keys[i], static_cast<uint32_t>(j - i)});
    i = j;
  }
}

NgramTable::NgramTable(const TokenizedBatch& batch, int max_order, int workers,
                       const InterruptCheck& interrupted) {
  if (max_order < 1 || max_order > kMaxNgramOrder)
    throw InputError("n-gram order must be in 1.." + std::to_string(kMaxNgramOrder) + ", got " + std::to_string(max_order));
  *this = build(batch.size(), max_order, workers, interrupted,
                [&](size_t i, std::vector<NgramCount>& entries, std::vector<uint64_t>& sizes) {
                  thread_local std::vector<NgramKey> keys;
                  for (int order = 1; order <= max_order; ++order) {
                    const size_t before = entries.size();
                    count_ngrams(batch.ids(i), batch.num_tokens(i), order, keys, entries);
                    sizes.push_back(entries.size() - before);
                  }
                });
}

NgramOverlap ngram_overlap(NgramSpan left, NgramSpan right) {
  NgramOverlap out;
  for (const NgramCount& e : left) out.left_total += e.count;
  for (const NgramCount& e : right) out.right_total += e.count;
  size_t i = 0, j = 0;
  while (i < left.size && j < right.size) {
    const NgramKey a = left.data[i].key, b = right.data[j].key;
    if (a == b) out.matched += std::min(left.data[i].count, right.data[j].count);
    i += a <= b;
    j += b <= a;
  }
  return out;
}

void join_ngram_parts(const std::vector<std::vector<NgramCount>>& part_entries,
                      const std::vector<std::vector<uint64_t>>& part_sizes, std::vector<NgramCount>& entries,
                      std::vector<uint64_t>& offsets) {
  size_t total_entries = 0, total_spans = 0;
  for (const auto& e : part_entries) total_entries += e.size();
  for (const auto& sizes : part_sizes) total_spans += sizes.size();
  entries.reserve(entries.size() + total_entries);
  offsets.reserve(offsets.size() + total_spans);
  for (size_t p = 0; p < part_entries.size(); ++p) {
    entries.insert(entries.end(), part_entries[p].begin(), part_entries[p].end());
    for (uint64_t size : part_sizes[p]) offsets.push_back(offsets.back() + size);
  }
}

}  // namespace fastamfm
