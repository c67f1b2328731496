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

// A token sequence as pycocoevalcap's split(" ") sees it: an empty text is one empty token.
struct TokenView {
  const TokenId* ids;
  size_t size;
};

TokenView pycoco_view(const TokenizedBatch& batch, size_t i, const TokenId& empty_token) {
  if (batch.num_tokens(i) == 0) return {&empty_token, 1};
  return {batch.ids(i), batch.num_tokens(i)};
}

double f_score(double precision, double recall, double beta_sq) {
  if (precision == 0 || recall == 0) return 0.0;
  return ((1 + beta_sq) * precision * recall) / (recall + beta_sq * precision);
}

}  // namespace

std::vector<double> rouge_l_scores(const TokenizedBatch& hyps, const ReferenceSet& refs, double beta,
                                   RougeMultiRef multi_ref, int workers, const InterruptCheck& interrupted) {
  const size_t n = hyps.size();
  if (n != refs.num_segments())
    throw InputError("rouge_l: " + std::to_string(n) + " hypotheses but " + std::to_string(refs.num_segments()) +
                     " reference segments");
  if (!(beta > 0) || !std::isfinite(beta)) throw InputError("rouge_l: beta must be a positive number");
  const double beta_sq = beta * beta;
  const bool pycoco = multi_ref == RougeMultiRef::MaxPrecisionRecall;
  const TokenId empty_token = hash_token("");
  std::vector<double> scores(n);
  parallel_for(
      n, workers,
      [&](size_t begin, size_t end) {
        BitParallelLcs lcs;
        for (size_t i = begin; i < end; ++i) {
          const TokenView hyp = pycoco ? pycoco_view(hyps, i, empty_token) : TokenView{hyps.ids(i), hyps.num_tokens(i)};
          lcs.set_pattern(hyp.ids, hyp.size);
          double best_p = 0, best_r = 0, best_f = 0;
          for (size_t r = refs.refs_begin(i); r < refs.refs_end(i); ++r) {
            const TokenView ref = pycoco ? pycoco_view(refs.tokens(), r, empty_token)
                                         : TokenView{refs.tokens().ids(r), refs.tokens().num_tokens(r)};
            if (hyp.size == 0 || ref.size == 0) continue;  // rouge-score: an empty side scores 0
            const double common = static_cast<double>(lcs.length_with(ref.ids, ref.size));
            const double p = common / static_cast<double>(hyp.size);
            const double rec = common / static_cast<double>(ref.size);
            best_p = std::max(best_p, p);
            best_r = std::max(best_r, rec);
            best_f = std::max(best_f, f_score(p, rec, beta_sq));
          }
          scores[i] = pycoco ? f_score(best_p, best_r, beta_sq) : best_f;
        }
      },
      interrupted, 64);
  return scores;
}

}  // namespace fastamfm
