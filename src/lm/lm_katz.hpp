// Katz backoff with Good-Turing discounts, as SRILM's ngram-count estimates it
// by default (Katz 1987; SRILM's Discount and Ngram::estimate conventions):
// - per order, from the counts-of-counts n_r of raw counts (the unigram <s>
//   excluded): k = gtmax, lowered while n_{k+1} = 0; with A = (k+1) n_{k+1} / n_1,
//   d_r = ((r+1) n_{r+1} / (r n_r) - A) / (1 - A) for 1 <= r <= k; a d_r that is
//   not finite, <= 3e-6, or whose (r+1) n_{r+1} / (r n_r) exceeds 1 becomes 1;
//   n_1 = 0 disables discounting. Counts above k are not discounted; n-grams
//   with counts below gtmin are left out of the model.
// - p(w|h) = d_c c(hw) / sum_x c(hx) for the kept n-grams; when that leaves no
//   mass for backing off (every count above gtmax) the denominator gets +1.
//   With gtmax = 1 the formula gives d_1 = 0, so SRILM's unigram default
//   (gt1max = 1) leaves unigrams undiscounted and <unk> at log10 p = -99.
// - unigrams: the left-over mass (if above 1e-12) goes in equal parts to the vocabulary words
//   with zero probability (<unk> unless closed-vocabulary training mapped words
//   to it); when there are none it is spread over every word. <s> is not an
//   event: log10 p = -99.
// - backoff alpha(h) = (1 - sum_w p(w|h)) / (1 - sum_w p(w|h')), w over the kept
//   n-grams hw. When the denominator is below 3e-6 (the lower order spends all
//   its mass on words seen in h) the probabilities of h are scaled to sum to 1
//   and alpha(h) = 0, as SRILM does.
// SRILM's defaults: gtmin = 1, 1, 2, 2, ... and gtmax = 1, 7, 7, ... per order.
#pragma once
#include <vector>

#include "lm/lm_content.hpp"
#include "lm/lm_counter.hpp"

namespace fastamfm {

struct GoodTuringDiscounts {
  uint64_t min_count = 1;
  uint64_t max_count = 0;      // after lowering; 0 = no discounting
  std::vector<double> coeff;   // coeff[r] for 1 <= r <= max_count
  double discount(uint64_t count) const {
    if (count < min_count) return 0.0;
    if (count > max_count) return 1.0;
    return coeff[count];
  }
};

// count_of_counts[r] for r = 0..gtmax+1 (index 0 unused).
GoodTuringDiscounts good_turing_discounts(const std::vector<uint64_t>& count_of_counts, uint64_t gtmin,
                                          uint64_t gtmax);

std::vector<uint64_t> default_gtmin(int order);
std::vector<uint64_t> default_gtmax(int order);

// Runs on `workers` threads; the result does not depend on their number.
LmContent estimate_katz(const NgramCounts& counts, const std::vector<uint64_t>& gtmin,
                        const std::vector<uint64_t>& gtmax, int workers, std::vector<GoodTuringDiscounts>& discounts);

}  // namespace fastamfm
