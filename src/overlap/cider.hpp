// CIDEr-D exactly as pycocoevalcap's Cider (what nlg-eval reports as "CIDEr").
//
// Each text becomes, per order 1..max_order, a tf-idf vector over its n-grams:
// weight = tf * (log N - log max(1, df)), N = segments counted in the document
// frequencies. Per reference and order: sum over the hypothesis n-grams of
// min(w_hyp, w_ref) * w_ref, divided by both norms when neither is 0, times the
// Gaussian penalty e^(-delta^2 / (2 sigma^2)) where delta is the difference of the
// texts' *bigram* counts (pycocoevalcap's "length"). A segment's score is the mean
// over orders, averaged over its references, times 10.
#pragma once
#include <memory>
#include <vector>

#include "overlap/document_frequency.hpp"
#include "overlap/ngram_counts.hpp"
#include "parallel/parallel.hpp"
#include "overlap/reference_set.hpp"
#include "text/tokenized_batch.hpp"

namespace fastamfm {

// The references' tf-idf vectors and norms under one set of document frequencies,
// computed once and reused for every system scored against these references.
class CiderReferenceModel {
 public:
  CiderReferenceModel(std::shared_ptr<const ReferenceSet> refs, std::shared_ptr<const DocumentFrequency> df,
                      int workers, const InterruptCheck& interrupted = {});

  const ReferenceSet& references() const { return *refs_; }
  const DocumentFrequency& document_frequency() const { return *df_; }
  int max_order() const { return df_->max_order(); }
  double log_segments() const { return log_segments_; }
  // Weight of the n-gram of order `order` in reference r; w(r, order)[j] belongs to
  // references().ngrams().at(r, order).data[j].
  const double* weights(size_t r, int order) const { return weights_.data() + offsets_[slot(r, order)]; }
  double norm(size_t r, int order) const { return norms_[slot(r, order)]; }

  // tf * (log N - log max(1, df)), the weight pycocoevalcap gives an n-gram.
  double weight(uint32_t term_frequency, NgramKey key) const;
  void prefetch_weight(NgramKey key) const { df_->prefetch(key); }

 private:
  size_t slot(size_t r, int order) const { return r * static_cast<size_t>(max_order()) + static_cast<size_t>(order - 1); }

  std::shared_ptr<const ReferenceSet> refs_;
  std::shared_ptr<const DocumentFrequency> df_;
  double log_segments_;
  std::vector<double> idf_;  // log N - log max(1, df) for the small df values, which are most
  std::vector<double> weights_;
  std::vector<uint64_t> offsets_;  // [refs * max_order + 1] into weights_
  std::vector<double> norms_;      // [refs * max_order]
};

// CIDEr-D of hypothesis i against the references of segment i. [n]
std::vector<double> cider_d_scores(const TokenizedBatch& hyps, const NgramTable& hyp_ngrams,
                                   const CiderReferenceModel& model, double sigma, int workers,
                                   const InterruptCheck& interrupted = {});

}  // namespace fastamfm
