#include "lm/lm_grams.hpp"

#include <stdexcept>

namespace fastamfm {

GramIndex::GramIndex(const GramArray& grams) : n_(grams.n) {
  size_t slots = 16;
  while (slots < grams.size() * 2) slots *= 2;
  rehash(grams, slots);
}

void GramIndex::rehash(const GramArray& grams, size_t slots) {
  slots_.assign(slots, 0);
  const size_t mask = slots - 1;
  for (size_t i = 0; i < grams.size(); ++i) {
    size_t s = hash_gram(grams.at(i), n_) & mask;
    while (slots_[s] != 0) s = (s + 1) & mask;
    slots_[s] = static_cast<uint32_t>(i + 1);
  }
}

size_t GramIndex::find(const GramArray& grams, const uint32_t* gram) const {
  const size_t mask = slots_.size() - 1;
  for (size_t s = hash_gram(gram, n_) & mask;; s = (s + 1) & mask) {
    const uint32_t v = slots_[s];
    if (v == 0) return kMissing;
    if (gram_equal(grams.at(v - 1), gram, n_)) return v - 1;
  }
}

void GramIndex::grow(const GramArray& grams) { rehash(grams, slots_.size() * 2); }

void GramIndex::add(GramArray& grams, const uint32_t* gram, uint64_t count) {
  const size_t mask = slots_.size() - 1;
  size_t s = hash_gram(gram, n_) & mask;
  for (;; s = (s + 1) & mask) {
    const uint32_t v = slots_[s];
    if (v == 0) break;
    if (gram_equal(grams.at(v - 1), gram, n_)) {
      grams.counts[v - 1] += count;
      return;
    }
  }
  if (grams.size() >= UINT32_MAX - 1) throw std::runtime_error("n-gram counter: more than 2^32 n-grams of one order in memory");
  grams.push_back(gram, count);
  slots_[s] = static_cast<uint32_t>(grams.size());
  if (grams.size() * 2 > slots_.size()) grow(grams);
}

}  // namespace fastamfm
