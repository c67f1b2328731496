#include "lm/lm_fluency.hpp"

#include <algorithm>
#include <cmath>

#include "common/errors.hpp"

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

FluencyOov parse_fluency_oov(const std::string& name) {
  if (name == "skip") return FluencyOov::Skip;
  if (name == "score") return FluencyOov::Score;
  throw InputError("oov must be 'skip' or 'score', got '" + name + "'");
}

double normalized_sentence_probability(double log10_prob, size_t n_words, FluencyNormalization normalization) {
  const double divisor = normalization == FluencyNormalization::PerWord ? static_cast<double>(std::max<size_t>(n_words, 1))
                                                                        : static_cast<double>(n_words + 1);
  return std::exp(log10_prob * std::log(10.0) / divisor);
}

// A sentence with no scored word (empty, or only unknown words that oov=skip leaves
// out) has probability 0: p(</s> | <s>) alone would rate "" as very fluent.
std::vector<double> sentence_probabilities(const NgramModel& model, const TokenizedBatch& batch,
                                           FluencyNormalization normalization, FluencyOov oov, int workers,
                                           const InterruptCheck& interrupted) {
  std::vector<double> probs(batch.size());
  parallel_for(
      batch.size(), workers,
      [&](size_t begin, size_t end) {
        std::vector<TokenScore> tokens;
        for (size_t i = begin; i < end; ++i) {
          const size_t n = batch.num_tokens(i);
          if (oov == FluencyOov::Score) {
            probs[i] = n == 0 ? 0.0
                              : normalized_sentence_probability(model.score(batch.ids(i), n, true, true), n,
                                                                normalization);
            continue;
          }
          tokens.resize(n + 1);
          model.score(batch.ids(i), n, true, true, tokens.data());
          double log10_prob = 0.0;
          size_t known = 0;
          for (size_t t = 0; t <= n; ++t) {
            if (tokens[t].oov) continue;
            log10_prob += tokens[t].log10_prob;
            if (t < n) ++known;  // the last prediction is </s>, not a word
          }
          probs[i] = known == 0 ? 0.0 : normalized_sentence_probability(log10_prob, known, normalization);
        }
      },
      interrupted, 1024);
  return probs;
}

namespace {

// min/max of two sentence probabilities; 0 when neither sentence has one.
double ratio(double a, double b) {
  const double hi = std::max(a, b);
  return hi > 0.0 ? std::min(a, b) / hi : 0.0;
}
}  // namespace

std::vector<double> fluency_from_probabilities(const std::vector<double>& hyp_prob, const std::vector<double>& ref_prob,
                                               const std::vector<uint64_t>& segment_offsets, FluencyCombine combine) {
  if (segment_offsets.size() != hyp_prob.size() + 1 || segment_offsets.front() != 0 ||
      segment_offsets.back() != ref_prob.size())
    throw InputError("fluency: " + std::to_string(hyp_prob.size()) + " hypotheses but references for " +
                     std::to_string(segment_offsets.size() - 1) + " segments");
  std::vector<double> fm(hyp_prob.size());
  for (size_t i = 0; i < hyp_prob.size(); ++i) {
    if (segment_offsets[i + 1] <= segment_offsets[i])
      throw InputError("fluency: hypothesis " + std::to_string(i) + " has no reference");
    double sum = 0.0, lo = 1.0, hi = 0.0;
    for (uint64_t r = segment_offsets[i]; r < segment_offsets[i + 1]; ++r) {
      const double ratio_r = ratio(hyp_prob[i], ref_prob[r]);
      sum += ratio_r;
      lo = std::min(lo, ratio_r);
      hi = std::max(hi, ratio_r);
    }
    const double count = static_cast<double>(segment_offsets[i + 1] - segment_offsets[i]);
    fm[i] = combine == FluencyCombine::Mean ? sum / count : combine == FluencyCombine::Max ? hi : hi - lo;
  }
  return fm;
}

FluencyScores fluency_scores(const NgramModel& model, const TokenizedBatch& hyps, const TokenizedBatch& refs,
                             const std::vector<uint64_t>& segment_offsets, FluencyNormalization normalization,
                             FluencyCombine combine, FluencyOov oov, int workers,
                             const InterruptCheck& interrupted) {
  if (segment_offsets.size() != hyps.size() + 1 || segment_offsets.back() != refs.size())
    throw InputError("fluency: " + std::to_string(hyps.size()) + " hypotheses but references for " +
                     std::to_string(segment_offsets.size() - 1) + " segments");
  for (size_t i = 0; i < hyps.size(); ++i)
    if (segment_offsets[i + 1] <= segment_offsets[i])
      throw InputError("fluency: hypothesis " + std::to_string(i) + " has no reference");
  FluencyScores out;
  out.hyp_prob = sentence_probabilities(model, hyps, normalization, oov, workers, interrupted);
  out.ref_prob = sentence_probabilities(model, refs, normalization, oov, workers, interrupted);
  out.fm = fluency_from_probabilities(out.hyp_prob, out.ref_prob, segment_offsets, combine);
  return out;
}

}  // namespace fastamfm
