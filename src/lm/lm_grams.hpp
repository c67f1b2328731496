// Word-id n-grams of one order, as the language-model trainer keeps them: ids of
// n-gram i are ids[i*n .. i*n+n), with one count per n-gram. Word ids are dense
// indices into the model's vocabulary (0 = <unk>, 1 = <s>, 2 = </s>).
#pragma once
#include <cstdint>
#include <vector>

#include "text/hashing.hpp"

namespace fastamfm {

constexpr uint32_t kLmUnk = 0;
constexpr uint32_t kLmBos = 1;
constexpr uint32_t kLmEos = 2;
constexpr int kMaxLmOrder = 6;

struct GramArray {
  int n = 0;
  std::vector<uint32_t> ids;
  std::vector<uint64_t> counts;

  size_t size() const { return counts.size(); }
  const uint32_t* at(size_t i) const { return ids.data() + i * static_cast<size_t>(n); }
  void push_back(const uint32_t* gram, uint64_t count) {
    ids.insert(ids.end(), gram, gram + n);
    counts.push_back(count);
  }
};

inline uint64_t hash_gram(const uint32_t* ids, int n) {
  uint64_t h = 0x243f6a8885a308d3ULL;
  for (int i = 0; i < n; ++i) h = mix64(h + ids[i] + 1);
  return h;
}

// Lexicographic order with the first word most significant: n-grams that share a
// context (all words but the last) are contiguous, which estimation relies on.
inline bool gram_less(const uint32_t* a, const uint32_t* b, int n) {
  for (int i = 0; i < n; ++i)
    if (a[i] != b[i]) return a[i] < b[i];
  return false;
}
inline bool gram_equal(const uint32_t* a, const uint32_t* b, int n) {
  // A plain loop: n is at most 6, where a call to memcmp costs more than the compare.
  for (int i = 0; i < n; ++i)
    if (a[i] != b[i]) return false;
  return true;
}

// Open-addressing map from the n-grams of a GramArray to their positions; also
// used while counting, where n-grams are appended as they are first seen.
class GramIndex {
 public:
  static constexpr size_t kMissing = SIZE_MAX;

  explicit GramIndex(int n = 1) : n_(n) {}
  // Indexes every n-gram of `grams` (which must hold no duplicates).
  explicit GramIndex(const GramArray& grams);

  // Position of `gram` in `grams` or kMissing.
  size_t find(const GramArray& grams, const uint32_t* gram) const;
  // Adds `count` to `gram`, appending it to `grams` when new.
  void add(GramArray& grams, const uint32_t* gram, uint64_t count);
  size_t memory_bytes() const { return slots_.capacity() * sizeof(uint32_t); }
  void clear() { slots_.assign(16, 0); }

 private:
  void grow(const GramArray& grams);
  // Every gram of `grams` placed in a table of `slots` (a power of two) slots.
  void rehash(const GramArray& grams, size_t slots);

  int n_;
  std::vector<uint32_t> slots_ = std::vector<uint32_t>(16, 0);  // position + 1; 0 = empty
};

}  // namespace fastamfm
