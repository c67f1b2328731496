// Token and n-gram keys. Every metric identifies tokens by a 64-bit hash of their
// UTF-8 bytes instead of a shared mutable vocabulary: hashing needs no lock, so
// hypotheses and references are encoded on all threads, and two batches encoded
// separately (a system and the references reused for it) agree on every key.
// With 64-bit keys the chance of any collision among 10^6 distinct types is ~3e-8.
#pragma once
#include <cstdint>
#include <cstring>
#include <string_view>

namespace fastamfm {

using TokenId = uint64_t;
using NgramKey = uint64_t;

// The splitmix64 finaliser: a bijective 64-bit mixer with full avalanche.
inline uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// The 0..7 bytes p[0..n) as a little-endian integer (byte k at bits 8k..8k+7), read
// with at most three loads: overlapping reads put the same byte at the same place.
inline uint64_t load_tail(const char* p, size_t n) {
  auto byte = [p](size_t k) { return static_cast<uint64_t>(static_cast<unsigned char>(p[k])); };
  // Assembled from bytes so any byte order gives the same value; compilers emit one load.
  auto load4 = [&](size_t k) { return byte(k) | byte(k + 1) << 8 | byte(k + 2) << 16 | byte(k + 3) << 24; };
  if (n >= 4) return load4(0) | (load4(n - 4) << (8 * (n - 4)));
  if (n == 0) return 0;
  return byte(0) | (byte(n / 2) << (8 * (n / 2))) | (byte(n - 1) << (8 * (n - 1)));
}

inline TokenId hash_token(std::string_view token) {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ (token.size() * 0xff51afd7ed558ccdULL);
  size_t i = 0;
  for (; i + 8 <= token.size(); i += 8) {
    uint64_t word = 0;
    for (int b = 0; b < 8; ++b)
      word |= static_cast<uint64_t>(static_cast<unsigned char>(token[i + b])) << (8 * b);
    h = mix64(h ^ word);
  }
  return mix64(h ^ load_tail(token.data() + i, token.size() - i) ^ 0x2545f4914f6cdd1dULL);
}

// Key of the n-gram ids[0..n): order-sensitive, and the order n is part of the key
// so that unigram and bigram keys never meet in one table.
inline NgramKey ngram_key(const TokenId* ids, size_t n) {
  uint64_t h = 0x6a09e667f3bcc909ULL * (n + 1);
  for (size_t i = 0; i < n; ++i) h = mix64(h + ids[i] * 0x9e3779b97f4a7c15ULL);
  return h;
}

}  // namespace fastamfm
