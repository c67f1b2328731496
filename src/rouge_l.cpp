#include "rouge_l.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "errors.hpp"
#include "lcs.hpp"

namespace fastamfm {

RougeMultiRef parse_rouge_multi_ref(std::string_view name) {
  if (name == "max-pr") return RougeMultiRef::MaxPrecisionRecall;
  if (name == "max-f") return RougeMultiRef::MaxF;
  throw InputError("multi_ref must be 'max-pr' (pycocoevalcap) or 'max-f' (rouge-score), got '" +
                   std::string(name) + "'");
}

namespace {
double f_score(double precision, double recall, double beta_sq) {
  if (precision == 0 || recall == 0) return 0.0;
  return ((1 + beta_sq) * precision * recall) / (recall + beta_sq * precision);
}
}  // namespace

std::vector<double> rouge_l_scores(const TokenizedBatch& hyps, const TokenizedBatch& refs,
                                   const std::vector<uint64_t>& segment_offsets, double beta, RougeMultiRef multi_ref,
                                   int workers, const InterruptCheck& interrupted) {
  const size_t n = hyps.size();
  if (segment_offsets.size() != n + 1 || segment_offsets.back() != refs.size())
    throw InputError("rouge_l: " + std::to_string(n) + " hypotheses but " +
                     std::to_string(segment_offsets.empty() ? 0 : segment_offsets.size() - 1) + " reference segments");
  for (size_t i = 0; i < n; ++i)
    if (segment_offsets[i + 1] <= segment_offsets[i])
      throw InputError("rouge_l: segment " + std::to_string(i) + " has no reference");
  if (!(beta > 0) || !std::isfinite(beta)) throw InputError("rouge_l: beta must be a positive number");
  const double beta_sq = beta * beta;
  std::vector<double> scores(n);
  parallel_for(
      n, workers,
      [&](size_t begin, size_t end) {
        BitParallelLcs lcs;
        for (size_t i = begin; i < end; ++i) {
          const size_t hyp_len = hyps.num_tokens(i);
          lcs.set_pattern(hyps.ids(i), hyp_len);
          double best_p = 0, best_r = 0, best_f = 0;
          for (size_t r = segment_offsets[i]; r < segment_offsets[i + 1]; ++r) {
            const size_t ref_len = refs.num_tokens(r);
            if (hyp_len == 0 || ref_len == 0) continue;  // no token, no overlap
            const double common = static_cast<double>(lcs.length_with(refs.ids(r), ref_len));
            const double p = common / static_cast<double>(hyp_len);
            const double rec = common / static_cast<double>(ref_len);
            best_p = std::max(best_p, p);
            best_r = std::max(best_r, rec);
            best_f = std::max(best_f, f_score(p, rec, beta_sq));
          }
          scores[i] = multi_ref == RougeMultiRef::MaxPrecisionRecall ? f_score(best_p, best_r, beta_sq) : best_f;
        }
      },
      interrupted, 64);
  return scores;
}

}  // namespace fastamfm
