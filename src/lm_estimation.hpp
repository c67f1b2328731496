// Helpers the estimators share.
#pragma once
#include <cstddef>

#include "lm_grams.hpp"

namespace fastamfm {

// Calls body(begin, end) for each run of n-grams sharing their context (all words
// but the last) in a gram_less-sorted array; unigrams form one run.
template <class Body>
void for_each_context_group(const GramArray& grams, Body&& body) {
  const int context = grams.n - 1;
  size_t begin = 0;
  while (begin < grams.size()) {
    size_t end = begin + 1;
    while (end < grams.size() && gram_equal(grams.at(begin), grams.at(end), context)) ++end;
    body(begin, end);
    begin = end;
  }
}

}  // namespace fastamfm
