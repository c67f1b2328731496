#include "io/checksum.hpp"

#include <cstring>

#include "text/hashing.hpp"

namespace fastamfm {

namespace {
// Folds whole 32-byte blocks into the lanes. The lanes are copied to locals first:
// the data pointer may alias anything, which would otherwise force a reload per word.
void fold_blocks(uint64_t (&lanes)[4], const unsigned char* p, size_t blocks) {
  uint64_t l0 = lanes[0], l1 = lanes[1], l2 = lanes[2], l3 = lanes[3];
  auto step = [](uint64_t lane, const unsigned char* at) {
    uint64_t w;
    std::memcpy(&w, at, 8);
    lane = (lane ^ w) * 0x9e3779b97f4a7c15ULL;
    return (lane << 31) | (lane >> 33);
  };
  for (size_t b = 0; b < blocks; ++b, p += 32) {
    l0 = step(l0, p);
    l1 = step(l1, p + 8);
    l2 = step(l2, p + 16);
    l3 = step(l3, p + 24);
  }
  lanes[0] = l0;
  lanes[1] = l1;
  lanes[2] = l2;
  lanes[3] = l3;
}
}  // namespace

void Checksum64Stream::update(const void* data, size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  total_ += bytes;
  if (pending_bytes_ > 0) {
    const size_t take = bytes < 32 - pending_bytes_ ? bytes : 32 - pending_bytes_;
    std::memcpy(pending_ + pending_bytes_, p, take);
    pending_bytes_ += take;
    p += take;
    bytes -= take;
    if (pending_bytes_ < 32) return;
    fold_blocks(lanes_, pending_, 1);
    pending_bytes_ = 0;
  }
  fold_blocks(lanes_, p, bytes / 32);
  p += bytes / 32 * 32;
  bytes %= 32;
  std::memcpy(pending_, p, bytes);
  pending_bytes_ = bytes;
}

uint64_t Checksum64Stream::value() const {
  // The words left after the last whole block go through lane 0 one by one, then a
  // partial word zero-padded (files whose size is a multiple of 8 never have one).
  uint64_t lane0 = lanes_[0];
  size_t at = 0;
  for (; at + 8 <= pending_bytes_; at += 8) {
    uint64_t w;
    std::memcpy(&w, pending_ + at, 8);
    lane0 = mix64(lane0 ^ w);
  }
  if (at < pending_bytes_) {
    uint64_t w = 0;
    std::memcpy(&w, pending_ + at, pending_bytes_ - at);
    lane0 = mix64(lane0 ^ w ^ 0x5bd1e9955bd1e995ULL);
  }
  return mix64(lane0 ^ mix64(lanes_[1] ^ mix64(lanes_[2] ^ mix64(lanes_[3] ^ total_))));
}

uint64_t checksum64(const void* data, size_t bytes) {
  Checksum64Stream sum;
  sum.update(data, bytes);
  return sum.value();
}

void LsiChecksum::update(const void* data, size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  while (bytes > 0 && pending_ > 0) take(*p++), --bytes;
  for (; bytes >= 8; p += 8, bytes -= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    fold(word);
  }
  while (bytes > 0) take(*p++), --bytes;
}

uint64_t LsiChecksum::value() const {
  uint64_t tail = 0;
  std::memcpy(&tail, buffer_, pending_);
  return mix64(state_ ^ mix64(tail + pending_ + total_ * 0x9e3779b97f4a7c15ULL));
}

void LsiChecksum::fold(uint64_t word) {
  state_ = mix64(state_ ^ word) + 0x2545f4914f6cdd1dULL;
  total_ += 8;
}

void LsiChecksum::take(unsigned char byte) {
  buffer_[pending_++] = byte;
  if (pending_ == 8) {
    uint64_t word;
    std::memcpy(&word, buffer_, 8);
    pending_ = 0;
    fold(word);
  }
}

}  // namespace fastamfm
