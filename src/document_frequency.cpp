#include "document_frequency.hpp"

#include <algorithm>
#include <string>

#include "errors.hpp"

namespace fastamfm {

DocumentFrequency::DocumentFrequency(int max_order) : max_order_(max_order) {
  if (max_order < 1 || max_order > 16)
    throw InputError("document frequency: n-gram order must be in 1..16, got " + std::to_string(max_order));
  keys_.assign(1024, 0);
  counts_.assign(1024, 0);
}

uint32_t DocumentFrequency::count(NgramKey key) const {
  if (key == 0) return zero_key_count_;
  const size_t mask = keys_.size() - 1;
  for (size_t slot = key & mask;; slot = (slot + 1) & mask) {
    if (keys_[slot] == key) return counts_[slot];
    if (keys_[slot] == 0) return 0;
  }
}

void DocumentFrequency::increment(NgramKey key) {
  if (key == 0) {
    ++zero_key_count_;
    return;
  }
  if ((used_ + 1) * 2 > keys_.size()) grow();  // keep the load at most 1/2
  const size_t mask = keys_.size() - 1;
  for (size_t slot = key & mask;; slot = (slot + 1) & mask) {
    if (keys_[slot] == key) {
      ++counts_[slot];
      return;
    }
    if (keys_[slot] == 0) {
      keys_[slot] = key;
      counts_[slot] = 1;
      ++used_;
      return;
    }
  }
}

void DocumentFrequency::grow() {
  const std::vector<NgramKey> old_keys = std::move(keys_);
  const std::vector<uint32_t> old_counts = std::move(counts_);
  keys_.assign(old_keys.size() * 2, 0);
  counts_.assign(old_keys.size() * 2, 0);
  const size_t mask = keys_.size() - 1;
  for (size_t i = 0; i < old_keys.size(); ++i) {
    if (old_keys[i] == 0) continue;
    size_t slot = old_keys[i] & mask;
    while (keys_[slot] != 0) slot = (slot + 1) & mask;
    keys_[slot] = old_keys[i];
    counts_[slot] = old_counts[i];
  }
}

void DocumentFrequency::add(const ReferenceSet& refs, int workers, const InterruptCheck& interrupted) {
  if (refs.max_order() < max_order_)
    throw InputError("document frequency: needs n-grams up to order " + std::to_string(max_order_) +
                     " but the references hold up to " + std::to_string(refs.max_order()));
  // Each part lists the distinct n-grams of each of its segments; the table is then
  // filled in segment order on this thread, so the result does not depend on workers.
  constexpr size_t kPartSize = 512;
  const size_t n = refs.num_segments();
  const size_t parts = part_count(n, kPartSize);
  std::vector<std::vector<NgramKey>> part_keys(parts);
  parallel_parts(
      parts, workers,
      [&](size_t p) {
        std::vector<NgramKey> segment_keys;
        auto& out = part_keys[p];
        for (size_t s = p * kPartSize; s < std::min(n, (p + 1) * kPartSize); ++s) {
          segment_keys.clear();
          for (size_t r = refs.refs_begin(s); r < refs.refs_end(s); ++r)
            for (int order = 1; order <= max_order_; ++order)
              for (const NgramCount& e : refs.ngrams().at(r, order)) segment_keys.push_back(e.key);
          std::sort(segment_keys.begin(), segment_keys.end());
          out.insert(out.end(), segment_keys.begin(), std::unique(segment_keys.begin(), segment_keys.end()));
        }
      },
      interrupted);
  for (const auto& keys : part_keys)
    for (NgramKey key : keys) increment(key);
  segments_ += n;
}

}  // namespace fastamfm
