#include "lm/lm_count_merge.hpp"

#include <string>
#include <string_view>
#include <unordered_map>

#include "common/errors.hpp"
#include "lm/lm_count_runs.hpp"

namespace fastamfm {

namespace {

// Merges two sorted arrays of one order into one sorted array, adding the counts of
// n-grams present in both.
GramArray merge_sorted(const GramArray& a, const GramArray& b) {
  const int n = a.n;
  GramArray out;
  out.n = n;
  out.ids.reserve(a.ids.size() + b.ids.size());
  out.counts.reserve(a.size() + b.size());
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && gram_less(a.at(i), b.at(j), n))) {
      out.push_back(a.at(i), a.counts[i]);
      ++i;
    } else if (i == a.size() || gram_less(b.at(j), a.at(i), n)) {
      out.push_back(b.at(j), b.counts[j]);
      ++j;
    } else {
      out.push_back(a.at(i), a.counts[i] + b.counts[j]);
      ++i;
      ++j;
    }
  }
  return out;
}

// True when the sorted `grams` hold `gram` (of length grams.n).
bool holds_gram(const GramArray& grams, const uint32_t* gram) {
  size_t lo = 0, hi = grams.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (gram_less(grams.at(mid), gram, grams.n))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < grams.size() && gram_equal(grams.at(lo), gram, grams.n);
}

std::string gram_text(const NgramCounts& counts, const uint32_t* gram, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += (i ? " " : "") + counts.words[gram[i]];
  return "'" + out + "'";
}

}  // namespace

void validate_ngram_counts(const NgramCounts& counts) {
  const auto fail = [](const std::string& what) { throw InputError("n-gram counts: " + what); };
  if (counts.words.size() < 3 || counts.words[kLmUnk] != "<unk>" || counts.words[kLmBos] != "<s>" ||
      counts.words[kLmEos] != "</s>")
    fail("the vocabulary must start with <unk>, <s>, </s>");
  if (counts.orders.empty() || counts.orders.size() > static_cast<size_t>(kMaxLmOrder))
    fail("needs 1 to " + std::to_string(kMaxLmOrder) + " orders, got " + std::to_string(counts.orders.size()));
  const size_t vocabulary = counts.words.size();
  {
    // One id per word: a model with a word twice would answer a lookup with either.
    std::unordered_map<std::string_view, size_t> seen;
    seen.reserve(vocabulary * 2);
    for (size_t id = 0; id < vocabulary; ++id) {
      if (counts.words[id].empty()) fail("word " + std::to_string(id) + " is empty");
      if (!seen.emplace(counts.words[id], id).second) fail("the word '" + counts.words[id] + "' is listed twice");
    }
  }
  for (size_t o = 0; o < counts.orders.size(); ++o) {
    const GramArray& grams = counts.orders[o];
    const std::string order = "order " + std::to_string(o + 1);
    if (grams.n != static_cast<int>(o + 1)) fail(order + " holds n-grams of length " + std::to_string(grams.n));
    if (grams.ids.size() != grams.counts.size() * (o + 1)) fail(order + ": ids and counts disagree in size");
    for (uint32_t id : grams.ids)
      if (id >= vocabulary) fail(order + ": word id " + std::to_string(id) + " outside the vocabulary");
    for (size_t i = 1; i < grams.size(); ++i)
      if (!gram_less(grams.at(i - 1), grams.at(i), grams.n)) fail(order + ": n-grams not sorted or repeated");
  }
  const GramArray& unigrams = counts.orders[0];
  if (unigrams.size() != vocabulary) fail("the unigrams must list every word once");
  for (size_t id = 0; id < vocabulary; ++id)
    if (unigrams.ids[id] != id) fail("the unigrams must list every word once, by id");
  // What estimation assumes of counts a corpus gave: every n-gram seen, and with it the
  // (n-1)-grams it starts and ends with (its context, whose backoff weight it sets, and
  // its suffix, its lower-order estimate). Kneser-Ney and Katz look both up without a
  // check; one that is absent would be indexed as GramIndex::kMissing.
  for (size_t o = 1; o < counts.orders.size(); ++o) {
    const GramArray& grams = counts.orders[o];
    const GramArray& lower = counts.orders[o - 1];
    const int n = grams.n;
    for (size_t i = 0; i < grams.size(); ++i) {
      const uint32_t* gram = grams.at(i);
      const auto holds = [&] { return "order " + std::to_string(n) + " holds " + gram_text(counts, gram, n); };
      const auto lacks = [&](const char* part, const uint32_t* sub) {
        fail(holds() + " but order " + std::to_string(n - 1) + " lacks its " + part + " " +
             gram_text(counts, sub, n - 1) + " (the counts of a corpus hold both)");
      };
      if (grams.counts[i] == 0) fail(holds() + " with a count of 0");
      if (!holds_gram(lower, gram)) lacks("prefix", gram);
      if (!holds_gram(lower, gram + 1)) lacks("suffix", gram + 1);
    }
  }
}

NgramCounts merge_ngram_counts(const NgramCounts& first, const NgramCounts& second, int workers) {
  require_counts_not_taken(first);
  require_counts_not_taken(second);
  if (first.orders.size() != second.orders.size())
    throw InputError("cannot merge n-gram counts of order " + std::to_string(first.orders.size()) + " and " +
                     std::to_string(second.orders.size()));
  if (first.closed_vocabulary != second.closed_vocabulary)
    throw InputError("cannot merge n-gram counts of a closed and an open vocabulary");
  NgramCounts out;
  out.words = first.words;
  out.sentences = first.sentences + second.sentences;
  out.tokens = first.tokens + second.tokens;
  out.spilled_runs = first.spilled_runs + second.spilled_runs;
  out.closed_vocabulary = first.closed_vocabulary;

  // second's ids -> merged ids: known words keep first's id, new words follow in second's order.
  std::unordered_map<std::string, uint32_t> known;
  known.reserve(first.words.size() * 2);
  for (uint32_t id = 0; id < first.words.size(); ++id) known.emplace(first.words[id], id);
  std::vector<uint32_t> renumber(second.words.size());
  for (uint32_t id = 0; id < second.words.size(); ++id) {
    const auto [it, added] = known.emplace(second.words[id], static_cast<uint32_t>(out.words.size()));
    if (added) out.words.push_back(second.words[id]);
    renumber[id] = it->second;
  }
  if (out.closed_vocabulary && out.words.size() != first.words.size())
    throw InputError("cannot merge n-gram counts of two different closed vocabularies");

  out.orders.resize(first.orders.size());
  GramArray& unigrams = out.orders[0];
  unigrams.n = 1;
  unigrams.counts.assign(out.words.size(), 0);
  unigrams.ids.resize(out.words.size());
  for (uint32_t id = 0; id < out.words.size(); ++id) unigrams.ids[id] = id;
  for (size_t i = 0; i < first.orders[0].size(); ++i) unigrams.counts[first.orders[0].ids[i]] += first.orders[0].counts[i];
  for (size_t i = 0; i < second.orders[0].size(); ++i)
    unigrams.counts[renumber[second.orders[0].ids[i]]] += second.orders[0].counts[i];

  parallel_parts(first.orders.size() - 1, workers, [&](size_t part) {
    const size_t o = part + 1;
    GramArray renumbered;
    renumbered.n = second.orders[o].n;
    renumbered.ids.reserve(second.orders[o].ids.size());
    for (uint32_t id : second.orders[o].ids) renumbered.ids.push_back(renumber[id]);
    renumbered.counts = second.orders[o].counts;
    out.orders[o] = merge_sorted(first.orders[o], sort_grams(renumbered));
  });
  return out;
}

}  // namespace fastamfm
