// Relative-entropy pruning of a backoff model (Stolcke 1998), as SRILM's
// `ngram-count -prune threshold` does it. From the highest order down, for each
// context h and each of its n-grams hw that is not itself the context of a longer
// kept n-gram: removing hw changes the model's entropy by
//   dH = -P(h) [ p(w|h) (log p(w|h') + log a'(h) - log p(w|h)) + L(h) (log a'(h) - log a(h)) ]
// where L(h) = 1 - sum_v p(v|h), a(h) is the current backoff weight and a'(h) the
// one after removal, and P(h) is the probability of the context by the chain rule
// (a leading <s> counts as certain). hw is removed when exp(dH) - 1 < threshold.
// All n-grams of a context are judged against the unpruned context, then the
// context's backoff weight is recomputed from what remains; at the end every
// backoff weight is recomputed (lowest order first), as SRILM does.
// Requires n-grams sorted with gram_less, as the estimators produce them.
#pragma once
#include "lm/lm_content.hpp"

namespace fastamfm {

void prune_by_relative_entropy(LmContent& content, double threshold);

}  // namespace fastamfm
