#include "cider.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "errors.hpp"

namespace fastamfm {

namespace {
constexpr double kE = 2.718281828459045;  // pycocoevalcap raises np.e to a power rather than calling exp

// pycocoevalcap's "length": the number of bigrams (the tf of order-2 n-grams summed).
double bigram_length(size_t n_tokens, int max_order) {
  return max_order >= 2 && n_tokens >= 2 ? static_cast<double>(n_tokens - 1) : 0.0;
}
}  // namespace

CiderReferenceModel::CiderReferenceModel(std::shared_ptr<const ReferenceSet> refs,
                                         std::shared_ptr<const DocumentFrequency> df, int workers,
                                         const InterruptCheck& interrupted)
    : refs_(std::move(refs)), df_(std::move(df)) {
  if (df_->num_segments() == 0) throw InputError("cider: the document frequencies hold no segment");
  if (refs_->max_order() < df_->max_order())
    throw InputError("cider: needs n-grams up to order " + std::to_string(df_->max_order()) +
                     " but the references hold up to " + std::to_string(refs_->max_order()));
  log_segments_ = std::log(static_cast<double>(df_->num_segments()));
  const size_t n_refs = refs_->num_references();
  const int orders = max_order();
  offsets_.assign(n_refs * static_cast<size_t>(orders) + 1, 0);
  for (size_t r = 0; r < n_refs; ++r)
    for (int order = 1; order <= orders; ++order)
      offsets_[slot(r, order) + 1] = offsets_[slot(r, order)] + refs_->ngrams().at(r, order).size;
  weights_.resize(offsets_.back());
  norms_.resize(n_refs * static_cast<size_t>(orders));
  parallel_for(
      n_refs, workers,
      [&](size_t begin, size_t end) {
        for (size_t r = begin; r < end; ++r) {
          for (int order = 1; order <= orders; ++order) {
            const NgramSpan span = refs_->ngrams().at(r, order);
            double* w = weights_.data() + offsets_[slot(r, order)];
            double sum_sq = 0;
            for (size_t j = 0; j < span.size; ++j) {
              w[j] = weight(span.data[j].count, span.data[j].key);
              sum_sq += w[j] * w[j];
            }
            norms_[slot(r, order)] = std::sqrt(sum_sq);
          }
        }
      },
      interrupted, 1024);
}

double CiderReferenceModel::weight(uint32_t term_frequency, NgramKey key) const {
  const double df = std::max(1.0, static_cast<double>(df_->count(key)));
  return static_cast<double>(term_frequency) * (log_segments_ - std::log(df));
}

std::vector<double> cider_d_scores(const TokenizedBatch& hyps, const NgramTable& hyp_ngrams,
                                   const CiderReferenceModel& model, double sigma, int workers,
                                   const InterruptCheck& interrupted) {
  const ReferenceSet& refs = model.references();
  const size_t n = hyps.size();
  if (n != refs.num_segments())
    throw InputError("cider: " + std::to_string(n) + " hypotheses but " + std::to_string(refs.num_segments()) +
                     " reference segments");
  const int orders = model.max_order();
  if (hyp_ngrams.max_order() < orders)
    throw InputError("cider: hypothesis n-grams counted up to order " + std::to_string(hyp_ngrams.max_order()) +
                     ", need " + std::to_string(orders));
  if (!(sigma > 0) || !std::isfinite(sigma)) throw InputError("cider: sigma must be a positive number");
  const double two_sigma_sq = 2 * (sigma * sigma);
  std::vector<double> scores(n);
  parallel_for(
      n, workers,
      [&](size_t begin, size_t end) {
        std::vector<double> hyp_weights, hyp_norms(static_cast<size_t>(orders)), per_order(static_cast<size_t>(orders));
        std::vector<uint64_t> hyp_offsets(static_cast<size_t>(orders) + 1);
        for (size_t i = begin; i < end; ++i) {
          // The hypothesis vector, order after order.
          hyp_weights.clear();
          for (int order = 1; order <= orders; ++order) {
            hyp_offsets[static_cast<size_t>(order - 1)] = hyp_weights.size();
            double sum_sq = 0;
            for (const NgramCount& e : hyp_ngrams.at(i, order)) {
              hyp_weights.push_back(model.weight(e.count, e.key));
              sum_sq += hyp_weights.back() * hyp_weights.back();
            }
            hyp_norms[static_cast<size_t>(order - 1)] = std::sqrt(sum_sq);
          }
          hyp_offsets[static_cast<size_t>(orders)] = hyp_weights.size();
          const double hyp_length = bigram_length(hyps.num_tokens(i), orders);

          std::fill(per_order.begin(), per_order.end(), 0.0);
          for (size_t r = refs.refs_begin(i); r < refs.refs_end(i); ++r) {
            const double delta = hyp_length - bigram_length(refs.tokens().num_tokens(r), orders);
            const double penalty = std::pow(kE, -(delta * delta) / two_sigma_sq);
            for (int order = 1; order <= orders; ++order) {
              const size_t k = static_cast<size_t>(order - 1);
              const NgramSpan hyp = hyp_ngrams.at(i, order);
              const double* hyp_w = hyp_weights.data() + hyp_offsets[k];
              const NgramSpan ref = refs.ngrams().at(r, order);
              const double* ref_w = model.weights(r, order);
              // Clipped dot product over the n-grams both texts hold.
              double value = 0;
              size_t a = 0, b = 0;
              while (a < hyp.size && b < ref.size) {
                if (hyp.data[a].key < ref.data[b].key) {
                  ++a;
                } else if (ref.data[b].key < hyp.data[a].key) {
                  ++b;
                } else {
                  value += std::min(hyp_w[a], ref_w[b]) * ref_w[b];
                  ++a;
                  ++b;
                }
              }
              const double ref_norm = model.norm(r, order);
              if (hyp_norms[k] != 0 && ref_norm != 0) value /= hyp_norms[k] * ref_norm;
              per_order[k] += value * penalty;
            }
          }
          double mean = 0;
          for (double v : per_order) mean += v;
          mean /= orders;
          mean /= static_cast<double>(refs.num_refs(i));
          scores[i] = mean * 10.0;
        }
      },
      interrupted, 64);
  return scores;
}

}  // namespace fastamfm
