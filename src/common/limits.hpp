// Process-wide size limits that keep hostile or accidental input from exhausting
// memory: every reader refuses longer lines, and METEOR refuses a sentence pair
// with more candidate matches, with an error naming the limit and how to raise it.
// Read with limits(), changed with set_limits() (Python: fastamfm.limits); the
// values are atomics, so a change is seen by calls that start after it.
#pragma once
#include <cstddef>
#include <cstdint>

namespace fastamfm {

struct Limits {
  // Longest line (or JSON text field) any reader accepts, in bytes.
  size_t max_line_bytes = size_t{1} << 20;
  // Most candidate matches METEOR keeps for one hypothesis/reference pair (about
  // 48 bytes each): the jar's matching is quadratic when words repeat.
  uint64_t meteor_max_candidates = uint64_t{1} << 22;
};

Limits limits();
// Throws InputError for a zero limit.
void set_limits(const Limits& limits);

}  // namespace fastamfm
