#include "lm/lm_katz.hpp"

#include <cmath>

#include "common/errors.hpp"
#include "lm/lm_estimation.hpp"

namespace fastamfm {

namespace {
constexpr double kProbEpsilon = 3e-6;  // SRILM's Prob_Epsilon
constexpr double kNoMass = 1e-12;      // left-over mass below this is rounding noise
}

GoodTuringDiscounts good_turing_discounts(const std::vector<uint64_t>& n, uint64_t gtmin, uint64_t gtmax) {
  GoodTuringDiscounts out;
  out.min_count = gtmin;
  uint64_t k = n[1] == 0 ? 0 : gtmax;
  while (k > 0 && n[k + 1] == 0) --k;
  out.max_count = k;
  out.coeff.assign(k + 1, 1.0);
  if (k == 0) return out;
  const double common = static_cast<double>(k + 1) * static_cast<double>(n[k + 1]) / static_cast<double>(n[1]);
  for (uint64_t r = 1; r <= k; ++r) {
    if (n[r] == 0) continue;
    const double coeff0 = static_cast<double>(r + 1) * static_cast<double>(n[r + 1]) /
                          (static_cast<double>(r) * static_cast<double>(n[r]));
    const double coeff = (coeff0 - common) / (1.0 - common);
    if (std::isfinite(coeff) && coeff > kProbEpsilon && coeff0 <= 1.0) out.coeff[r] = coeff;
  }
  return out;
}

std::vector<uint64_t> default_gtmin(int order) {
  std::vector<uint64_t> v(static_cast<size_t>(order), 2);
  for (int i = 0; i < order && i < 2; ++i) v[i] = 1;
  return v;
}

std::vector<uint64_t> default_gtmax(int order) {
  std::vector<uint64_t> v(static_cast<size_t>(order), 7);
  v[0] = 1;
  return v;
}

LmContent estimate_katz(const NgramCounts& counts, const std::vector<uint64_t>& gtmin,
                        const std::vector<uint64_t>& gtmax, int workers, std::vector<GoodTuringDiscounts>& discounts) {
  const size_t order = counts.orders.size();
  if (gtmin.size() != order || gtmax.size() != order)
    throw InputError("gtmin and gtmax need one value per order (" + std::to_string(order) + ")");
  for (size_t n = 0; n < order; ++n) {
    if (gtmin[n] < 1) throw InputError("gtmin values must be >= 1");
    if (n > 0 && gtmin[n] < gtmin[n - 1])
      throw InputError("gtmin must not decrease with the order (every kept n-gram needs its kept prefix and suffix)");
  }

  discounts.clear();
  for (size_t n = 0; n < order; ++n) {
    std::vector<uint64_t> count_of_counts(gtmax[n] + 2, 0);
    const GramArray& grams = counts.orders[n];
    for (size_t i = 0; i < grams.size(); ++i) {
      if (n == 0 && grams.at(i)[0] == kLmBos) continue;
      if (grams.counts[i] >= 1 && grams.counts[i] < count_of_counts.size()) ++count_of_counts[grams.counts[i]];
    }
    discounts.push_back(good_turing_discounts(count_of_counts, gtmin[n], gtmax[n]));
  }

  const std::vector<GramIndex> index = index_orders(counts.orders, workers);
  std::vector<std::vector<double>> prob(order), backoff(order);
  std::vector<std::vector<uint8_t>> kept(order);  // bytes: groups are written concurrently

  // Unigrams.
  {
    const GramArray& uni = counts.orders[0];
    prob[0].assign(uni.size(), 0.0);
    backoff[0].assign(uni.size(), 1.0);
    kept[0].assign(uni.size(), 1);
    double total = 0.0;
    for (size_t w = 0; w < uni.size(); ++w)
      if (w != kLmBos) total += static_cast<double>(uni.counts[w]);
    double used = 0.0;
    size_t zero_words = 0;
    for (size_t w = 0; w < uni.size(); ++w) {
      if (w == kLmBos) continue;
      const double c = static_cast<double>(uni.counts[w]);
      prob[0][w] = c * discounts[0].discount(uni.counts[w]) / total;
      used += prob[0][w];
      if (prob[0][w] == 0.0) ++zero_words;
    }
    const double leftover = 1.0 - used;
    if (leftover > kNoMass) {
      const double share = leftover / static_cast<double>(zero_words > 0 ? zero_words : uni.size() - 1);
      for (size_t w = 0; w < uni.size(); ++w)
        if (w != kLmBos && (zero_words == 0 || prob[0][w] == 0.0)) prob[0][w] += share;
    }
  }

  for (size_t n = 1; n < order; ++n) {
    const GramArray& grams = counts.orders[n];
    const GramArray& lower = counts.orders[n - 1];
    const GoodTuringDiscounts& gt = discounts[n];
    prob[n].assign(grams.size(), 0.0);
    backoff[n].assign(grams.size(), 1.0);
    kept[n].assign(grams.size(), 0);
    parallel_context_groups(grams, workers, [&](size_t begin, size_t end) {
      double total = 0.0;
      for (size_t i = begin; i < end; ++i) total += static_cast<double>(grams.counts[i]);
      double used = 0.0;
      bool any = false;
      for (int attempt = 0; attempt < 2; ++attempt) {
        used = 0.0;
        any = false;
        for (size_t i = begin; i < end; ++i) {
          const double d = gt.discount(grams.counts[i]);
          prob[n][i] = d * static_cast<double>(grams.counts[i]) / total;
          kept[n][i] = d > 0.0;
          any = any || d > 0.0;
          used += prob[n][i];
        }
        if (1.0 - used > kNoMass) break;
        total += 1.0;  // no mass left for unseen words: make room, as SRILM does
      }
      if (!any) return;
      double lower_used = 0.0;
      for (size_t i = begin; i < end; ++i)
        if (kept[n][i]) lower_used += prob[n - 1][index[n - 1].find(lower, grams.at(i) + 1)];
      const double denominator = 1.0 - lower_used;
      double bow = (1.0 - used) / denominator;
      if (denominator < kProbEpsilon) {
        // The lower order has no mass left for the other words: like SRILM, scale
        // this context's probabilities to sum to 1 and never back off.
        for (size_t i = begin; i < end; ++i) prob[n][i] /= used;
        bow = 0.0;
      }
      backoff[n - 1][index[n - 1].find(lower, grams.at(begin))] = bow;
    });
  }

  LmContent out;
  out.words = counts.words;
  for (size_t n = 0; n < order; ++n) {
    const GramArray& grams = counts.orders[n];
    LmOrderTable table;
    for (size_t i = 0; i < grams.size(); ++i) {
      if (!kept[n][i]) continue;
      table.ids.insert(table.ids.end(), grams.at(i), grams.at(i) + grams.n);
      table.log10_prob.push_back(n == 0 && i == kLmBos ? kLog10Zero : to_log10(prob[n][i]));
      table.log10_backoff.push_back(n + 1 < order ? backoff_to_log10(backoff[n][i]) : 0.0f);
    }
    out.orders.push_back(std::move(table));
  }
  return out;
}

}  // namespace fastamfm
