#include "overlap/self_bleu.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "common/errors.hpp"
#include "common/exact_sum.hpp"
#include "overlap/ngram_counts.hpp"

namespace fastamfm {

double nltk_sentence_bleu(size_t hyp_len, size_t ref_len, const uint64_t* correct, const uint64_t* guess,
                          int max_order, double epsilon) {
  if (correct[0] == 0) return 0.0;
  std::array<double, kMaxNgramOrder> terms{};
  const double weight = 1.0 / max_order;
  for (int k = 0; k < max_order; ++k) {
    const double denominator = static_cast<double>(std::max<uint64_t>(guess[k], 1));
    const double p = correct[k] == 0 ? (0 + epsilon) / denominator : static_cast<double>(correct[k]) / denominator;
    terms[static_cast<size_t>(k)] = weight * std::log(p);
  }
  double brevity;
  if (hyp_len > ref_len) {
    brevity = 1.0;
  } else if (hyp_len == 0) {
    brevity = 0.0;
  } else {
    brevity = std::exp(1 - static_cast<double>(ref_len) / static_cast<double>(hyp_len));
  }
  return brevity * std::exp(correctly_rounded_sum(terms.data(), static_cast<size_t>(max_order)));
}

namespace {

// The largest count of an n-gram over the set, how many responses hold it, and the
// largest count among the rest.
struct Leaders {
  NgramKey key;
  uint32_t top, holders, second;
};

}  // namespace

std::vector<double> self_bleu_scores(const TokenIdBatch& responses, int max_order, double epsilon, int workers,
                                     const InterruptCheck& interrupted) {
  const size_t n = responses.size();
  if (n < 2) throw InputError("self_bleu: needs at least 2 responses (each is scored against the others), got " +
                              std::to_string(n));
  if (max_order < 1 || max_order > kMaxNgramOrder)
    throw InputError("self_bleu: max_order must be in 1.." + std::to_string(kMaxNgramOrder));
  const NgramTable table = NgramTable::build(
      n, max_order, workers, interrupted, [&](size_t i, std::vector<NgramCount>& entries, std::vector<uint64_t>& sizes) {
        thread_local std::vector<NgramKey> keys;
        for (int order = 1; order <= max_order; ++order) {
          const size_t before = entries.size();
          count_ngrams(responses.ids(i), responses.num_tokens(i), order, keys, entries);
          sizes.push_back(entries.size() - before);
        }
      });
  // Keys carry their order, so one table serves every order.
  std::vector<NgramCount> all;
  for (size_t i = 0; i < n; ++i)
    for (int order = 1; order <= max_order; ++order) {
      const NgramSpan span = table.at(i, order);
      all.insert(all.end(), span.begin(), span.end());
    }
  std::sort(all.begin(), all.end(), [](const NgramCount& a, const NgramCount& b) {
    return a.key < b.key || (a.key == b.key && a.count > b.count);
  });
  std::vector<Leaders> leaders;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].key == all[i].key) ++j;
    Leaders l{all[i].key, all[i].count, 0, 0};
    size_t k = i;
    while (k < j && all[k].count == l.top) ++k;
    l.holders = static_cast<uint32_t>(k - i);
    l.second = l.holders > 1 ? l.top : (k < j ? all[k].count : 0);
    leaders.push_back(l);
    i = j;
  }
  std::vector<size_t> lengths(n);
  for (size_t i = 0; i < n; ++i) lengths[i] = responses.num_tokens(i);
  std::vector<size_t> sorted_lengths = lengths;
  std::sort(sorted_lengths.begin(), sorted_lengths.end());

  std::vector<double> out(n);
  parallel_for(
      n, workers,
      [&](size_t begin, size_t end) {
        std::array<uint64_t, 16> correct{}, guess{};
        for (size_t i = begin; i < end; ++i) {
          const size_t len = lengths[i];
          for (int order = 1; order <= max_order; ++order) {
            uint64_t matched = 0, total = 0;
            for (const NgramCount& e : table.at(i, order)) {
              const auto it = std::lower_bound(leaders.begin(), leaders.end(), e.key,
                                               [](const Leaders& l, NgramKey key) { return l.key < key; });
              const uint32_t others = (e.count == it->top && it->holders == 1) ? it->second : it->top;
              matched += std::min(e.count, others);
              total += e.count;
            }
            correct[static_cast<size_t>(order - 1)] = matched;
            guess[static_cast<size_t>(order - 1)] = total;
          }
          // The closest length among the others (ties: the shorter); this response's own
          // length counts only if another response has it too.
          const auto lo = std::lower_bound(sorted_lengths.begin(), sorted_lengths.end(), len);
          const auto hi = std::upper_bound(sorted_lengths.begin(), sorted_lengths.end(), len);
          size_t ref_len;
          if (hi - lo >= 2) {
            ref_len = len;
          } else {
            const bool has_shorter = lo != sorted_lengths.begin(), has_longer = hi != sorted_lengths.end();
            if (has_shorter && (!has_longer || len - *(lo - 1) <= *hi - len)) {
              ref_len = *(lo - 1);
            } else {
              ref_len = *hi;
            }
          }
          out[i] = nltk_sentence_bleu(len, ref_len, correct.data(), guess.data(), max_order, epsilon);
        }
      },
      interrupted, 64);
  return out;
}

}  // namespace fastamfm
