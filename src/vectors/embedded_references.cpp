#include "vectors/embedded_references.hpp"

#include <algorithm>
#include <utility>

namespace fastamfm {

EmbeddedReferences::EmbeddedReferences(std::shared_ptr<const WordVectors> vectors,
                                       std::shared_ptr<const ReferenceSet> refs, OovPolicy oov,
                                       size_t feature_budget_bytes, int workers, const InterruptCheck& interrupted)
    : vectors_(std::move(vectors)),
      refs_(std::move(refs)),
      oov_(oov),
      feature_budget_bytes_(feature_budget_bytes),
      zeros_(vectors_->dim(), 0.0) {
  rows_ = apply_oov(lookup_rows(*vectors_, refs_->tokens(), workers, interrupted), oov_, vectors_->size());
}

bool EmbeddedReferences::prepare_features(int workers, const InterruptCheck& interrupted) const {
  const size_t n_refs = refs_->num_references(), dim = vectors_->dim();
  if (n_refs * dim * 2 * sizeof(double) > feature_budget_bytes_) return false;
  std::call_once(features_once_, [&] {
    sums_.assign(n_refs * dim, 0.0);
    extremas_.assign(n_refs * dim, 0.0);
    sum_norms_.assign(n_refs, 0.0);
    extrema_norms_.assign(n_refs, 0.0);
    const TokenVectors row_vectors(*vectors_, oov_vector());
    parallel_for(
        n_refs, workers,
        [&](size_t begin, size_t end) {
          SentenceVectors features;
          std::vector<uint32_t> rows, unused_ids;
          for (size_t r = begin; r < end; ++r) {
            sentence_tokens(refs_->tokens(), rows_, nullptr, r, rows, unused_ids);
            if (rows.empty()) continue;  // an empty reference scores 0 (or was refused)
            features.compute(row_vectors, rows, dim, true, true);
            std::copy(features.sum.begin(), features.sum.end(), sums_.begin() + r * dim);
            std::copy(features.extrema.begin(), features.extrema.end(), extremas_.begin() + r * dim);
            sum_norms_[r] = features.sum_norm;
            extrema_norms_[r] = features.extrema_norm;
          }
        },
        interrupted, 64);
    features_ready_ = true;
  });
  return features_ready_;
}

}  // namespace fastamfm
