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
                       const InterruptCheck& interrupted)
    : max_order_(max_order) {
  if (max_order < 1 || max_order > kMaxNgramOrder)
    throw InputError("n-gram order must be in 1.." + std::to_string(kMaxNgramOrder) + ", got " + std::to_string(max_order));
  constexpr size_t kPartSize = 4096;
  const size_t n = batch.size();
  const size_t parts = part_count(n, kPartSize);
  std::vector<std::vector<NgramCount>> part_entries(parts);
  std::vector<std::vector<uint64_t>> part_sizes(parts);
  parallel_parts(
      parts, workers,
      [&](size_t p) {
        std::vector<NgramKey> keys;
        const size_t begin = p * kPartSize, end = std::min(n, begin + kPartSize);
        auto& entries = part_entries[p];
        auto& sizes = part_sizes[p];
        for (size_t i = begin; i < end; ++i) {
          for (int order = 1; order <= max_order; ++order) {
            const size_t before = entries.size();
            count_ngrams(batch.ids(i), batch.num_tokens(i), order, keys, entries);
            sizes.push_back(entries.size() - before);
          }
        }
      },
      interrupted);
  join_ngram_parts(part_entries, part_sizes, entries_, offsets_);
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
