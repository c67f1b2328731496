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

inline TokenId hash_token(std::string_view token) {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ (token.size() * 0xff51afd7ed558ccdULL);
  size_t i = 0;
  for (; i + 8 <= token.size(); i += 8) {
    uint64_t word = 0;
    for (int b = 0; b < 8; ++b)
      word |= static_cast<uint64_t>(static_cast<unsigned char>(token[i + b])) << (8 * b);
    h = mix64(h ^ word);
  }
  uint64_t tail = 0;
  for (int b = 0; i < token.size(); ++i, ++b)
    tail |= static_cast<uint64_t>(static_cast<unsigned char>(token[i])) << (8 * b);
  return mix64(h ^ tail ^ 0x2545f4914f6cdd1dULL);
}

// Key of the n-gram ids[0..n): order-sensitive, and the order n is part of the key
// so that unigram and bigram keys never meet in one table.
inline NgramKey ngram_key(const TokenId* ids, size_t n) {
  uint64_t h = 0x6a09e667f3bcc909ULL * (n + 1);
  for (size_t i = 0; i < n; ++i) h = mix64(h + ids[i] * 0x9e3779b97f4a7c15ULL);
  return h;
}

}  // namespace fastamfm
