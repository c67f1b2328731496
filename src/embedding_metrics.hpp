// The embedding metrics of Liu et al. (2016) with nlg-eval's formulas:
//   Embedding Average  cosine of the sums of the token vectors of hypothesis and reference;
//   Vector Extrema     cosine of the per-dimension extrema: the max when the min is > 0,
//                      the max when the min is < 0 and max > -min, else the min -- so a
//                      dimension whose min is exactly 0 gives 0, as nlg-eval's rule does;
//   Greedy Matching    mean over the two directions of the average best token cosine.
// Per hypothesis the maximum over its references; a cosine with a zero vector is 0
// (sklearn's cosine_similarity). Unknown tokens get the mean of all vectors (nlg-eval),
// are skipped, or get a zero vector. nlg-eval fails on a text without tokens; here
// that is an InputError naming it (EmptyPolicy::Error) or it scores 0 against
// anything (EmptyPolicy::Zero).
#pragma once
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "parallel.hpp"
#include "reference_set.hpp"
#include "tokenized_batch.hpp"
#include "word_vectors.hpp"

namespace fastamfm {

enum class OovPolicy { Mean, Skip, Zero };
OovPolicy parse_oov_policy(std::string_view name);

enum class EmptyPolicy { Error, Zero };
EmptyPolicy parse_empty_policy(std::string_view name);

struct EmbeddingMetricSelection {
  bool average = true;
  bool extrema = true;
  bool greedy = true;
};

// Per-hypothesis scores; a metric that was not selected stays empty.
struct EmbeddingScores {
  std::vector<double> average, extrema, greedy;
};

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

// `what` names the caller in errors ("embedding_average: hyps[3] has no tokens ...").
EmbeddingScores score_embedding_metrics(const EmbeddedReferences& refs, const TokenizedBatch& hyps,
                                        EmbeddingMetricSelection which, EmptyPolicy empty, const std::string& what,
                                        int workers, const InterruptCheck& interrupted = {});

}  // namespace fastamfm
