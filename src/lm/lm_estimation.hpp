// Helpers the estimators share.
#pragma once
#include <cstddef>
#include <vector>

#include "lm/lm_grams.hpp"
#include "parallel/parallel.hpp"

namespace fastamfm {

// Calls body(begin, end) for each run of n-grams sharing their context (all words
// but the last) in a gram_less-sorted array, over [from, to); unigrams form one run.
template <class Body>
void for_each_context_group(const GramArray& grams, Body&& body, size_t from = 0, size_t to = SIZE_MAX) {
  const int context = grams.n - 1;
  size_t begin = from;
  to = to < grams.size() ? to : grams.size();
  while (begin < to) {
    size_t end = begin + 1;
    while (end < grams.size() && gram_equal(grams.at(begin), grams.at(end), context)) ++end;
    body(begin, end);
    begin = end;
  }
}

// The same on `workers` threads: each chunk of the array starts at the first group
// that begins inside it, so every group is visited exactly once. The body must
// only write what belongs to its group.
template <class Body>
void parallel_context_groups(const GramArray& grams, int workers, const Body& body) {
  const int context = grams.n - 1;
  auto group_start = [&](size_t i) {
    if (context == 0) return i == 0;
    return i == 0 || !gram_equal(grams.at(i - 1), grams.at(i), context);
  };
  parallel_for(
      grams.size(), context == 0 ? 1 : workers,
      [&](size_t begin, size_t end) {
        while (begin < end && !group_start(begin)) ++begin;
        for_each_context_group(grams, body, begin, end);
      },
      {}, 4096);
}

// One GramIndex per order, built on `workers` threads.
inline std::vector<GramIndex> index_orders(const std::vector<GramArray>& orders, int workers) {
  std::vector<GramIndex> index(orders.size());
  parallel_parts(orders.size(), workers, [&](size_t n) { index[n] = GramIndex(orders[n]); });
  return index;
}

}  // namespace fastamfm
