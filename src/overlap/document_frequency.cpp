#include "overlap/document_frequency.hpp"

#include <algorithm>
#include <string>

#include "common/errors.hpp"
#include "overlap/ngram_counts.hpp"

namespace fastamfm {

DocumentFrequency::DocumentFrequency(int max_order) : max_order_(max_order) {
  if (max_order < 1 || max_order > kMaxNgramOrder)
    throw InputError("document frequency: n-gram order must be in 1.." + std::to_string(kMaxNgramOrder) + ", got " +
                     std::to_string(max_order));
}

size_t DocumentFrequency::num_ngrams() const {
  size_t total = 0;
  for (const Shard& shard : shards_) total += shard.size();
  return total;
}

uint32_t DocumentFrequency::Shard::count(NgramKey key) const {
  if (key == 0) return zero_key_count_;
  const size_t mask = slots_.size() - 1;
  for (size_t slot = key & mask;; slot = (slot + 1) & mask) {
    if (slots_[slot].key == key) return slots_[slot].count;
    if (slots_[slot].key == 0) return 0;
  }
}

void DocumentFrequency::Shard::increment(NgramKey key) { add_count(key, 1); }

void DocumentFrequency::Shard::add_count(NgramKey key, uint32_t count) {
  if (key == 0) {
    zero_key_count_ += count;
    return;
  }
  if ((used_ + 1) * 2 > slots_.size()) grow();  // keep the load at most 1/2
  const size_t mask = slots_.size() - 1;
  for (size_t slot = key & mask;; slot = (slot + 1) & mask) {
    if (slots_[slot].key == key) {
      slots_[slot].count += count;
      return;
    }
    if (slots_[slot].key == 0) {
      slots_[slot] = NgramCount{key, count};
      ++used_;
      return;
    }
  }
}

void DocumentFrequency::Shard::append_entries(std::vector<NgramCount>& out) const {
  if (zero_key_count_ > 0) out.push_back(NgramCount{0, zero_key_count_});
  for (const NgramCount& e : slots_)
    if (e.key != 0) out.push_back(e);
}

std::vector<NgramCount> DocumentFrequency::entries() const {
  std::vector<NgramCount> out;
  out.reserve(num_ngrams());
  for (const Shard& shard : shards_) shard.append_entries(out);
  std::sort(out.begin(), out.end(), [](const NgramCount& a, const NgramCount& b) { return a.key < b.key; });
  return out;
}

void DocumentFrequency::add_entries(const std::vector<NgramCount>& entries, uint64_t segments) {
  // Checked before any is added, so a refused table leaves this one as it was: entries()
  // gives each key once, ascending, counted in 1..segments of the segments it covers
  // (a larger count would make CIDEr's idf negative).
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i > 0 && entries[i].key <= entries[i - 1].key)
      throw InputError("document frequency: entry " + std::to_string(i) + ": keys must be ascending and distinct");
    if (entries[i].count == 0 || entries[i].count > segments)
      throw InputError("document frequency: entry " + std::to_string(i) + ": count " +
                       std::to_string(entries[i].count) + " outside 1.." + std::to_string(segments) +
                       " (the segments the table was counted over)");
  }
  for (const NgramCount& e : entries) shards_[shard_of(e.key)].add_count(e.key, e.count);
  segments_ += segments;
}

void DocumentFrequency::Shard::grow() {
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
  // Pass 1, by segment: each part lists the distinct n-grams of each of its segments,
  // already split into shards.
  constexpr size_t kPartSize = 512;
  const size_t n = refs.num_segments();
  const size_t parts = part_count(n, kPartSize);
  std::vector<std::vector<std::vector<NgramKey>>> part_keys(parts,
                                                             std::vector<std::vector<NgramKey>>(shards_.size()));
  parallel_parts(
      parts, workers,
      [&](size_t p) {
        // Distinct keys of one segment, found with a small table whose slots belong to
        // the segment that stamped them (so it never needs clearing).
        std::vector<NgramKey> seen_key;
        std::vector<uint32_t> seen_stamp;
        uint32_t stamp = 0;
        for (size_t s = p * kPartSize; s < std::min(n, (p + 1) * kPartSize); ++s) {
          size_t total = 0;
          for (size_t r = refs.refs_begin(s); r < refs.refs_end(s); ++r)
            for (int order = 1; order <= max_order_; ++order) total += refs.ngrams().at(r, order).size;
          size_t capacity = 64;
          while (capacity < 2 * total) capacity *= 2;
          if (capacity > seen_key.size()) {
            seen_key.assign(capacity, 0);
            seen_stamp.assign(capacity, 0);
            stamp = 0;
          }
          ++stamp;
          const size_t mask = seen_key.size() - 1;
          for (size_t r = refs.refs_begin(s); r < refs.refs_end(s); ++r) {
            for (int order = 1; order <= max_order_; ++order) {
              for (const NgramCount& e : refs.ngrams().at(r, order)) {
                size_t slot = mix64(e.key) & mask;
                while (seen_stamp[slot] == stamp && seen_key[slot] != e.key) slot = (slot + 1) & mask;
                if (seen_stamp[slot] == stamp) continue;  // already counted for this segment
                seen_stamp[slot] = stamp;
                seen_key[slot] = e.key;
                part_keys[p][shard_of(e.key)].push_back(e.key);
              }
            }
          }
        }
      },
      interrupted);
  // Pass 2, by shard: each shard takes its keys from every part; shards are disjoint,
  // so they fill concurrently and the counts do not depend on the thread count. Not
  // interruptible: it is short, and stopping it halfway would leave partial counts.
  parallel_parts(shards_.size(), workers, [&](size_t shard) {
    for (size_t p = 0; p < parts; ++p)
      for (NgramKey key : part_keys[p][shard]) shards_[shard].increment(key);
  });
  segments_ += n;
}

}  // namespace fastamfm
