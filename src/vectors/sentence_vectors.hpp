// What the embedding metrics share per sentence: each token's row in the word
// vectors (with the out-of-vocabulary policy applied), and the sentence vectors of
// Embedding Average (the sum) and Vector Extrema, computed in float64 from the
// float32 rows (widening is exact, so only the sums round).
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "parallel/parallel.hpp"
#include "text/tokenized_batch.hpp"
#include "vectors/vector_kernels.hpp"
#include "vectors/word_vectors.hpp"

namespace fastamfm {

// A word without a vector gets the mean of all vectors (nlg-eval), is skipped, or gets zeros.
enum class OovPolicy { Mean, Skip, Zero };
OovPolicy parse_oov_policy(std::string_view name);

// The row of a skipped token (the same value as WordVectors::kNotFound).
constexpr uint32_t kSkippedToken = UINT32_MAX;

// The row of every token of `batch` (flat), or WordVectors::kNotFound.
std::vector<uint32_t> lookup_rows(const WordVectors& vectors, const TokenizedBatch& batch, int workers,
                                  const InterruptCheck& interrupted);

// Rows with the OOV policy applied: an unknown word becomes the pseudo-row
// `vocabulary_size` (holding the mean or zero vector), or kSkippedToken.
std::vector<uint32_t> apply_oov(std::vector<uint32_t> rows, OovPolicy oov, size_t vocabulary_size);

// The kept tokens of sentence i: their rows and, when `ids` is given, their ids from it.
void sentence_tokens(const TokenizedBatch& batch, const std::vector<uint32_t>& rows, const std::vector<uint32_t>* ids,
                     size_t i, std::vector<uint32_t>& out_rows, std::vector<uint32_t>& out_ids);

// Cosine similarity given the norms; 0 when either vector is zero (sklearn's convention).
double cosine(const double* a, double norm_a, const double* b, double norm_b, size_t dim);

// The vector of a token row: a vocabulary row (float32) or the OOV pseudo-row (float64).
class TokenVectors {
 public:
  TokenVectors(const WordVectors& vectors, const double* oov_vector) : vectors_(vectors), oov_(oov_vector) {}
  void add(double* acc, uint32_t row) const {
    if (row < vectors_.size()) add_into(acc, vectors_.row(row), vectors_.dim());
    else add_into(acc, oov_, vectors_.dim());
  }
  void min_max(double* lo, double* hi, uint32_t row) const {
    if (row < vectors_.size()) min_max_into(lo, hi, vectors_.row(row), vectors_.dim());
    else min_max_into(lo, hi, oov_, vectors_.dim());
  }
  void copy(double* out, uint32_t row) const {
    if (row < vectors_.size()) std::copy(vectors_.row(row), vectors_.row(row) + vectors_.dim(), out);
    else std::copy(oov_, oov_ + vectors_.dim(), out);
  }
  bool is_oov(uint32_t row) const { return row >= vectors_.size(); }
  const float* row(uint32_t row) const { return vectors_.row(row); }
  const double* oov() const { return oov_; }

 private:
  const WordVectors& vectors_;
  const double* oov_;
};

// Sentence-level vectors of Embedding Average (the sum) and Vector Extrema.
struct SentenceVectors {
  std::vector<double> sum, extrema, lo;
  double sum_norm = 0, extrema_norm = 0;

  // rows: the sentence's kept token rows (at least one).
  void compute(const TokenVectors& vectors, const std::vector<uint32_t>& rows, size_t dim, bool average,
               bool extrema_wanted);
};

}  // namespace fastamfm
