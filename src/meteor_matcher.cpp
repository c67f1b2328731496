#include "meteor_matcher.hpp"

#include <algorithm>

#include "meteor_normalizer.hpp"
#include "meteor_stemmer.hpp"

namespace fastamfm {

MeteorWord describe_meteor_word(const std::string& word, const MeteorResources* resources,
                                const MeteorStageSet& stages) {
  MeteorWord w;
  w.key = java_string_hash(word);
  if (stages[static_cast<size_t>(MeteorStage::kStem)]) w.stem_key = java_string_hash(snowball_english_stem(word));
  if (resources != nullptr) {
    w.function_word = resources->is_function_word(word);
    if (stages[static_cast<size_t>(MeteorStage::kSynonym)]) {
      w.synsets = resources->synonym_sets(word);
      for (uint32_t id : w.synsets) {
        w.synset_signature[0] |= uint64_t{1} << (id % 64);
        w.synset_signature[1] |= uint64_t{1} << ((id * 0x9E3779B1u) >> 26);
      }
    }
    if (stages[static_cast<size_t>(MeteorStage::kParaphrase)]) w.paraphrase_id = resources->paraphrase_word_id(word);
  }
  return w;
}

void prepare_meteor_line(MeteorLine& line, const MeteorResources* resources, const MeteorStageSet& stages) {
  line.function_words = 0;
  for (const MeteorWord* w : line.words) line.function_words += w->function_word ? 1 : 0;
  line.paraphrase_ids.clear();
  line.paraphrase_paths.clear();
  line.paraphrase_signature.fill(0);
  if (resources == nullptr || !stages[static_cast<size_t>(MeteorStage::kParaphrase)]) return;
  for (const MeteorWord* w : line.words) {
    line.paraphrase_ids.push_back(w->paraphrase_id);
    if (w->paraphrase_id >= 0) {
      const uint32_t bit = (static_cast<uint32_t>(w->paraphrase_id) * 0x9E3779B1u) >> 23;
      line.paraphrase_signature[bit >> 6] |= uint64_t{1} << (bit & 63);
    }
  }
  for (size_t a = 0; a < line.words.size(); ++a)
    resources->paraphrase_paths(line.paraphrase_ids.data(), line.paraphrase_ids.size(), a, line.paraphrase_paths);
}

namespace {

bool share_synset(const MeteorWord& a, const MeteorWord& b) {
  if ((a.synset_signature[0] & b.synset_signature[0]) == 0 || (a.synset_signature[1] & b.synset_signature[1]) == 0)
    return false;
  auto i = a.synsets.begin(), j = b.synsets.begin();
  while (i != a.synsets.end() && j != b.synsets.end()) {
    if (*i == *j) return true;
    if (*i < *j) ++i;
    else ++j;
  }
  return false;
}

void add(MeteorCandidates& c, int32_t start, int32_t length, int32_t match_start, int32_t match_length, MeteorStage stage) {
  c.found.push_back({start, length, match_start, match_length, static_cast<int32_t>(stage)});
  for (int32_t k = 0; k < match_length; ++k) ++c.coverage1[static_cast<size_t>(match_start + k)];
  for (int32_t k = 0; k < length; ++k) ++c.coverage2[static_cast<size_t>(start + k)];
}

// Word-to-word stages: for each line-2 word, each line-1 word in order.
template <class Pred>
void match_words(const MeteorLine& l1, const MeteorLine& l2, MeteorStage stage, Pred pred, MeteorCandidates& c) {
  for (size_t j = 0; j < l2.words.size(); ++j) {
    const MeteorWord& b = *l2.words[j];
    for (size_t i = 0; i < l1.words.size(); ++i)
      if (pred(*l1.words[i], b)) add(c, static_cast<int32_t>(j), 1, static_cast<int32_t>(i), 1, stage);
  }
}

// Phrases of `from` whose paraphrase occurs in `to`; `from_is_line2` orients the matches.
void match_paraphrases(const MeteorLine& from, const MeteorLine& to, bool from_is_line2, const MeteorResources& r,
                       MeteorCandidates& c) {
  const std::vector<int32_t>& words = to.paraphrase_ids;
  for (size_t p = 0; p < from.paraphrase_paths.size(); p += 4) {
    const auto first = static_cast<int32_t>(from.paraphrase_paths[p + 3]);
    if (!to.may_contain(static_cast<uint32_t>(first))) continue;
    const auto a = static_cast<int32_t>(from.paraphrase_paths[p]);
    const auto len = static_cast<int32_t>(from.paraphrase_paths[p + 1]);
    const FlatArray<uint32_t> par = r.paraphrase(from.paraphrase_paths[p + 2]);
    const auto plen = static_cast<int32_t>(par.size());
    for (size_t b = 0; b < words.size(); ++b) {
      if (words[b] != first || b + par.size() > words.size()) continue;
      bool match = true;
      for (size_t k = 1; k < par.size() && match; ++k) match = words[b + k] == static_cast<int32_t>(par[k]);
      if (!match) continue;
      if (from_is_line2) add(c, a, len, static_cast<int32_t>(b), plen, MeteorStage::kParaphrase);
      else add(c, static_cast<int32_t>(b), plen, a, len, MeteorStage::kParaphrase);
    }
  }
}

}  // namespace

void find_meteor_candidates(const MeteorLine& l1, const MeteorLine& l2, const MeteorResources* resources,
                            const MeteorStageSet& stages, MeteorCandidates& c) {
  const size_t n1 = l1.words.size(), n2 = l2.words.size();
  c.found.clear();
  c.coverage1.assign(n1, 0);
  c.coverage2.assign(n2, 0);

  bool identical = n1 == n2;
  for (size_t i = 0; identical && i < n1; ++i) identical = l1.words[i]->key == l2.words[i]->key;
  // Identical lines need the first stage only (the jar's guard against beam errors).
  size_t stages_left = identical ? 1 : kMeteorStages;
  const auto run = [&](MeteorStage stage) {
    if (!stages[static_cast<size_t>(stage)] || stages_left == 0) return false;
    --stages_left;
    return true;
  };
  if (run(MeteorStage::kExact))
    match_words(l1, l2, MeteorStage::kExact, [](const MeteorWord& a, const MeteorWord& b) { return a.key == b.key; }, c);
  if (run(MeteorStage::kStem))
    match_words(l1, l2, MeteorStage::kStem,
                [](const MeteorWord& a, const MeteorWord& b) { return a.stem_key == b.stem_key && a.key != b.key; }, c);
  if (run(MeteorStage::kSynonym))
    match_words(l1, l2, MeteorStage::kSynonym,
                [](const MeteorWord& a, const MeteorWord& b) { return a.key != b.key && share_synset(a, b); }, c);
  if (run(MeteorStage::kParaphrase) && resources != nullptr) {
    match_paraphrases(l2, l1, true, *resources, c);
    match_paraphrases(l1, l2, false, *resources, c);
  }

  // Group by start, keeping discovery order within a start (a stable counting sort).
  c.begin.assign(n2 + 1, 0);
  for (const MeteorMatch& m : c.found) ++c.begin[static_cast<size_t>(m.start) + 1];
  for (size_t j = 0; j < n2; ++j) c.begin[j + 1] += c.begin[j];
  c.matches.resize(c.found.size());
  for (const MeteorMatch& m : c.found) c.matches[static_cast<size_t>(c.begin[static_cast<size_t>(m.start)]++)] = m;
  for (size_t j = n2; j > 0; --j) c.begin[j] = c.begin[j - 1];
  c.begin[0] = 0;
}

}  // namespace fastamfm
