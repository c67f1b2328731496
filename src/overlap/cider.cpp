#include "overlap/cider.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "common/errors.hpp"

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
  idf_.resize(std::min<uint64_t>(df_->num_segments(), 1 << 16) + 1);
  for (size_t d = 0; d < idf_.size(); ++d) idf_[d] = log_segments_ - std::log(std::max(1.0, static_cast<double>(d)));
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
          for (int order = 1; order <= orders; ++order)
            for (const NgramCount& e : refs_->ngrams().at(r, order)) df_->prefetch(e.key);
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
  const uint32_t df = df_->count(key);
  const double idf = df < idf_.size() ? idf_[df] : log_segments_ - std::log(static_cast<double>(df));
  return static_cast<double>(term_frequency) * idf;
}

namespace {

// The hypothesis' n-grams of all orders in a small open-addressing table (keys are
// well-mixed hashes and carry their order), so each reference n-gram finds its
// hypothesis weight with one probe instead of a merge per reference and order.
class HypothesisVector {
 public:
  void build(const NgramTable& ngrams, size_t i, int orders, const CiderReferenceModel& model) {
    size_t entries = 0;
    for (int order = 1; order <= orders; ++order) entries += ngrams.at(i, order).size;
    size_t capacity = 64;
    while (capacity < 2 * entries) capacity *= 2;
    keys_.assign(capacity, 0);
    weights_.assign(capacity, 0.0);
    used_.assign(capacity, 0);
    filter_.fill(0);
    norms_.assign(static_cast<size_t>(orders), 0.0);
    for (int order = 1; order <= orders; ++order)
      for (const NgramCount& e : ngrams.at(i, order)) model.prefetch_weight(e.key);
    for (int order = 1; order <= orders; ++order) {
      double sum_sq = 0;
      for (const NgramCount& e : ngrams.at(i, order)) {
        const double w = model.weight(e.count, e.key);
        size_t slot = e.key & (capacity - 1);
        while (used_[slot]) slot = (slot + 1) & (capacity - 1);
        keys_[slot] = e.key;
        weights_[slot] = w;
        used_[slot] = 1;
        filter_[filter_bit(e.key) / 64] |= uint64_t{1} << (filter_bit(e.key) % 64);
        sum_sq += w * w;
      }
      norms_[static_cast<size_t>(order - 1)] = std::sqrt(sum_sq);
    }
  }
  // The weight of key, or 0 when the hypothesis lacks it (it then adds nothing).
  double weight(NgramKey key) const {
    // Most reference n-grams are not in the hypothesis: one bit test rejects them.
    if (!(filter_[filter_bit(key) / 64] >> (filter_bit(key) % 64) & 1)) return 0.0;
    const size_t mask = keys_.size() - 1;
    for (size_t slot = key & mask; used_[slot]; slot = (slot + 1) & mask)
      if (keys_[slot] == key) return weights_[slot];
    return 0.0;
  }
  double norm(int order) const { return norms_[static_cast<size_t>(order - 1)]; }

 private:
  std::vector<NgramKey> keys_;
  std::vector<double> weights_;
  std::vector<uint8_t> used_;
  std::vector<double> norms_;
  // One bit per key (its top 11 bits): a reference n-gram whose bit is clear is absent.
  std::array<uint64_t, 32> filter_{};
  static size_t filter_bit(NgramKey key) { return static_cast<size_t>(key >> 53); }
};

}  // namespace

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
        HypothesisVector hyp;
        std::vector<double> per_order(static_cast<size_t>(orders));
        // The length penalty depends only on |delta|, an integer: computed once per value.
        std::vector<double> penalties;
        auto penalty_for = [&](double delta) {
          const size_t d = static_cast<size_t>(std::fabs(delta));
          if (d >= penalties.size()) penalties.resize(d + 1, -1.0);
          if (penalties[d] < 0) penalties[d] = std::pow(kE, -(delta * delta) / two_sigma_sq);
          return penalties[d];
        };
        for (size_t i = begin; i < end; ++i) {
          hyp.build(hyp_ngrams, i, orders, model);
          const double hyp_length = bigram_length(hyps.num_tokens(i), orders);
          std::fill(per_order.begin(), per_order.end(), 0.0);
          for (size_t r = refs.refs_begin(i); r < refs.refs_end(i); ++r) {
            const double delta = hyp_length - bigram_length(refs.tokens().num_tokens(r), orders);
            const double penalty = penalty_for(delta);
            for (int order = 1; order <= orders; ++order) {
              // Clipped dot product over the n-grams both texts hold, in key order.
              const NgramSpan ref = refs.ngrams().at(r, order);
              const double* ref_w = model.weights(r, order);
              double value = 0;
              for (size_t b = 0; b < ref.size; ++b) {
                const double hyp_w = hyp.weight(ref.data[b].key);
                if (hyp_w != 0) value += std::min(hyp_w, ref_w[b]) * ref_w[b];
              }
              const double ref_norm = model.norm(r, order);
              if (hyp.norm(order) != 0 && ref_norm != 0) value /= hyp.norm(order) * ref_norm;
              per_order[static_cast<size_t>(order - 1)] += value * penalty;
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
