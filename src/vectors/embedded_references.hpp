// References prepared for the embedding metrics with one set of word vectors.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "parallel/parallel.hpp"
#include "overlap/reference_set.hpp"
#include "vectors/sentence_vectors.hpp"
#include "vectors/word_vectors.hpp"

namespace fastamfm {

// References looked up once in a set of word vectors under one OOV policy, so
// that many systems are scored against them without looking every reference
// token up again. The sentence vectors of Embedding Average and Vector Extrema
// of every reference are also kept (built on first use) when they fit
// kFeatureBudgetBytes: then scoring a system reads one vector per reference
// instead of every token's (worth it only when several systems are scored).
class EmbeddedReferences {
 public:
  static constexpr size_t kFeatureBudgetBytes = size_t{256} << 20;

  // feature_budget_bytes: 0 never keeps the sentence vectors.
  EmbeddedReferences(std::shared_ptr<const WordVectors> vectors, std::shared_ptr<const ReferenceSet> refs,
                     OovPolicy oov, size_t feature_budget_bytes, int workers, const InterruptCheck& interrupted = {});
  const WordVectors& vectors() const { return *vectors_; }
  const ReferenceSet& references() const { return *refs_; }
  OovPolicy oov() const { return oov_; }
  // The OOV vector: the mean of all vectors, or zeros.
  const double* oov_vector() const { return oov_ == OovPolicy::Mean ? vectors_->mean() : zeros_.data(); }
  // Per reference token (flat, as refs.tokens() holds them): its row; an unknown word
  // is the pseudo-row vectors().size() (the OOV vector), or UINT32_MAX when skipped.
  const std::vector<uint32_t>& rows() const { return rows_; }

  // Builds the kept sentence vectors if they fit the budget; false when they do not.
  // (The budget is kFeatureBudgetBytes, or 0 for references scored only once.)
  bool prepare_features(int workers, const InterruptCheck& interrupted) const;
  // Valid after prepare_features returned true. Reference r, as refs.tokens() numbers them.
  const double* sum(size_t r) const { return sums_.data() + r * vectors_->dim(); }
  double sum_norm(size_t r) const { return sum_norms_[r]; }
  const double* extrema(size_t r) const { return extremas_.data() + r * vectors_->dim(); }
  double extrema_norm(size_t r) const { return extrema_norms_[r]; }

 private:
  std::shared_ptr<const WordVectors> vectors_;
  std::shared_ptr<const ReferenceSet> refs_;
  OovPolicy oov_;
  size_t feature_budget_bytes_;
  std::vector<double> zeros_;
  std::vector<uint32_t> rows_;
  mutable std::once_flag features_once_;
  mutable bool features_ready_ = false;
  mutable std::vector<double> sums_, extremas_, sum_norms_, extrema_norms_;
};

}  // namespace fastamfm
