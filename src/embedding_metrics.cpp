#include "embedding_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "dense_dot.hpp"
#include "errors.hpp"

namespace fastamfm {

OovPolicy parse_oov_policy(std::string_view name) {
  if (name == "mean") return OovPolicy::Mean;
  if (name == "skip") return OovPolicy::Skip;
  if (name == "zero") return OovPolicy::Zero;
  throw InputError("oov must be 'mean', 'skip' or 'zero', got '" + std::string(name) + "'");
}

EmptyPolicy parse_empty_policy(std::string_view name) {
  if (name == "error") return EmptyPolicy::Error;
  if (name == "zero") return EmptyPolicy::Zero;
  throw InputError("empty must be 'error' or 'zero', got '" + std::string(name) + "'");
}

namespace {

constexpr uint32_t kSkipped = UINT32_MAX;

// The row of every token: a vocabulary row, `unknown` for a word without a vector
// (the pseudo-row holding the OOV vector), or kSkipped.
std::vector<uint32_t> lookup_rows(const WordVectors& vectors, const TokenizedBatch& batch, uint32_t unknown,
                                  int workers, const InterruptCheck& interrupted) {
  std::vector<uint32_t> rows(batch.total_tokens());
  parallel_for(
      batch.size(), workers,
      [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) {
          const uint64_t first = batch.first_token(i);
          const TokenId* ids = batch.ids(i);
          for (size_t j = 0; j < batch.num_tokens(i); ++j) {
            const uint32_t r = vectors.find(ids[j], batch.token_at(first + j));
            rows[first + j] = r == WordVectors::kNotFound ? unknown : r;
          }
        }
      },
      interrupted, 256);
  return rows;
}

// The kept token rows of sentence i.
void sentence_rows(const TokenizedBatch& batch, const std::vector<uint32_t>& rows, size_t i,
                   std::vector<uint32_t>& out) {
  out.clear();
  const uint64_t first = batch.first_token(i);
  for (size_t j = 0; j < batch.num_tokens(i); ++j)
    if (rows[first + j] != kSkipped) out.push_back(rows[first + j]);
}

bool has_kept_token(const TokenizedBatch& batch, const std::vector<uint32_t>& rows, size_t i) {
  const uint64_t first = batch.first_token(i);
  for (size_t j = 0; j < batch.num_tokens(i); ++j)
    if (rows[first + j] != kSkipped) return true;
  return false;
}

double cosine(const double* a, double norm_a, const double* b, double norm_b, size_t dim) {
  if (norm_a == 0.0 || norm_b == 0.0) return 0.0;
  return dense_dot(a, b, dim) / (norm_a * norm_b);
}

// The distinct vectors of a few sentences, gathered as float64 so the kernels
// read contiguous memory; tokens refer to them by local index.
class LocalVectors {
 public:
  LocalVectors(const WordVectors& vectors, const double* oov_vector) : vectors_(vectors), oov_(oov_vector) {}

  void gather(const std::vector<uint32_t>& token_rows) {
    rows_ = token_rows;
    std::sort(rows_.begin(), rows_.end());
    rows_.erase(std::unique(rows_.begin(), rows_.end()), rows_.end());
    const size_t dim = vectors_.dim();
    values_.resize(rows_.size() * dim);
    norms_.resize(rows_.size());
    for (size_t k = 0; k < rows_.size(); ++k) {
      double* out = values_.data() + k * dim;
      if (rows_[k] < vectors_.size()) {
        const float* in = vectors_.row(rows_[k]);
        for (size_t j = 0; j < dim; ++j) out[j] = in[j];
      } else {
        std::copy(oov_, oov_ + dim, out);
      }
      norms_[k] = std::sqrt(dense_dot(out, out, dim));
    }
  }
  uint32_t local(uint32_t row) const {
    return static_cast<uint32_t>(std::lower_bound(rows_.begin(), rows_.end(), row) - rows_.begin());
  }
  void to_local(const std::vector<uint32_t>& token_rows, std::vector<uint32_t>& out) const {
    out.resize(token_rows.size());
    for (size_t t = 0; t < token_rows.size(); ++t) out[t] = local(token_rows[t]);
  }
  size_t size() const { return rows_.size(); }
  const double* vec(uint32_t k) const { return values_.data() + size_t{k} * vectors_.dim(); }
  double norm(uint32_t k) const { return norms_[k]; }

 private:
  const WordVectors& vectors_;
  const double* oov_;
  std::vector<uint32_t> rows_;
  std::vector<double> values_;
  std::vector<double> norms_;
};

// Sentence-level vectors of Embedding Average (the sum) and Vector Extrema.
struct SentenceFeatures {
  std::vector<double> sum, extrema;
  double sum_norm = 0, extrema_norm = 0;

  void compute(const LocalVectors& set, const std::vector<uint32_t>& tokens, size_t dim, bool average,
               bool extrema_wanted) {
    if (average) {
      sum.assign(dim, 0.0);
      for (uint32_t t : tokens) {
        const double* v = set.vec(t);
        for (size_t j = 0; j < dim; ++j) sum[j] += v[j];
      }
      sum_norm = std::sqrt(dense_dot(sum.data(), sum.data(), dim));
    }
    if (extrema_wanted) {
      extrema.resize(dim);
      const double* first = set.vec(tokens[0]);
      std::vector<double>& hi = extrema;
      lo_.assign(first, first + dim);
      hi.assign(first, first + dim);
      for (size_t t = 1; t < tokens.size(); ++t) {
        const double* v = set.vec(tokens[t]);
        for (size_t j = 0; j < dim; ++j) {
          lo_[j] = std::min(lo_[j], v[j]);
          hi[j] = std::max(hi[j], v[j]);
        }
      }
      // nlg-eval's rule, including its 0 for a dimension whose minimum is exactly 0.
      for (size_t j = 0; j < dim; ++j) {
        const double mx = hi[j], mn = lo_[j];
        hi[j] = mn > 0 ? mx : (mn < 0 ? (mx > -mn ? mx : mn) : 0.0);
      }
      extrema_norm = std::sqrt(dense_dot(hi.data(), hi.data(), dim));
    }
  }

 private:
  std::vector<double> lo_;
};

// Scores one hypothesis against its references; holds the scratch space of a thread.
class SegmentScorer {
 public:
  SegmentScorer(const WordVectors& vectors, const double* oov_vector, EmbeddingMetricSelection which)
      : dim_(vectors.dim()), which_(which), hyp_set_(vectors, oov_vector), ref_set_(vectors, oov_vector) {}

  // hyp: kept token rows; refs: kept token rows of each reference.
  void score(const std::vector<uint32_t>& hyp, const std::vector<std::vector<uint32_t>>& refs, size_t n_refs,
             double& average, double& extrema, double& greedy) {
    average = extrema = greedy = 0.0;
    if (hyp.empty()) return;  // EmptyPolicy::Zero
    hyp_set_.gather(hyp);
    hyp_set_.to_local(hyp, hyp_local_);
    all_ref_rows_.clear();
    for (size_t k = 0; k < n_refs; ++k) all_ref_rows_.insert(all_ref_rows_.end(), refs[k].begin(), refs[k].end());
    ref_set_.gather(all_ref_rows_);
    hyp_features_.compute(hyp_set_, hyp_local_, dim_, which_.average, which_.extrema);
    if (which_.greedy) fill_similarities();
    bool first = true;
    for (size_t k = 0; k < n_refs; ++k) {
      double avg = 0, ext = 0, gm = 0;
      if (!refs[k].empty()) {
        ref_set_.to_local(refs[k], ref_local_);
        ref_features_.compute(ref_set_, ref_local_, dim_, which_.average, which_.extrema);
        if (which_.average)
          avg = cosine(hyp_features_.sum.data(), hyp_features_.sum_norm, ref_features_.sum.data(),
                       ref_features_.sum_norm, dim_);
        if (which_.extrema)
          ext = cosine(hyp_features_.extrema.data(), hyp_features_.extrema_norm, ref_features_.extrema.data(),
                       ref_features_.extrema_norm, dim_);
        if (which_.greedy) gm = greedy_match();
      }
      average = first ? avg : std::max(average, avg);
      extrema = first ? ext : std::max(extrema, ext);
      greedy = first ? gm : std::max(greedy, gm);
      first = false;
    }
  }

 private:
  // Cosine of every distinct hypothesis vector with every distinct reference vector.
  void fill_similarities() {
    const size_t nh = hyp_set_.size(), nr = ref_set_.size();
    sims_.resize(nh * nr);
    for (uint32_t h = 0; h < nh; ++h)
      for (uint32_t r = 0; r < nr; ++r)
        sims_[h * nr + r] = cosine(hyp_set_.vec(h), hyp_set_.norm(h), ref_set_.vec(r), ref_set_.norm(r), dim_);
  }

  // (mean over hypothesis tokens of the best reference token
  //  + mean over reference tokens of the best hypothesis token) / 2
  double greedy_match() {
    const size_t nr = ref_set_.size();
    best_for_ref_.assign(ref_local_.size(), -INFINITY);
    double hyp_side = 0;
    for (uint32_t h : hyp_local_) {
      const double* row = sims_.data() + size_t{h} * nr;
      double best = -INFINITY;
      for (size_t q = 0; q < ref_local_.size(); ++q) {
        const double s = row[ref_local_[q]];
        best = std::max(best, s);
        best_for_ref_[q] = std::max(best_for_ref_[q], s);
      }
      hyp_side += best;
    }
    double ref_side = 0;
    for (double b : best_for_ref_) ref_side += b;
    return (hyp_side / static_cast<double>(hyp_local_.size()) +
            ref_side / static_cast<double>(ref_local_.size())) / 2.0;
  }

  size_t dim_;
  EmbeddingMetricSelection which_;
  LocalVectors hyp_set_, ref_set_;
  std::vector<uint32_t> hyp_local_, ref_local_, all_ref_rows_;
  SentenceFeatures hyp_features_, ref_features_;
  std::vector<double> sims_, best_for_ref_;
};

std::string empty_message(const std::string& what, const std::string& text, OovPolicy oov) {
  return what + ": " + text +
         (oov == OovPolicy::Skip ? " has no word with a vector (oov='skip' dropped them all)" : " has no tokens") +
         "; nlg-eval fails on such texts -- pass empty='zero' to score them 0";
}

}  // namespace

EmbeddingScores score_embedding_metrics(const WordVectors& vectors, OovPolicy oov, const TokenizedBatch& hyps,
                                        const ReferenceSet& refs, EmbeddingMetricSelection which, EmptyPolicy empty,
                                        const std::string& what, int workers, const InterruptCheck& interrupted) {
  const size_t n = hyps.size();
  if (n != refs.num_segments())
    throw InputError(what + ": " + std::to_string(n) + " hypotheses but " + std::to_string(refs.num_segments()) +
                     " reference segments");
  resolve_workers(workers);
  const uint32_t unknown = oov == OovPolicy::Skip ? kSkipped : static_cast<uint32_t>(vectors.size());
  const std::vector<double> zeros(vectors.dim(), 0.0);
  const double* oov_vector = oov == OovPolicy::Mean ? vectors.mean() : zeros.data();

  const std::vector<uint32_t> hyp_rows = lookup_rows(vectors, hyps, unknown, workers, interrupted);
  const std::vector<uint32_t> ref_rows = lookup_rows(vectors, refs.tokens(), unknown, workers, interrupted);
  if (empty == EmptyPolicy::Error) {
    for (size_t i = 0; i < n; ++i) {
      if (!has_kept_token(hyps, hyp_rows, i)) throw InputError(empty_message(what, "hyps[" + std::to_string(i) + "]", oov));
      for (size_t r = refs.refs_begin(i); r < refs.refs_end(i); ++r)
        if (!has_kept_token(refs.tokens(), ref_rows, r))
          throw InputError(empty_message(
              what, "refs[" + std::to_string(i) + "][" + std::to_string(r - refs.refs_begin(i)) + "]", oov));
    }
  }

  EmbeddingScores out;
  std::vector<double> average(n), extrema(n), greedy(n);
  parallel_for(
      n, workers,
      [&](size_t begin, size_t end) {
        SegmentScorer scorer(vectors, oov_vector, which);
        std::vector<uint32_t> hyp;
        std::vector<std::vector<uint32_t>> ref_tokens;
        for (size_t i = begin; i < end; ++i) {
          sentence_rows(hyps, hyp_rows, i, hyp);
          const size_t n_refs = refs.num_refs(i);
          if (ref_tokens.size() < n_refs) ref_tokens.resize(n_refs);
          for (size_t k = 0; k < n_refs; ++k) sentence_rows(refs.tokens(), ref_rows, refs.refs_begin(i) + k, ref_tokens[k]);
          scorer.score(hyp, ref_tokens, n_refs, average[i], extrema[i], greedy[i]);
        }
      },
      interrupted, 16);
  if (which.average) out.average = std::move(average);
  if (which.extrema) out.extrema = std::move(extrema);
  if (which.greedy) out.greedy = std::move(greedy);
  return out;
}

}  // namespace fastamfm
