#include "document_frequency.hpp"

#include <algorithm>
#include <string>

#include "errors.hpp"

namespace fastamfm {

DocumentFrequency::DocumentFrequency(int max_order) : max_order_(max_order) {
  if (max_order < 1 || max_order > 16)
    throw InputError("document frequency: n-gram order must be in 1..16, got " + std::to_string(max_order));
  slots_.assign(1024, NgramCount{0, 0});
}

uint32_t DocumentFrequency::count(NgramKey key) const {
  if (key == 0) return zero_key_count_;
  const size_t mask = slots_.size() - 1;
  for (size_t slot = key & mask;; slot = (slot + 1) & mask) {
    if (slots_[slot].key == key) return slots_[slot].count;
    if (slots_[slot].key == 0) return 0;
  }
}

void DocumentFrequency::increment(NgramKey key) {
  if (key == 0) {
    ++zero_key_count_;
    return;
  }
  if ((used_ + 1) * 2 > slots_.size()) grow();  // keep the load at most 1/2
  const size_t mask = slots_.size() - 1;
  for (size_t slot = key & mask;; slot = (slot + 1) & mask) {
    if (slots_[slot].key == key) {
      ++slots_[slot].count;
      return;
    }
    if (slots_[slot].key == 0) {
      slots_[slot] = NgramCount{key, 1};
      ++used_;
      return;
    }
  }
}

void DocumentFrequency::grow() {
  const std::vector<NgramCount> old = std::move(slots_);
  slots_.assign(old.size() * 2, NgramCount{0, 0});
  const size_t mask = slots_.size() - 1;
  for (const NgramCount& e : old) {
    if (e.key == 0) continue;
    size_t slot = e.key & mask;
    while (slots_[slot].key != 0) slot = (slot + 1) & mask;
    slots_[slot] = e;
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
