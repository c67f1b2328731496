// fastamfm's binary language-model file, which is also the in-memory layout of
// NgramModel: a file is loaded by mapping it into memory, with nothing to parse.
//
//   LmHeader | word offsets uint64[V+1] | word bytes | metadata | per order n:
//   ids uint32[count*n] | log10 prob float[count] | log10 backoff float[count] |
//   hash table LmSlot[table_slots]
// Every section starts at a multiple of 8 bytes; the file is little-endian.
// `checksum` (io/checksum.hpp) covers every byte of the file, the header included,
// with the checksum field itself read as zero. Loading verifies it, then every size,
// offset, word id, probability and table the queries rely on, so a corrupt or
// crafted file is a FormatError, never a crash.
// Version history: 1 = first release, whose checksum left the header out (still
// read, with every check but the header's checksum); 2 = the header checksummed.
#pragma once
#include <cstddef>
#include <cstdint>

#include "text/hashing.hpp"
#include "lm/lm_grams.hpp"

namespace fastamfm {

constexpr char kLmMagic[8] = {'F', 'A', 'M', 'F', 'M', 'L', 'M', '\n'};
constexpr uint32_t kLmFormatVersion = 2;
constexpr uint32_t kLmOldestReadableVersion = 1;
constexpr uint32_t kLmEndianMarker = 0x01020304u;

struct LmOrderSection {
  uint64_t count;
  uint64_t ids_offset;
  uint64_t prob_offset;
  uint64_t backoff_offset;
  uint64_t table_offset;
  uint64_t table_slots;
};

struct LmHeader {
  char magic[8];
  uint32_t version;
  uint32_t endian_marker;
  uint64_t file_bytes;
  uint64_t checksum;
  uint32_t order;
  uint32_t unk_word;  // index of <unk> in the vocabulary
  uint64_t vocab_size;
  uint64_t word_offsets_offset;
  uint64_t word_bytes_offset;
  uint64_t word_bytes;
  uint64_t metadata_offset;
  uint64_t metadata_bytes;
  LmOrderSection orders[kMaxLmOrder];
};

// One slot of an order's open-addressing table: the n-gram's key (0 = empty),
// its log10 probability and log10 backoff.
struct LmSlot {
  uint64_t key;
  float prob;
  float backoff;
};

// N-gram keys are built from the 64-bit token ids (hashing.hpp) from the last word
// backwards: key(w) = lm_key_start(w), key(u v w) = lm_key_extend(key(v w), u).
// The key of a context h1..hk is therefore the key of that n-gram, which is how
// the backoff weights are found. Changing these functions changes the format.
inline uint64_t lm_key_start(TokenId word) {
  const uint64_t k = mix64(word ^ 0x7f4a7c159e3779b9ULL);
  return k ? k : 1;
}
inline uint64_t lm_key_extend(uint64_t key, TokenId earlier_word) {
  const uint64_t k = mix64(key * 0x9e3779b97f4a7c15ULL + earlier_word);
  return k ? k : 1;
}
__extension__ typedef unsigned __int128 LmUint128;
// Maps a key onto [0, slots) by multiply-shift, which needs no power-of-two size.
inline uint64_t lm_slot_of(uint64_t key, uint64_t slots) {
  return static_cast<uint64_t>((static_cast<LmUint128>(key) * slots) >> 64);
}

}  // namespace fastamfm
