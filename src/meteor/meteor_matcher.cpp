#include "meteor/meteor_matcher.hpp"

#include <algorithm>
#include <string>

#include "common/errors.hpp"
#include "common/limits.hpp"

#include "meteor/meteor_normalizer.hpp"
#include "meteor/meteor_stemmer.hpp"

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
    }
    if (stages[static_cast<size_t>(MeteorStage::kParaphrase)]) w.paraphrase_id = resources->paraphrase_word_id(word);
  }
  return w;
}

namespace {

size_t synset_slot(uint32_t synset, size_t mask) { return (synset * size_t{0x9E3779B97F4A7C15ULL} >> 20) & mask; }

void build_synset_table(MeteorLine& line) {
  if (line.words.size() > 64) return;
  size_t entries = 0;
  for (const MeteorWord* w : line.words) entries += w->synsets.size();
  if (entries == 0) return;
  size_t capacity = 16;
  while (capacity < 2 * entries) capacity *= 2;
  line.synset_slots.assign(capacity, MeteorLine::kNoSynset);
  line.synset_positions.assign(capacity, 0);
  for (size_t i = 0; i < line.words.size(); ++i) {
    for (uint32_t synset : line.words[i]->synsets) {
      size_t slot = synset_slot(synset, capacity - 1);
      while (line.synset_slots[slot] != MeteorLine::kNoSynset && line.synset_slots[slot] != synset)
        slot = (slot + 1) & (capacity - 1);
      line.synset_slots[slot] = synset;
      line.synset_positions[slot] |= uint64_t{1} << i;
    }
  }
}

}  // namespace

uint64_t MeteorLine::synonym_positions(uint32_t synset) const {
  const size_t mask = synset_slots.size() - 1;
  for (size_t slot = synset_slot(synset, mask);; slot = (slot + 1) & mask) {
    if (synset_slots[slot] == synset) return synset_positions[slot];
    if (synset_slots[slot] == kNoSynset) return 0;
  }
}

void prepare_meteor_line(MeteorLine& line, const MeteorResources* resources, const MeteorStageSet& stages,
                         MeteorSide side) {
  const bool hypothesis = side == MeteorSide::kHypothesis;
  line.function_words = 0;
  line.keys.clear();
  line.stem_keys.clear();
  line.key_filter = {};
  line.stem_key_filter = {};
  for (const MeteorWord* w : line.words) {
    line.function_words += w->function_word ? 1 : 0;
    if (!hypothesis) continue;
    line.keys.push_back(w->key);
    line.stem_keys.push_back(w->stem_key);
    line.key_filter.add(static_cast<uint32_t>(w->key));
    line.stem_key_filter.add(static_cast<uint32_t>(w->stem_key));
  }
  line.synset_slots.clear();
  line.synset_positions.clear();
  if (hypothesis && stages[static_cast<size_t>(MeteorStage::kSynonym)]) build_synset_table(line);
  line.paraphrase_nodes.clear();
  line.paraphrase_spans.clear();
  line.phrases.clear();
  line.phrase_nodes = {};
  if (resources == nullptr || !stages[static_cast<size_t>(MeteorStage::kParaphrase)]) return;
  // The word ids are needed only here, to walk the table's trie from each position.
  std::vector<int32_t> ids;
  ids.reserve(line.words.size());
  for (const MeteorWord* w : line.words) ids.push_back(w->paraphrase_id);
  for (size_t a = 0; a < ids.size(); ++a) resources->find_phrases(ids.data(), ids.size(), a, line.phrases);
  for (const MeteorPhraseOccurrence& o : line.phrases) {
    line.phrase_nodes.add(o.node);
    for (uint32_t node : resources->paraphrases_of(o.node)) {
      line.paraphrase_nodes.push_back(node);
      line.paraphrase_spans.push_back({o.start, o.length});
    }
  }
  std::sort(line.phrases.begin(), line.phrases.end(), [](const MeteorPhraseOccurrence& x, const MeteorPhraseOccurrence& y) {
    return x.node != y.node ? x.node < y.node : x.start < y.start;
  });
}

namespace {

void add(MeteorCandidates& c, int32_t start, int32_t length, int32_t match_start, int32_t match_length, MeteorStage stage) {
  if (c.found.size() == c.max_candidates)
    throw InputError("a hypothesis of " + std::to_string(c.coverage1.size()) + " words and a reference of " +
                     std::to_string(c.coverage2.size()) + " words have more than " + std::to_string(c.max_candidates) +
                     " candidate matches (their words repeat that often); each takes about 48 bytes, and "
                     "fastamfm.limits meteor_max_candidates bounds them");
  c.found.push_back({start, length, match_start, match_length, static_cast<int32_t>(stage)});
  for (int32_t k = 0; k < match_length; ++k) ++c.coverage1[static_cast<size_t>(match_start + k)];
  for (int32_t k = 0; k < length; ++k) ++c.coverage2[static_cast<size_t>(start + k)];
}

// The line-1 positions of every value of a 32-bit word property, as sorted
// (value << 32 | position) entries: a line-2 word finds its partners with one
// binary search, so matching costs O(n log n + matches) instead of O(n1 * n2).
template <class ValuesOf>
void index_positions(const MeteorLine& l1, ValuesOf values_of, std::vector<uint64_t>& index) {
  index.clear();
  for (size_t i = 0; i < l1.words.size(); ++i)
    values_of(*l1.words[i], [&](uint32_t value) { index.push_back(uint64_t{value} << 32 | i); });
  std::sort(index.begin(), index.end());
}

template <class Fn>
void for_each_position(const std::vector<uint64_t>& index, uint32_t value, Fn fn) {
  for (auto it = std::lower_bound(index.begin(), index.end(), uint64_t{value} << 32);
       it != index.end() && (*it >> 32) == value; ++it)
    fn(static_cast<size_t>(*it & UINT32_MAX));
}

// Word-to-word stages keyed by one value per word (exact: the word's key, stem: its
// stem's key; `values1`, `filter1`: line 1's values and their filter): for each
// line-2 word, the line-1 words with its value in order. Short lines (the usual
// case) are compared pairwise, which is cheaper there.
template <class KeyOf, class Pred>
void match_words(const MeteorLine& l1, const std::vector<int32_t>& values1, const MeteorValueFilter<4>& filter1,
                 const MeteorLine& l2, MeteorStage stage, KeyOf key_of, Pred pred, MeteorCandidates& c) {
  constexpr size_t kPairwiseMax = 4096;
  const size_t n1 = values1.size();
  if (n1 * l2.words.size() <= kPairwiseMax) {
    for (size_t j = 0; j < l2.words.size(); ++j) {
      const MeteorWord& b = *l2.words[j];
      const int32_t value = key_of(b);
      if (!filter1.may_contain(static_cast<uint32_t>(value))) continue;
      for (size_t i = 0; i < n1; ++i)
        if (values1[i] == value && pred(*l1.words[i], b))
          add(c, static_cast<int32_t>(j), 1, static_cast<int32_t>(i), 1, stage);
    }
    return;
  }
  index_positions(l1, [&](const MeteorWord& w, auto emit) { emit(static_cast<uint32_t>(key_of(w))); }, c.index);
  for (size_t j = 0; j < l2.words.size(); ++j) {
    const MeteorWord& b = *l2.words[j];
    for_each_position(c.index, static_cast<uint32_t>(key_of(b)), [&](size_t i) {
      if (pred(*l1.words[i], b)) add(c, static_cast<int32_t>(j), 1, static_cast<int32_t>(i), 1, stage);
    });
  }
}

// Synonyms in a long line 1: for each line-2 word, the line-1 words sharing a
// synset with it (each once, in order).
void match_synonyms(const MeteorLine& l1, const MeteorLine& l2, MeteorCandidates& c) {
  index_positions(
      l1, [](const MeteorWord& w, auto emit) { for (uint32_t synset : w.synsets) emit(synset); }, c.index);
  for (size_t j = 0; j < l2.words.size(); ++j) {
    const MeteorWord& b = *l2.words[j];
    c.positions.clear();
    for (uint32_t synset : b.synsets)
      for_each_position(c.index, synset, [&](size_t i) { c.positions.push_back(static_cast<uint32_t>(i)); });
    std::sort(c.positions.begin(), c.positions.end());
    c.positions.erase(std::unique(c.positions.begin(), c.positions.end()), c.positions.end());
    for (uint32_t i : c.positions)
      if (l1.words[i]->key != b.key)
        add(c, static_cast<int32_t>(j), 1, static_cast<int32_t>(i), 1, MeteorStage::kSynonym);
  }
}

// Phrases of `from` whose paraphrase occurs in `to`; `from_is_line2` orients the
// matches. The filter is read for 64 paraphrases at a time into a bitmask, and only
// those that pass are looked up: few pass, and a branch per paraphrase would
// mispredict on them.
void match_paraphrases(const MeteorLine& from, const MeteorLine& to, bool from_is_line2, MeteorCandidates& c) {
  const auto by_node = [](const MeteorPhraseOccurrence& o, uint32_t node) { return o.node < node; };
  const size_t count = from.paraphrase_nodes.size();
  for (size_t base = 0; base < count; base += 64) {
    const size_t block = std::min<size_t>(64, count - base);
    uint64_t passed = 0;
    for (size_t k = 0; k < block; ++k)
      passed |= uint64_t{to.phrase_nodes.may_contain(from.paraphrase_nodes[base + k])} << k;
    for (; passed != 0; passed &= passed - 1) {
      const size_t p = base + static_cast<size_t>(__builtin_ctzll(passed));
      const uint32_t node = from.paraphrase_nodes[p];
      auto it = std::lower_bound(to.phrases.begin(), to.phrases.end(), node, by_node);
      if (it == to.phrases.end() || it->node != node) continue;
      const auto a = static_cast<int32_t>(from.paraphrase_spans[p][0]);
      const auto len = static_cast<int32_t>(from.paraphrase_spans[p][1]);
      for (; it != to.phrases.end() && it->node == node; ++it) {
        const auto b = static_cast<int32_t>(it->start), plen = static_cast<int32_t>(it->length);
        if (from_is_line2) add(c, a, len, b, plen, MeteorStage::kParaphrase);
        else add(c, b, plen, a, len, MeteorStage::kParaphrase);
      }
    }
  }
}

}  // namespace

void find_meteor_candidates(const MeteorLine& l1, const MeteorLine& l2, const MeteorStageSet& stages,
                            MeteorCandidates& c) {
  const size_t n1 = l1.words.size(), n2 = l2.words.size();
  c.found.clear();
  c.max_candidates = limits().meteor_max_candidates;
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
    match_words(
        l1, l1.keys, l1.key_filter, l2, MeteorStage::kExact, [](const MeteorWord& w) { return w.key; },
        [](const MeteorWord&, const MeteorWord&) { return true; }, c);
  if (run(MeteorStage::kStem))
    match_words(
        l1, l1.stem_keys, l1.stem_key_filter, l2, MeteorStage::kStem, [](const MeteorWord& w) { return w.stem_key; },
        [](const MeteorWord& a, const MeteorWord& b) { return a.key != b.key; }, c);
  if (run(MeteorStage::kSynonym)) {
    if (n1 <= 64) {
      // Same order as the pairwise loop: line-2 words, then line-1 positions ascending.
      for (size_t j = 0; j < n2; ++j) {
        const MeteorWord& b = *l2.words[j];
        uint64_t positions = 0;
        if (!l1.synset_slots.empty())
          for (uint32_t synset : b.synsets) positions |= l1.synonym_positions(synset);
        for (; positions != 0; positions &= positions - 1) {
          const auto i = static_cast<size_t>(__builtin_ctzll(positions));
          if (l1.words[i]->key != b.key) add(c, static_cast<int32_t>(j), 1, static_cast<int32_t>(i), 1, MeteorStage::kSynonym);
        }
      }
    } else {
      match_synonyms(l1, l2, c);
    }
  }
  if (run(MeteorStage::kParaphrase)) {
    match_paraphrases(l2, l1, true, c);
    match_paraphrases(l1, l2, false, c);
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
