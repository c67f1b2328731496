// A backoff n-gram language model as plain arrays: what the estimators produce,
// what the ARPA reader returns, and what NgramModel (lm_model.hpp) is built from.
// Probabilities and backoff weights are log10, stored as float like KenLM does.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace fastamfm {

struct LmOrderTable {
  std::vector<uint32_t> ids;  // n word ids per n-gram, indices into LmContent::words
  std::vector<float> log10_prob;
  std::vector<float> log10_backoff;  // 0 for the highest order and for non-contexts
  size_t size() const { return log10_prob.size(); }
};

struct LmContent {
  std::vector<std::string> words;    // orders[0] lists each word exactly once
  std::vector<LmOrderTable> orders;  // orders[n-1] holds the n-grams
  std::string metadata;              // "key=value" lines describing how it was made
};

// log10(0) as ARPA files write it (SRILM's convention).
constexpr float kLog10Zero = -99.0f;

// log10 of a probability (rounding above 1 is clipped, as lmplz does).
inline float to_log10(double p) {
  if (!(p > 0.0)) return kLog10Zero;
  const double l = std::log10(p);
  return static_cast<float>(l > 0.0 ? 0.0 : l);
}

// log10 of a backoff weight, which may exceed 1.
inline float backoff_to_log10(double weight) {
  return weight > 0.0 ? static_cast<float>(std::log10(weight)) : kLog10Zero;
}

}  // namespace fastamfm
