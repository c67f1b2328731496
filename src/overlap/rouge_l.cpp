#include "overlap/rouge_l.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "common/errors.hpp"
#include "overlap/lcs.hpp"
#include "text/space_split.hpp"

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

namespace {

void check_rouge_inputs(size_t n_hyps, size_t n_refs, const std::vector<uint64_t>& segment_offsets, double beta) {
  if (segment_offsets.size() != n_hyps + 1 || segment_offsets.back() != n_refs)
    throw InputError("rouge_l: " + std::to_string(n_hyps) + " hypotheses but " +
                     std::to_string(segment_offsets.empty() ? 0 : segment_offsets.size() - 1) + " reference segments");
  for (size_t i = 0; i < n_hyps; ++i)
    if (segment_offsets[i + 1] <= segment_offsets[i])
      throw InputError("rouge_l: segment " + std::to_string(i) + " has no reference");
  if (!(beta > 0) || !std::isfinite(beta)) throw InputError("rouge_l: beta must be a positive number");
}

// Scores hypotheses on worker threads. A Segment (one per thread, from make_segment)
// has set_hypothesis(i) -> (ids, length) and reference(r) -> (ids, length); the ids stay
// valid until the next call of the same kind.
template <class MakeSegment>
std::vector<double> score_segments(size_t n, const std::vector<uint64_t>& segment_offsets, double beta,
                                   RougeMultiRef multi_ref, int workers, const InterruptCheck& interrupted,
                                   MakeSegment&& make_segment) {
  const double beta_sq = beta * beta;
  std::vector<double> scores(n);
  parallel_for(
      n, workers,
      [&](size_t begin, size_t end) {
        BitParallelLcs lcs;
        auto segment = make_segment();
        for (size_t i = begin; i < end; ++i) {
          const auto [hyp_ids, hyp_len] = segment.hypothesis(i);
          lcs.set_pattern(hyp_ids, hyp_len);
          double best_p = 0, best_r = 0, best_f = 0;
          for (size_t r = segment_offsets[i]; r < segment_offsets[i + 1]; ++r) {
            const auto [ref_ids, ref_len] = segment.reference(r);
            if (hyp_len == 0 || ref_len == 0) continue;  // no token, no overlap
            const double common = static_cast<double>(lcs.length_with(ref_ids, ref_len));
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

using IdSpan = std::pair<const TokenId*, size_t>;

// Token ids of texts tokenized one at a time.
class TextIds {
 public:
  TextIds(const TextBatch& hyps, const TextBatch& refs, const Tokenizer& tokenizer, bool split_like_pycoco)
      : hyps_(hyps), refs_(refs), tokenizer_(tokenizer), split_like_pycoco_(split_like_pycoco) {}

  IdSpan hypothesis(size_t i) { return encode(hyps_[i], hyp_ids_); }
  IdSpan reference(size_t r) { return encode(refs_[r], ref_ids_); }

 private:
  IdSpan encode(std::string_view text, std::vector<TokenId>& ids) {
    ids.clear();
    auto add = [&](std::string_view token) { ids.push_back(hash_token(token)); };
    if (split_like_pycoco_) {
      for_each_space_split_token(text, tokenizer_.lowercases(), scratch_, add);
    } else {
      tokenizer_.for_each_token(text, scratch_, add);
    }
    return {ids.data(), ids.size()};
  }

  const TextBatch& hyps_;
  const TextBatch& refs_;
  const Tokenizer& tokenizer_;
  bool split_like_pycoco_;
  std::string scratch_;
  std::vector<TokenId> hyp_ids_, ref_ids_;
};

}  // namespace

std::vector<double> rouge_l_scores(const TokenizedBatch& hyps, const TokenizedBatch& refs,
                                   const std::vector<uint64_t>& segment_offsets, double beta, RougeMultiRef multi_ref,
                                   int workers, const InterruptCheck& interrupted) {
  check_rouge_inputs(hyps.size(), refs.size(), segment_offsets, beta);
  struct Batches {
    const TokenizedBatch& hyps;
    const TokenizedBatch& refs;
    IdSpan hypothesis(size_t i) const { return {hyps.ids(i), hyps.num_tokens(i)}; }
    IdSpan reference(size_t r) const { return {refs.ids(r), refs.num_tokens(r)}; }
  };
  return score_segments(hyps.size(), segment_offsets, beta, multi_ref, workers, interrupted,
                        [&] { return Batches{hyps, refs}; });
}

std::vector<double> rouge_l_scores_from_text(const TextBatch& hyps, const TextBatch& refs,
                                             const std::vector<uint64_t>& segment_offsets, const Tokenizer& tokenizer,
                                             bool split_like_pycoco, double beta, RougeMultiRef multi_ref, int workers,
                                             const InterruptCheck& interrupted) {
  check_rouge_inputs(hyps.size(), refs.size(), segment_offsets, beta);
  return score_segments(hyps.size(), segment_offsets, beta, multi_ref, workers, interrupted,
                        [&] { return TextIds(hyps, refs, tokenizer, split_like_pycoco); });
}

}  // namespace fastamfm
