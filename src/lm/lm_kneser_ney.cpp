#include "lm/lm_kneser_ney.hpp"

#include <cmath>

#include "lm/lm_estimation.hpp"

namespace fastamfm {

KneserNeyDiscounts kneser_ney_discounts(const std::array<uint64_t, 5>& t, const std::array<double, 3>& fallback) {
  KneserNeyDiscounts out;
  bool ok = t[1] > 0 && t[2] > 0 && t[3] > 0;
  if (ok) {
    const double y = static_cast<double>(t[1]) / (static_cast<double>(t[1]) + 2.0 * static_cast<double>(t[2]));
    for (int k = 1; k <= 3; ++k) {
      out.d[k] = k - (k + 1) * y * static_cast<double>(t[k + 1]) / static_cast<double>(t[k]);
      if (!(out.d[k] >= 0.0 && out.d[k] <= k)) ok = false;
    }
  }
  if (!ok) {
    out.d = {0.0, fallback[0], fallback[1], fallback[2]};
    out.fallback = true;
  }
  return out;
}

namespace {
// Adjusted counts of every order (see the header).
std::vector<std::vector<uint64_t>> adjusted_counts(const NgramCounts& counts, const std::vector<GramIndex>& index,
                                                   int workers) {
  const size_t order = counts.orders.size();
  std::vector<std::vector<uint64_t>> adjusted(order);
  adjusted[order - 1] = counts.orders[order - 1].counts;
  parallel_parts(order - 1, workers, [&](size_t n) {
    const GramArray& grams = counts.orders[n];
    auto& a = adjusted[n];
    a.assign(grams.size(), 0);
    if (n > 0)
      for (size_t i = 0; i < grams.size(); ++i)
        if (grams.at(i)[0] == kLmBos) a[i] = grams.counts[i];
    const GramArray& longer = counts.orders[n + 1];
    for (size_t j = 0; j < longer.size(); ++j) {
      const size_t pos = index[n].find(grams, longer.at(j) + 1);
      if (grams.at(pos)[0] != kLmBos) ++a[pos];
    }
  });
  return adjusted;
}
}  // namespace

LmContent estimate_kneser_ney(const NgramCounts& counts, const std::array<double, 3>& fallback, int workers,
                              std::vector<KneserNeyDiscounts>& discounts) {
  const size_t order = counts.orders.size();
  const std::vector<GramIndex> index = index_orders(counts.orders, workers);
  const auto adjusted = adjusted_counts(counts, index, workers);

  discounts.clear();
  for (size_t n = 0; n < order; ++n) {
    std::array<uint64_t, 5> t{};
    for (uint64_t a : adjusted[n])
      if (a >= 1 && a <= 4) ++t[a];
    discounts.push_back(kneser_ney_discounts(t, fallback));
  }

  // Uniform base distribution: every word but <s>, which is never predicted.
  const double uniform = 1.0 / static_cast<double>(counts.words.size() - 1);
  std::vector<std::vector<double>> prob(order);
  std::vector<std::vector<double>> backoff(order);
  for (size_t n = 0; n < order; ++n) {
    const GramArray& grams = counts.orders[n];
    const KneserNeyDiscounts& disc = discounts[n];
    prob[n].assign(grams.size(), 0.0);
    backoff[n].assign(grams.size(), 1.0);
    parallel_context_groups(grams, workers, [&](size_t begin, size_t end) {
      double denominator = 0.0, mass = 0.0;
      for (size_t i = begin; i < end; ++i) {
        denominator += static_cast<double>(adjusted[n][i]);
        mass += disc.apply(adjusted[n][i]);
      }
      const double gamma = mass / denominator;
      if (n > 0) backoff[n - 1][index[n - 1].find(counts.orders[n - 1], grams.at(begin))] = gamma;
      for (size_t i = begin; i < end; ++i) {
        const double lower =
            n == 0 ? uniform : prob[n - 1][index[n - 1].find(counts.orders[n - 1], grams.at(i) + 1)];
        const double a = static_cast<double>(adjusted[n][i]);
        prob[n][i] = (a - disc.apply(adjusted[n][i])) / denominator + gamma * lower;
      }
    });
  }
  prob[0][kLmBos] = 1.0;  // lmplz: <s> scores log10 0 so that it can be scored explicitly

  LmContent out;
  out.words = counts.words;
  for (size_t n = 0; n < order; ++n) {
    LmOrderTable table;
    table.ids = counts.orders[n].ids;
    table.log10_prob.reserve(prob[n].size());
    table.log10_backoff.reserve(prob[n].size());
    for (size_t i = 0; i < prob[n].size(); ++i) {
      table.log10_prob.push_back(to_log10(prob[n][i]));
      table.log10_backoff.push_back(n + 1 < order ? backoff_to_log10(backoff[n][i]) : 0.0f);
    }
    out.orders.push_back(std::move(table));
  }
  return out;
}

}  // namespace fastamfm
