#include "lm_fluency.hpp"

#include <algorithm>
#include <cmath>

#include "errors.hpp"

namespace fastamfm {

FluencyNormalization parse_fluency_normalization(const std::string& name) {
  if (name == "per-word") return FluencyNormalization::PerWord;
  if (name == "inverse-perplexity") return FluencyNormalization::InversePerplexity;
  throw InputError("normalization must be 'per-word' or 'inverse-perplexity', got '" + name + "'");
}

FluencyCombine parse_fluency_combine(const std::string& name) {
  if (name == "mean") return FluencyCombine::Mean;
  if (name == "max") return FluencyCombine::Max;
  if (name == "maxmin") return FluencyCombine::MaxMin;
  throw InputError("combine must be 'mean', 'max' or 'maxmin', got '" + name + "'");
}

double normalized_sentence_probability(double log10_prob, size_t n_words, FluencyNormalization normalization) {
  const double divisor = normalization == FluencyNormalization::PerWord ? static_cast<double>(std::max<size_t>(n_words, 1))
                                                                        : static_cast<double>(n_words + 1);
  return std::exp(log10_prob * std::log(10.0) / divisor);
}

namespace {
double ratio(double a, double b) {
  const double hi = std::max(a, b);
  return hi > 0.0 ? std::min(a, b) / hi : 1.0;
}
}  // namespace

FluencyScores fluency_scores(const NgramModel& model, const TokenizedBatch& hyps, const TokenizedBatch& refs,
                             const std::vector<uint64_t>& segment_offsets, FluencyNormalization normalization,
                             FluencyCombine combine, int workers, const InterruptCheck& interrupted) {
  if (segment_offsets.size() != hyps.size() + 1 || segment_offsets.back() != refs.size())
    throw InputError("fluency: " + std::to_string(hyps.size()) + " hypotheses but references for " +
                     std::to_string(segment_offsets.size() - 1) + " segments");
  for (size_t i = 0; i < hyps.size(); ++i)
    if (segment_offsets[i + 1] <= segment_offsets[i])
      throw InputError("fluency: hypothesis " + std::to_string(i) + " has no reference");
  FluencyScores out;
  auto normalize = [&](const TokenizedBatch& batch, std::vector<double>& probs) {
    probs = score_batch(model, batch, true, true, workers, interrupted);
    for (size_t i = 0; i < probs.size(); ++i)
      probs[i] = normalized_sentence_probability(probs[i], batch.num_tokens(i), normalization);
  };
  normalize(hyps, out.hyp_prob);
  normalize(refs, out.ref_prob);
  out.fm.resize(hyps.size());
  for (size_t i = 0; i < hyps.size(); ++i) {
    double sum = 0.0, lo = 1.0, hi = 0.0;
    for (uint64_t r = segment_offsets[i]; r < segment_offsets[i + 1]; ++r) {
      const double fm = ratio(out.hyp_prob[i], out.ref_prob[r]);
      sum += fm;
      lo = std::min(lo, fm);
      hi = std::max(hi, fm);
    }
    const double count = static_cast<double>(segment_offsets[i + 1] - segment_offsets[i]);
    out.fm[i] = combine == FluencyCombine::Mean ? sum / count : combine == FluencyCombine::Max ? hi : hi - lo;
  }
  return out;
}

}  // namespace fastamfm
