#include "vectors/embedding_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include "common/errors.hpp"
#include "vectors/sentence_vectors.hpp"
#include "vectors/vector_kernels.hpp"

namespace fastamfm {

EmptyPolicy parse_empty_policy(std::string_view name) {
  if (name == "error") return EmptyPolicy::Error;
  if (name == "zero") return EmptyPolicy::Zero;
  throw InputError("empty must be 'error' or 'zero', got '" + std::string(name) + "'");
}

namespace {

bool has_kept_token(const TokenizedBatch& batch, const std::vector<uint32_t>& rows, size_t i) {
  const uint64_t first = batch.first_token(i);
  for (size_t j = 0; j < batch.num_tokens(i); ++j)
    if (rows[first + j] != kSkippedToken) return true;
  return false;
}

// The distinct vectors Greedy Matching uses in one call, numbered in order of
// first appearance ("compact" ids) so a segment can index small tables by them,
// with each vector's norm computed once per call instead of once per segment.
class UsedRows {
 public:
  UsedRows(const WordVectors& vectors, const double* oov_vector, const std::vector<uint32_t>& hyp_rows,
           const std::vector<uint32_t>& ref_rows, int workers, const InterruptCheck& interrupted) {
    std::vector<uint32_t> compact(vectors.size() + 1, kSkippedToken);  // vocabulary rows + the OOV pseudo-row
    auto renumber = [&](const std::vector<uint32_t>& rows, std::vector<uint32_t>& ids) {
      ids.resize(rows.size());
      for (size_t t = 0; t < rows.size(); ++t) {
        const uint32_t r = rows[t];
        if (r != kSkippedToken && compact[r] == kSkippedToken) {
          compact[r] = static_cast<uint32_t>(rows_.size());
          rows_.push_back(r);
        }
        ids[t] = r == kSkippedToken ? kSkippedToken : compact[r];
      }
    };
    renumber(hyp_rows, hyp_ids);
    renumber(ref_rows, ref_ids);
    norms_.resize(rows_.size());
    const size_t dim = vectors.dim();
    parallel_for(
        rows_.size(), workers,
        [&](size_t begin, size_t end) {
          std::vector<double> v(dim);
          for (size_t k = begin; k < end; ++k) {
            if (rows_[k] < vectors.size()) {
              const float* in = vectors.row(rows_[k]);
              std::copy(in, in + dim, v.data());
            } else {
              std::copy(oov_vector, oov_vector + dim, v.data());
            }
            norms_[k] = std::sqrt(dense_dot(v.data(), v.data(), dim));
          }
        },
        interrupted, 256);
  }
  uint32_t row(uint32_t id) const { return rows_[id]; }
  double norm(uint32_t id) const { return norms_[id]; }
  size_t size() const { return rows_.size(); }

  std::vector<uint32_t> hyp_ids, ref_ids;  // per token, parallel to the rows given

 private:
  std::vector<uint32_t> rows_;  // compact id -> vocabulary row (or the OOV pseudo-row)
  std::vector<double> norms_;
};

// Numbers the distinct ids of a token list in order of first appearance, through
// a table indexed by compact id that is reset after each use (no sorting, no search).
class DistinctIndex {
 public:
  explicit DistinctIndex(size_t n_ids) : local_of_(n_ids, kSkippedToken) {}

  // distinct: the distinct ids; local: each token's index among them.
  void index(const std::vector<uint32_t>& tokens, std::vector<uint32_t>& distinct, std::vector<uint32_t>& local) {
    distinct.clear();
    local.resize(tokens.size());
    for (size_t t = 0; t < tokens.size(); ++t) {
      uint32_t& slot = local_of_[tokens[t]];
      if (slot == kSkippedToken) {
        slot = static_cast<uint32_t>(distinct.size());
        distinct.push_back(tokens[t]);
      }
      local[t] = slot;
    }
    for (uint32_t id : distinct) local_of_[id] = kSkippedToken;
  }

 private:
  std::vector<uint32_t> local_of_;
};

// A hypothesis or reference: its kept tokens' rows and (for Greedy Matching) compact ids.
struct SentenceTokens {
  std::vector<uint32_t> rows, ids;
};

// Scores one hypothesis against its references; holds the scratch space of a thread.
class SegmentScorer {
 public:
  // kept: the references' sentence vectors when they are kept, else nullptr.
  SegmentScorer(const TokenVectors& rows, const UsedRows* used, const EmbeddedReferences* kept, size_t dim,
                EmbeddingMetricSelection which)
      : rows_(rows), used_(used), kept_(kept), dim_(dim), which_(which), distinct_(used ? used->size() : 0) {}

  // first_ref: the index of refs[0] among all references.
  void score(const SentenceTokens& hyp, const std::vector<SentenceTokens>& refs, size_t first_ref, size_t n_refs,
             double& average, double& extrema, double& greedy) {
    average = extrema = greedy = 0.0;
    if (hyp.rows.empty()) return;  // EmptyPolicy::Zero
    hyp_features_.compute(rows_, hyp.rows, dim_, which_.average, which_.extrema);
    if (which_.greedy) {
      distinct_.index(hyp.ids, hyp_distinct_, hyp_local_);
      all_ref_tokens_.clear();
      for (size_t k = 0; k < n_refs; ++k)
        all_ref_tokens_.insert(all_ref_tokens_.end(), refs[k].ids.begin(), refs[k].ids.end());
      distinct_.index(all_ref_tokens_, ref_distinct_, all_ref_local_);
      fill_similarities();
    }
    size_t ref_token_offset = 0;
    for (size_t k = 0; k < n_refs; ++k) {
      double avg = 0, ext = 0, gm = 0;
      const size_t n_tokens = refs[k].rows.size();
      if (n_tokens > 0) {
        const double *ref_sum, *ref_extrema;
        double ref_sum_norm, ref_extrema_norm;
        if (kept_) {
          ref_sum = kept_->sum(first_ref + k);
          ref_sum_norm = kept_->sum_norm(first_ref + k);
          ref_extrema = kept_->extrema(first_ref + k);
          ref_extrema_norm = kept_->extrema_norm(first_ref + k);
        } else {
          ref_features_.compute(rows_, refs[k].rows, dim_, which_.average, which_.extrema);
          ref_sum = ref_features_.sum.data();
          ref_sum_norm = ref_features_.sum_norm;
          ref_extrema = ref_features_.extrema.data();
          ref_extrema_norm = ref_features_.extrema_norm;
        }
        if (which_.average) avg = cosine(hyp_features_.sum.data(), hyp_features_.sum_norm, ref_sum, ref_sum_norm, dim_);
        if (which_.extrema)
          ext = cosine(hyp_features_.extrema.data(), hyp_features_.extrema_norm, ref_extrema, ref_extrema_norm, dim_);
        if (which_.greedy) gm = greedy_match(all_ref_local_.data() + ref_token_offset, n_tokens);
      }
      ref_token_offset += which_.greedy ? n_tokens : 0;
      average = k == 0 ? avg : std::max(average, avg);
      extrema = k == 0 ? ext : std::max(extrema, ext);
      greedy = k == 0 ? gm : std::max(greedy, gm);
    }
  }

 private:
  // Cosine of every distinct hypothesis vector with every distinct reference vector.
  // The hypothesis vectors are widened into a small float64 buffer; the reference
  // vectors stream from the float32 table in register tiles (the loops put one
  // tile of references outermost, so it stays in L1 across all hypothesis
  // vectors; a tile column beyond the end repeats the last vector and its
  // results are dropped, the last hypothesis tile is just shorter).
  void fill_similarities() {
    const size_t nh = hyp_distinct_.size(), nr = ref_distinct_.size();
    sims_.resize(nh * nr);
    hyp_values_.resize(nh * dim_);
    for (size_t h = 0; h < nh; ++h) rows_.copy(hyp_values_.data() + h * dim_, used_->row(hyp_distinct_[h]));
    b_.clear();
    b_index_.clear();
    for (size_t r = 0; r < nr; ++r) {
      const uint32_t row = used_->row(ref_distinct_[r]);
      if (rows_.is_oov(row)) {  // the one float64 vector: no tiles
        for (size_t h = 0; h < nh; ++h) sims_[h * nr + r] = dense_dot(hyp_values_.data() + h * dim_, rows_.oov(), dim_);
        continue;
      }
      b_.push_back(rows_.row(row));
      b_index_.push_back(r);
    }
    const size_t nb = b_.size();
    for (size_t j = 0; j < nb; j += kTileB) {
      const float* b[kTileB];
      for (size_t m = 0; m < kTileB; ++m) b[m] = b_[std::min(j + m, nb - 1)];
      for (size_t h = 0; h < nh; h += kTileA) {
        const size_t na = std::min(kTileA, nh - h);
        const double* a[kTileA];
        for (size_t k = 0; k < na; ++k) a[k] = hyp_values_.data() + (h + k) * dim_;
        double out[kTileA * kTileB];
        dense_dot_tile(a, na, b, dim_, out);
        for (size_t k = 0; k < na; ++k)
          for (size_t m = 0; m < kTileB && j + m < nb; ++m) sims_[(h + k) * nr + b_index_[j + m]] = out[kTileB * k + m];
      }
    }
    for (size_t h = 0; h < nh; ++h) {
      for (size_t r = 0; r < nr; ++r) {
        const double norms = used_->norm(hyp_distinct_[h]) * used_->norm(ref_distinct_[r]);
        double& sim = sims_[h * nr + r];
        sim = norms == 0.0 ? 0.0 : sim / norms;  // a zero vector has cosine 0 with anything
      }
    }
  }

  // (mean over hypothesis tokens of the best reference token
  //  + mean over reference tokens of the best hypothesis token) / 2
  double greedy_match(const uint32_t* ref_local, size_t n_ref) {
    const size_t nr = ref_distinct_.size();
    best_for_ref_.assign(n_ref, -INFINITY);
    double hyp_side = 0;
    for (uint32_t h : hyp_local_) {
      const double* row = sims_.data() + size_t{h} * nr;
      double best = -INFINITY;
      for (size_t q = 0; q < n_ref; ++q) {
        const double s = row[ref_local[q]];
        best = std::max(best, s);
        best_for_ref_[q] = std::max(best_for_ref_[q], s);
      }
      hyp_side += best;
    }
    double ref_side = 0;
    for (double b : best_for_ref_) ref_side += b;
    return (hyp_side / static_cast<double>(hyp_local_.size()) + ref_side / static_cast<double>(n_ref)) / 2.0;
  }

  const TokenVectors& rows_;
  const UsedRows* used_;
  const EmbeddedReferences* kept_;
  size_t dim_;
  EmbeddingMetricSelection which_;
  DistinctIndex distinct_;
  std::vector<double> hyp_values_;
  std::vector<const float*> b_;
  std::vector<size_t> b_index_;
  std::vector<uint32_t> hyp_distinct_, hyp_local_, ref_distinct_, all_ref_tokens_, all_ref_local_;
  SentenceVectors hyp_features_, ref_features_;
  std::vector<double> sims_, best_for_ref_;
};

std::string empty_message(const std::string& what, const std::string& text, OovPolicy oov) {
  return what + ": " + text +
         (oov == OovPolicy::Skip ? " has no word with a vector (oov='skip' dropped them all)" : " has no tokens") +
         "; nlg-eval fails on such texts -- pass empty='zero' to score them 0";
}

}  // namespace

EmbeddingScores score_embedding_metrics(const EmbeddedReferences& embedded, const TokenizedBatch& hyps,
                                        EmbeddingMetricSelection which, EmptyPolicy empty, const std::string& what,
                                        int workers, const InterruptCheck& interrupted) {
  const WordVectors& vectors = embedded.vectors();
  const ReferenceSet& refs = embedded.references();
  const OovPolicy oov = embedded.oov();
  const size_t n = hyps.size();
  if (n != refs.num_segments())
    throw InputError(what + ": " + std::to_string(n) + " hypotheses but " + std::to_string(refs.num_segments()) +
                     " reference segments");
  resolve_workers(workers);
  const double* oov_vector = embedded.oov_vector();

  const std::vector<uint32_t> hyp_rows = apply_oov(lookup_rows(vectors, hyps, workers, interrupted), oov, vectors.size());
  const std::vector<uint32_t>& ref_rows = embedded.rows();
  if (empty == EmptyPolicy::Error) {
    for (size_t i = 0; i < n; ++i) {
      if (!has_kept_token(hyps, hyp_rows, i)) throw InputError(empty_message(what, "hyps[" + std::to_string(i) + "]", oov));
      for (size_t r = refs.refs_begin(i); r < refs.refs_end(i); ++r)
        if (!has_kept_token(refs.tokens(), ref_rows, r))
          throw InputError(empty_message(
              what, "refs[" + std::to_string(i) + "][" + std::to_string(r - refs.refs_begin(i)) + "]", oov));
    }
  }
  const TokenVectors row_vectors(vectors, oov_vector);
  std::unique_ptr<UsedRows> used;
  if (which.greedy) used = std::make_unique<UsedRows>(vectors, oov_vector, hyp_rows, ref_rows, workers, interrupted);
  const std::vector<uint32_t>* hyp_ids = used ? &used->hyp_ids : nullptr;
  const std::vector<uint32_t>* ref_ids = used ? &used->ref_ids : nullptr;
  const bool keep_features = (which.average || which.extrema) && embedded.prepare_features(workers, interrupted);

  EmbeddingScores out;
  std::vector<double> average(n), extrema(n), greedy(n);
  parallel_for(
      n, workers,
      [&](size_t begin, size_t end) {
        SegmentScorer scorer(row_vectors, used.get(), keep_features ? &embedded : nullptr, vectors.dim(), which);
        SentenceTokens hyp;
        std::vector<SentenceTokens> ref_tokens;
        for (size_t i = begin; i < end; ++i) {
          sentence_tokens(hyps, hyp_rows, hyp_ids, i, hyp.rows, hyp.ids);
          const size_t n_refs = refs.num_refs(i);
          if (ref_tokens.size() < n_refs) ref_tokens.resize(n_refs);
          for (size_t k = 0; k < n_refs; ++k)
            sentence_tokens(refs.tokens(), ref_rows, ref_ids, refs.refs_begin(i) + k, ref_tokens[k].rows,
                            ref_tokens[k].ids);
          scorer.score(hyp, ref_tokens, refs.refs_begin(i), n_refs, average[i], extrema[i], greedy[i]);
        }
      },
      interrupted, 16);
  if (which.average) out.average = std::move(average);
  if (which.extrema) out.extrema = std::move(extrema);
  if (which.greedy) out.greedy = std::move(greedy);
  return out;
}

}  // namespace fastamfm
