#include "lm/lm_pruning.hpp"

#include <cmath>

#include "lm/lm_estimation.hpp"
#include "lm/lm_grams.hpp"

namespace fastamfm {

namespace {

class PrunableModel {
 public:
  explicit PrunableModel(LmContent& content) : content_(content) {
    for (auto& table : content.orders) {
      GramArray grams;
      grams.n = static_cast<int>(grams_.size()) + 1;
      grams.ids = table.ids;
      grams.counts.assign(table.size(), 0);
      index_.emplace_back(grams);
      alive_.emplace_back(table.size(), true);
      grams_.push_back(std::move(grams));
    }
  }

  int order() const { return static_cast<int>(grams_.size()); }
  const GramArray& grams(int n) const { return grams_[n - 1]; }
  bool alive(int n, size_t i) const { return alive_[n - 1][i]; }
  void remove(int n, size_t i) { alive_[n - 1][i] = false; }
  double prob(int n, size_t i) const { return std::pow(10.0, content_.orders[n - 1].log10_prob[i]); }
  double backoff(int n, size_t i) const { return std::pow(10.0, content_.orders[n - 1].log10_backoff[i]); }
  void set_backoff(int n, size_t i, double value) { content_.orders[n - 1].log10_backoff[i] = backoff_to_log10(value); }

  size_t find(const uint32_t* gram, int n) const {
    const size_t i = index_[n - 1].find(grams_[n - 1], gram);
    return i != GramIndex::kMissing && alive_[n - 1][i] ? i : GramIndex::kMissing;
  }

  // p(w | context[0..len)) by ARPA backoff, using the n-grams still alive.
  double conditional(const uint32_t* context, int len, uint32_t word) const {
    if (len >= order()) return conditional(context + (len - order() + 1), order() - 1, word);
    uint32_t gram[kMaxLmOrder];
    double bow = 1.0;
    for (int start = 0; start <= len; ++start) {
      const int n = len - start + 1;
      std::copy(context + start, context + len, gram);
      gram[n - 1] = word;
      const size_t i = find(gram, n);
      if (i != GramIndex::kMissing) return bow * prob(n, i);
      const size_t c = n > 1 ? find(context + start, n - 1) : GramIndex::kMissing;
      if (c != GramIndex::kMissing) bow *= backoff(n - 1, c);
    }
    return 0.0;
  }

  // P(h) by the chain rule; a leading <s> is certain.
  double context_probability(const uint32_t* h, int len) const {
    double p = 1.0;
    for (int i = h[0] == kLmBos ? 1 : 0; i < len; ++i) p *= conditional(h, i, h[i]);
    return p;
  }

  // Backoff weight of the context of the n-grams [begin, end) from those alive.
  void recompute_backoff(int n, size_t begin, size_t end) {
    const uint32_t* h = grams_[n - 1].at(begin);
    const size_t context = find(h, n - 1);
    if (context == GramIndex::kMissing) return;
    double kept = 0.0, kept_lower = 0.0;
    for (size_t i = begin; i < end; ++i) {
      if (!alive(n, i)) continue;
      kept += prob(n, i);
      kept_lower += conditional(h + 1, n - 2, grams_[n - 1].at(i)[n - 1]);
    }
    set_backoff(n - 1, context, kept_lower < 1.0 ? (1.0 - kept) / (1.0 - kept_lower) : 0.0);
  }

  void compact() {
    for (size_t k = 0; k < grams_.size(); ++k) {
      LmOrderTable& table = content_.orders[k];
      const size_t n = k + 1;
      size_t out = 0;
      for (size_t i = 0; i < table.size(); ++i) {
        if (!alive_[k][i]) continue;
        std::copy(table.ids.begin() + i * n, table.ids.begin() + (i + 1) * n, table.ids.begin() + out * n);
        table.log10_prob[out] = table.log10_prob[i];
        table.log10_backoff[out] = table.log10_backoff[i];
        ++out;
      }
      table.ids.resize(out * n);
      table.log10_prob.resize(out);
      table.log10_backoff.resize(out);
    }
  }

 private:
  LmContent& content_;
  std::vector<GramArray> grams_;
  std::vector<GramIndex> index_;
  std::vector<std::vector<bool>> alive_;
};

}  // namespace

void prune_by_relative_entropy(LmContent& content, double threshold) {
  PrunableModel model(content);
  for (int n = model.order(); n >= 2; --n) {
    const GramArray& grams = model.grams(n);
    // Contexts of kept (n+1)-grams are never removed.
    std::vector<bool> is_context(grams.size(), false);
    if (n < model.order()) {
      const GramArray& longer = model.grams(n + 1);
      for (size_t j = 0; j < longer.size(); ++j)
        if (model.alive(n + 1, j)) {
          const size_t prefix = model.find(longer.at(j), n);
          if (prefix != GramIndex::kMissing) is_context[prefix] = true;
        }
    }
    std::vector<size_t> doomed;
    for_each_context_group(grams, [&](size_t begin, size_t end) {
      const uint32_t* h = grams.at(begin);
      if (model.find(h, n - 1) == GramIndex::kMissing) return;  // estimators always keep contexts
      double used = 0.0, lower_used = 0.0;
      for (size_t i = begin; i < end; ++i) {
        used += model.prob(n, i);
        lower_used += model.conditional(h + 1, n - 2, grams.at(i)[n - 1]);
      }
      const double left = 1.0 - used;
      const double bow = left / (1.0 - lower_used);
      const double p_context = model.context_probability(h, n - 1);
      doomed.clear();
      for (size_t i = begin; i < end; ++i) {
        if (is_context[i]) continue;
        const double p = model.prob(n, i);
        const double lower = model.conditional(h + 1, n - 2, grams.at(i)[n - 1]);
        const double new_bow = (left + p) / (1.0 - lower_used + lower);
        const double delta = -p_context * (p * (std::log(lower) + std::log(new_bow) - std::log(p)) +
                                           (left > 0.0 ? left * (std::log(new_bow) - std::log(bow)) : 0.0));
        if (std::exp(delta) - 1.0 < threshold) doomed.push_back(i);
      }
      for (size_t i : doomed) model.remove(n, i);
      model.recompute_backoff(n, begin, end);
    });
  }
  // Pruning a lower order changes the distributions that higher contexts back
  // off to, so every backoff weight is recomputed, lowest order first.
  for (int n = 2; n <= model.order(); ++n)
    for_each_context_group(model.grams(n), [&](size_t begin, size_t end) { model.recompute_backoff(n, begin, end); });
  model.compact();
}

}  // namespace fastamfm
