#include "vectors/sentence_vectors.hpp"

#include <cmath>
#include <string>

#include "common/errors.hpp"
#include "vectors/vector_kernels.hpp"

namespace fastamfm {

OovPolicy parse_oov_policy(std::string_view name) {
  if (name == "mean") return OovPolicy::Mean;
  if (name == "skip") return OovPolicy::Skip;
  if (name == "zero") return OovPolicy::Zero;
  throw InputError("oov must be 'mean', 'skip' or 'zero', got '" + std::string(name) + "'");
}

// The row of every token of `batch`, or WordVectors::kNotFound.
std::vector<uint32_t> lookup_rows(const WordVectors& vectors, const TokenizedBatch& batch, int workers,
                                  const InterruptCheck& interrupted) {
  std::vector<uint32_t> rows(batch.total_tokens());
  parallel_for(
      batch.size(), workers,
      [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) {
          const uint64_t first = batch.first_token(i);
          const TokenId* ids = batch.ids(i);
          for (size_t j = 0; j < batch.num_tokens(i); ++j) rows[first + j] = vectors.find(ids[j], batch.token_at(first + j));
        }
      },
      interrupted, 256);
  return rows;
}

// Rows with the OOV policy applied: an unknown word becomes the pseudo-row
// `vectors.size()` (holding the mean or zero vector), or kSkippedToken.
std::vector<uint32_t> apply_oov(std::vector<uint32_t> rows, OovPolicy oov, size_t vocabulary_size) {
  static_assert(WordVectors::kNotFound == kSkippedToken, "unknown words are skipped by leaving them as they are");
  if (oov == OovPolicy::Skip) return rows;
  for (uint32_t& r : rows)
    if (r == WordVectors::kNotFound) r = static_cast<uint32_t>(vocabulary_size);
  return rows;
}

// The kept tokens of sentence i: their rows and, when wanted, their compact ids.
void sentence_tokens(const TokenizedBatch& batch, const std::vector<uint32_t>& rows, const std::vector<uint32_t>* ids,
                     size_t i, std::vector<uint32_t>& out_rows, std::vector<uint32_t>& out_ids) {
  out_rows.clear();
  out_ids.clear();
  const uint64_t first = batch.first_token(i);
  for (size_t j = 0; j < batch.num_tokens(i); ++j) {
    if (rows[first + j] == kSkippedToken) continue;
    out_rows.push_back(rows[first + j]);
    if (ids) out_ids.push_back((*ids)[first + j]);
  }
}

double cosine(const double* a, double norm_a, const double* b, double norm_b, size_t dim) {
  if (norm_a == 0.0 || norm_b == 0.0) return 0.0;
  return dense_dot(a, b, dim) / (norm_a * norm_b);
}

void SentenceVectors::compute(const TokenVectors& vectors, const std::vector<uint32_t>& rows, size_t dim, bool average,
             bool extrema_wanted) {
  if (average) {
    sum.assign(dim, 0.0);
    for (uint32_t r : rows) vectors.add(sum.data(), r);
    sum_norm = std::sqrt(dense_dot(sum.data(), sum.data(), dim));
  }
  if (extrema_wanted) {
    lo.resize(dim);
    extrema.resize(dim);
    vectors.copy(lo.data(), rows[0]);
    vectors.copy(extrema.data(), rows[0]);
    for (size_t t = 1; t < rows.size(); ++t) vectors.min_max(lo.data(), extrema.data(), rows[t]);
    // nlg-eval's rule, including its 0 for a dimension whose minimum is exactly 0.
    for (size_t j = 0; j < dim; ++j) {
      const double mx = extrema[j], mn = lo[j];
      extrema[j] = mn > 0 ? mx : (mn < 0 ? (mx > -mn ? mx : mn) : 0.0);
    }
    extrema_norm = std::sqrt(dense_dot(extrema.data(), extrema.data(), dim));
  }
}

}  // namespace fastamfm
