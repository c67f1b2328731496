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
    if (stages[static_cast<size_t>(MeteorStage::kSynonym)]) w.synsets = resources->synonym_sets(word);
    if (stages[static_cast<size_t>(MeteorStage::kParaphrase)]) w.paraphrase_id = resources->paraphrase_word_id(word);
  }
  return w;
}

namespace {

bool share_synset(const MeteorWord& a, const MeteorWord& b) {
  auto i = a.synsets.begin(), j = b.synsets.begin();
  while (i != a.synsets.end() && j != b.synsets.end()) {
    if (*i == *j) return true;
    if (*i < *j) ++i;
    else ++j;
  }
  return false;
}

void add(MeteorCandidates& c, int32_t start, int32_t length, int32_t match_start, int32_t match_length, MeteorStage stage) {
  c.by_start[static_cast<size_t>(start)].push_back({start, length, match_start, match_length, static_cast<uint8_t>(stage)});
  for (int32_t k = 0; k < match_length; ++k) ++c.coverage1[static_cast<size_t>(match_start + k)];
  for (int32_t k = 0; k < length; ++k) ++c.coverage2[static_cast<size_t>(start + k)];
}

// Word-to-word stages: for each line-2 word, each line-1 word in order.
template <class Pred>
void match_words(const std::vector<const MeteorWord*>& w1, const std::vector<const MeteorWord*>& w2, MeteorStage stage,
                 Pred pred, MeteorCandidates& c) {
  for (size_t j = 0; j < w2.size(); ++j)
    for (size_t i = 0; i < w1.size(); ++i)
      if (pred(*w1[i], *w2[j])) add(c, static_cast<int32_t>(j), 1, static_cast<int32_t>(i), 1, stage);
}

// Phrases of `from` (starting at each position) whose paraphrase occurs in `to`.
// `from_is_line2` says which side the phrase is on, to orient the matches.
void match_paraphrases(const std::vector<int32_t>& from, const std::vector<int32_t>& to, bool from_is_line2,
                       const MeteorResources& r, MeteorCandidates& c) {
  std::vector<uint32_t> paths;
  for (size_t a = 0; a < from.size(); ++a) {
    paths.clear();
    r.paraphrase_paths(from.data(), from.size(), a, paths);
    for (size_t p = 0; p < paths.size(); p += 2) {
      const auto len = static_cast<int32_t>(paths[p]);
      const FlatArray<uint32_t> par = r.paraphrase(paths[p + 1]);
      for (size_t b = 0; b < to.size(); ++b) {
        bool match = true;
        for (size_t k = 0; k < par.size(); ++k) {
          if (b + k == to.size() || to[b + k] != static_cast<int32_t>(par[k])) {
            match = false;
            break;
          }
        }
        if (!match) continue;
        const auto plen = static_cast<int32_t>(par.size());
        if (from_is_line2) add(c, static_cast<int32_t>(a), len, static_cast<int32_t>(b), plen, MeteorStage::kParaphrase);
        else add(c, static_cast<int32_t>(b), plen, static_cast<int32_t>(a), len, MeteorStage::kParaphrase);
      }
    }
  }
}

}  // namespace

void find_meteor_candidates(const std::vector<const MeteorWord*>& w1, const std::vector<const MeteorWord*>& w2,
                            const MeteorResources* resources, const MeteorStageSet& stages, MeteorCandidates& c) {
  c.by_start.assign(w2.size(), {});
  c.coverage1.assign(w1.size(), 0);
  c.coverage2.assign(w2.size(), 0);

  bool identical = w1.size() == w2.size();
  for (size_t i = 0; identical && i < w1.size(); ++i) identical = w1[i]->key == w2[i]->key;

  // Identical lines need the first stage only (the jar's guard against beam errors).
  size_t stages_left = identical ? 1 : kMeteorStages;
  const auto run = [&](MeteorStage stage) {
    if (!stages[static_cast<size_t>(stage)] || stages_left == 0) return false;
    --stages_left;
    return true;
  };
  if (run(MeteorStage::kExact))
    match_words(w1, w2, MeteorStage::kExact, [](const MeteorWord& a, const MeteorWord& b) { return a.key == b.key; }, c);
  if (run(MeteorStage::kStem))
    match_words(w1, w2, MeteorStage::kStem,
                [](const MeteorWord& a, const MeteorWord& b) { return a.stem_key == b.stem_key && a.key != b.key; }, c);
  if (run(MeteorStage::kSynonym))
    match_words(w1, w2, MeteorStage::kSynonym,
                [](const MeteorWord& a, const MeteorWord& b) { return a.key != b.key && share_synset(a, b); }, c);
  if (run(MeteorStage::kParaphrase) && resources != nullptr) {
    std::vector<int32_t> ids1(w1.size()), ids2(w2.size());
    for (size_t i = 0; i < w1.size(); ++i) ids1[i] = w1[i]->paraphrase_id;
    for (size_t j = 0; j < w2.size(); ++j) ids2[j] = w2[j]->paraphrase_id;
    match_paraphrases(ids2, ids1, true, *resources, c);
    match_paraphrases(ids1, ids2, false, *resources, c);
  }
}

}  // namespace fastamfm
