#include "common/limits.hpp"

#include <atomic>

#include "common/errors.hpp"

namespace fastamfm {

namespace {
std::atomic<size_t> max_line_bytes{Limits{}.max_line_bytes};
std::atomic<uint64_t> meteor_max_candidates{Limits{}.meteor_max_candidates};
}  // namespace

Limits limits() {
  Limits out;
  out.max_line_bytes = max_line_bytes.load(std::memory_order_relaxed);
  out.meteor_max_candidates = meteor_max_candidates.load(std::memory_order_relaxed);
  return out;
}

void set_limits(const Limits& l) {
  if (l.max_line_bytes == 0 || l.meteor_max_candidates == 0) throw InputError("limits must be positive");
  max_line_bytes.store(l.max_line_bytes, std::memory_order_relaxed);
  meteor_max_candidates.store(l.meteor_max_candidates, std::memory_order_relaxed);
}

}  // namespace fastamfm
