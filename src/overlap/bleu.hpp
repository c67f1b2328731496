// BLEU as pycocoevalcap 1.2 (and so nlg-eval and the DSTC-6 organisers) computes it,
// plus sacrebleu-style smoothed sentence BLEU.
//
// Everything derives from per-segment sufficient statistics (hypothesis length,
// effective reference length, guessed and clipped-correct n-grams per order). They
// are plain sums over segments, so a corpus scored in chunks gives exactly the
// whole-corpus number when the chunks' statistics are added.
#pragma once
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "common/python_sum.hpp"
#include "overlap/ngram_counts.hpp"
#include "parallel/parallel.hpp"
#include "overlap/reference_set.hpp"
#include "text/text_batch.hpp"
#include "text/tokenizer.hpp"
#include "text/token_id_batch.hpp"
#include "text/tokenized_batch.hpp"

namespace fastamfm {

// Which reference length a segment's brevity penalty uses. pycocoevalcap's Bleu
// passes "closest" (ties go to the shorter reference).
// ClosestFirst: the closest, the first given on ties (TensorBLEU's argmin).
enum class RefLength { Closest, Shortest, Average, ClosestFirst };
RefLength parse_ref_length(std::string_view name);

// Sentence-level smoothing as sacrebleu names it (Chen & Cherry 2014).
enum class BleuSmoothing { None, Floor, AddK, Exp };
BleuSmoothing parse_bleu_smoothing(std::string_view name);

// For each segment and order, every n-gram of its references with the largest count
// it has in any one of them (the clipping limit), sorted by key. Built once per
// ReferenceSet and reused for every system scored against it.
class BleuReferenceCounts {
 public:
  BleuReferenceCounts(std::shared_ptr<const ReferenceSet> refs, int max_order, int workers,
                      const InterruptCheck& interrupted = {});

  const ReferenceSet& references() const { return *refs_; }
  int max_order() const { return max_order_; }
  NgramSpan max_counts(size_t segment, int order) const {
    const size_t slot = segment * static_cast<size_t>(max_order_) + static_cast<size_t>(order - 1);
    return {entries_.data() + offsets_[slot], offsets_[slot + 1] - offsets_[slot]};
  }

 private:
  std::shared_ptr<const ReferenceSet> refs_;
  int max_order_;
  std::vector<NgramCount> entries_;
  std::vector<uint64_t> offsets_;
};

struct BleuStatistics {
  int max_order = 0;
  std::vector<double> hyp_len;    // [n] hypothesis tokens
  std::vector<double> ref_len;    // [n] effective reference length (fractional for Average)
  std::vector<uint64_t> guess;    // [n * max_order] hypothesis n-grams per order
  std::vector<uint64_t> correct;  // [n * max_order] n-grams clipped by the max count over references

  size_t size() const { return hyp_len.size(); }
};

// Statistics of hypothesis i against the references of segment i, for orders 1..max_order,
// clipping against each reference in turn (no table built: for references scored once).
BleuStatistics bleu_statistics(const TokenizedBatch& hyps, const NgramTable& hyp_ngrams, const ReferenceSet& refs,
                               int max_order, RefLength ref_length, int workers,
                               const InterruptCheck& interrupted = {});

// The same against the per-segment maxima built beforehand (references scored many times).
BleuStatistics bleu_statistics(const TokenizedBatch& hyps, const NgramTable& hyp_ngrams,
                               const BleuReferenceCounts& refs, int max_order, RefLength ref_length, int workers,
                               const InterruptCheck& interrupted = {});

// The same statistics straight from text, for one-shot scoring: each segment's
// references are tokenized and counted in per-thread buffers and merged on the fly,
// so no corpus-wide reference tables are built. refs holds all references, those of
// hypothesis i being segment_offsets[i]..segment_offsets[i+1].
BleuStatistics bleu_statistics_from_text(const TextBatch& hyps, const TextBatch& refs,
                                         const std::vector<uint64_t>& segment_offsets, const Tokenizer& tokenizer,
                                         int max_order, RefLength ref_length, int workers,
                                         const InterruptCheck& interrupted = {});

// The same statistics from token ids (integer ids of a model's vocabulary, mixed here).
BleuStatistics bleu_statistics_from_ids(const TokenIdBatch& hyps, const TokenIdBatch& refs,
                                        const std::vector<uint64_t>& segment_offsets, int max_order,
                                        RefLength ref_length, int workers, const InterruptCheck& interrupted = {});

// sacrebleu's BLEU.compute_bleu on 0..100: brevity penalty exp(1 - ref/hyp), smoothing
// (smooth_value < 0: its default, floor 0.1, add-k 1), orders past the last one with
// any n-gram left out when effective_order, 0 without any match. The logs of the
// precisions are summed as sum() sums them under the Python that sacrebleu runs on.
double sacrebleu_bleu(double hyp_len, double ref_len, const uint64_t* guess, const uint64_t* correct, int max_order,
                      BleuSmoothing smoothing, double smooth_value, bool effective_order, PythonSum log_sum);

// TensorBLEU's tensor_sentence_bleu (rxlm) formula on 0..1, in double precision:
// uniform weights, precisions floor (epsilon for no match, denominator at least 1),
// add-k (k added to every order), exp/none (matched/total, 1e-12 for no match with exp,
// 0 otherwise), log(p + 1e-12), brevity penalty 0 for an empty hypothesis. Pair it with
// RefLength::ClosestFirst.
double tensorbleu_bleu(double hyp_len, double ref_len, const uint64_t* guess, const uint64_t* correct, int max_order,
                       BleuSmoothing smoothing, double smooth_value);

// sacrebleu's sentence BLEU (0..100) of every candidate against every reference alone,
// from n-gram tables of the two sides (orders 1..max_order). Row-major [n * m].
std::vector<float> sacrebleu_pairwise(const TokenizedBatch& candidates, const NgramTable& candidate_ngrams,
                                      const TokenizedBatch& refs, const NgramTable& ref_ngrams, int max_order,
                                      BleuSmoothing smoothing, double smooth_value, bool effective_order,
                                      PythonSum log_sum, int workers, const InterruptCheck& interrupted = {});

// BLEU-1..max_order from (summed) statistics with pycocoevalcap's guards:
// precision (correct + 1e-15) / (guess + 1e-9), brevity penalty exp(1 - 1/ratio)
// when ratio = (hyp_len + 1e-15) / (ref_len + 1e-9) < 1. Writes max_order values.
void bleu_from_totals(double hyp_len, double ref_len, const uint64_t* guess, const uint64_t* correct, int max_order,
                      double* out);

// pycocoevalcap's per-segment list: row i = bleu_from_totals of segment i alone. [n * max_order]
std::vector<double> bleu_segment_scores(const BleuStatistics& stats);

// sacrebleu's sentence_bleu (effective order, its brevity penalty exp(1 - ref/hyp)),
// column k-1 = BLEU with n-gram orders 1..k, on a 0..1 scale. [n * max_order]
// smooth_value < 0 picks sacrebleu's default (floor 0.1, add-k 1).
std::vector<double> bleu_smoothed_segment_scores(const BleuStatistics& stats, BleuSmoothing smoothing,
                                                 double smooth_value, PythonSum log_sum);

}  // namespace fastamfm
