#include "overlap/distinct.hpp"

#include <algorithm>
#include <string>

#include "common/errors.hpp"
#include "overlap/ngram_counts.hpp"

namespace fastamfm {

DistinctCounts distinct_ngrams(const TokenizedBatch& texts, const std::vector<int>& orders, int workers,
                               const InterruptCheck& interrupted) {
  if (orders.empty()) throw InputError("distinct: orders is empty");
  for (int order : orders)
    if (order < 1 || order > kMaxNgramOrder)
      throw InputError("distinct: n-gram order must be in 1.." + std::to_string(kMaxNgramOrder) + ", got " +
                       std::to_string(order));
  const size_t n = texts.size(), k_orders = orders.size();
  DistinctCounts out;
  out.orders = orders;
  out.unique.resize(n * k_orders);
  out.total.resize(n * k_orders);
  out.corpus_unique.assign(k_orders, 0);
  out.corpus_total.assign(k_orders, 0);

  // Each part keeps its distinct keys per order; the parts are merged afterwards.
  constexpr size_t kPartSize = 4096;
  const size_t parts = part_count(n, kPartSize);
  std::vector<std::vector<std::vector<NgramKey>>> part_keys(parts, std::vector<std::vector<NgramKey>>(k_orders));
  parallel_parts(
      parts, workers,
      [&](size_t p) {
        std::vector<NgramKey> scratch;
        std::vector<NgramCount> counts;
        for (size_t i = p * kPartSize; i < std::min(n, (p + 1) * kPartSize); ++i) {
          for (size_t k = 0; k < k_orders; ++k) {
            counts.clear();
            count_ngrams(texts.ids(i), texts.num_tokens(i), orders[k], scratch, counts);
            const size_t len = texts.num_tokens(i), order = static_cast<size_t>(orders[k]);
            out.unique[i * k_orders + k] = counts.size();
            out.total[i * k_orders + k] = len >= order ? len - order + 1 : 0;
            for (const NgramCount& c : counts) part_keys[p][k].push_back(c.key);
          }
        }
        for (auto& keys : part_keys[p]) {
          std::sort(keys.begin(), keys.end());
          keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        }
      },
      interrupted);
  out.corpus_keys.resize(k_orders);
  for (size_t k = 0; k < k_orders; ++k) {
    std::vector<NgramKey>& all = out.corpus_keys[k];
    for (size_t p = 0; p < parts; ++p) all.insert(all.end(), part_keys[p][k].begin(), part_keys[p][k].end());
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    out.corpus_unique[k] = static_cast<uint64_t>(all.size());
    for (size_t i = 0; i < n; ++i) out.corpus_total[k] += out.total[i * k_orders + k];
  }
  return out;
}

}  // namespace fastamfm
