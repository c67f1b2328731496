// Interpolated modified Kneser-Ney estimation as KenLM's lmplz computes it
// (Chen & Goodman 1998, with lmplz's conventions):
// - adjusted counts a(): raw counts for the highest order and for n-grams that
//   start with <s>; for other lower-order n-grams the number of distinct words
//   seen to their left; the unigram <s> gets 0.
// - three discounts per order from the counts-of-counts t_k of adjusted counts:
//   Y = t1/(t1 + 2 t2), D_k = k - (k+1) Y t_{k+1}/t_k (k = 1, 2, 3+). When some
//   t_k is 0 or a D_k falls outside [0, k] the fallback discounts are used
//   (lmplz's --discount_fallback, default 0.5 1 1.5).
// - p(w|h) = (a(hw) - D(a(hw))) / sum_x a(hx) + gamma(h) p(w|h'), with
//   gamma(h) = (D1 N1(h.) + D2 N2(h.) + D3 N3+(h.)) / sum_x a(hx); unigrams
//   interpolate with the uniform distribution over the vocabulary minus <s>, so
//   <unk> gets gamma/|V|; <s> gets probability 1 (log10 0), as lmplz writes it.
// - the ARPA backoff of a context h is gamma(h) (1 for n-grams that are no context).
#pragma once
#include <array>
#include <vector>

#include "lm/lm_content.hpp"
#include "lm/lm_counter.hpp"

namespace fastamfm {

struct KneserNeyDiscounts {
  std::array<double, 4> d{0.0, 0.5, 1.0, 1.5};  // d[0] = 0; d[3] applies to counts >= 3
  bool fallback = false;
  double apply(uint64_t adjusted) const { return adjusted == 0 ? 0.0 : d[adjusted < 3 ? adjusted : 3]; }
};

// Discounts of one order from the counts-of-counts t[1..4] (t[0] unused).
KneserNeyDiscounts kneser_ney_discounts(const std::array<uint64_t, 5>& t, const std::array<double, 3>& fallback);

// Runs on `workers` threads; the result does not depend on their number.
LmContent estimate_kneser_ney(const NgramCounts& counts, const std::array<double, 3>& fallback, int workers,
                              std::vector<KneserNeyDiscounts>& discounts);

}  // namespace fastamfm
