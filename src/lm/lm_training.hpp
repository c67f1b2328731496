// From counts to a queryable model: the smoothing choice, its settings, and the
// metadata that records how the model was made (kept inside the binary file).
#pragma once
#include <array>
#include <string>
#include <vector>

#include "lm/lm_counter.hpp"
#include "lm/lm_model.hpp"

namespace fastamfm {

enum class LmSmoothing { KneserNey, Katz };
LmSmoothing parse_lm_smoothing(const std::string& name);

struct LmTrainOptions {
  LmSmoothing smoothing = LmSmoothing::KneserNey;
  std::array<double, 3> discount_fallback{0.5, 1.0, 1.5};  // Kneser-Ney, as lmplz --discount_fallback
  std::vector<uint64_t> gtmin, gtmax;                      // Katz; empty = SRILM's defaults
  double prune = 0.0;                                      // relative-entropy threshold; 0 = none
  std::string tokenizer;                                   // Tokenizer::describe(), recorded
  int workers = -1;
};

// Estimates the model; `discounts` receives one line per order describing the
// discounts used (also written to the metadata). The counts are released as soon
// as the estimates exist, before the model's tables are built.
NgramModel train_lm(NgramCounts&& counts, const LmTrainOptions& options, std::vector<std::string>& discounts);

}  // namespace fastamfm
