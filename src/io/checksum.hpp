// The 64-bit checksum of fastamfm's binary files (language model, word-vector
// cache, METEOR resource cache). Not cryptographic: it detects damage (a flipped
// bit, a truncated or overwritten region), which is what a loader must refuse.
// Four independent multiply-rotate lanes over 32-byte blocks keep it near memory
// speed, so a loader can afford to check every byte of a large file.
#pragma once
#include <cstddef>
#include <cstdint>

namespace fastamfm {

// Checksum of `bytes` bytes at `data`.
uint64_t checksum64(const void* data, size_t bytes);

// The same checksum over data that arrives in pieces (a file being written):
// update() any number of times, then value() equals checksum64 of the concatenation.
class Checksum64Stream {
 public:
  void update(const void* data, size_t bytes);
  uint64_t value() const;

 private:
  uint64_t lanes_[4] = {0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL, 0xa4093822299f31d0ULL, 0x082efa98ec4e6c89ULL};
  unsigned char pending_[32] = {};
  size_t pending_bytes_ = 0;
  uint64_t total_ = 0;
};

// The LSI model file's checksum (its format 1 predates checksum64): 8-byte
// little-endian words folded one after another through mix64.
class LsiChecksum {
 public:
  void update(const void* data, size_t bytes);
  uint64_t value() const;

 private:
  void fold(uint64_t word);
  void take(unsigned char byte);

  uint64_t state_ = 0x6a09e667f3bcc908ULL;
  uint64_t total_ = 0;
  unsigned char buffer_[8] = {};
  size_t pending_ = 0;
};

}  // namespace fastamfm
