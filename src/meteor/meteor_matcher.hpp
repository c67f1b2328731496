// METEOR's matching stages: every candidate match between a hypothesis (line 1)
// and a reference (line 2), found by exact, stem, synonym and paraphrase matching
// in that order. Like the jar, each stage matches independently of the others
// (a later stage may repeat an earlier stage's pair), words are compared by their
// Java hash keys, and the order in which candidates are listed is the jar's, since
// the alignment search breaks ties by it.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "meteor/meteor_resources.hpp"

namespace fastamfm {

enum class MeteorStage : uint8_t { kExact = 0, kStem = 1, kSynonym = 2, kParaphrase = 3 };
constexpr size_t kMeteorStages = 4;

// Which stages run (in the fixed order exact, stem, synonym, paraphrase).
using MeteorStageSet = std::array<bool, kMeteorStages>;

// Everything the matchers need to know about one word, computed once per distinct
// word of a batch.
struct MeteorWord {
  int32_t key = 0;       // Java String.hashCode of the word
  int32_t stem_key = 0;  // Java String.hashCode of its Snowball stem
  int32_t paraphrase_id = MeteorResources::kUnknownWord;
  bool function_word = false;
  std::vector<uint32_t> synsets;  // sorted
};

MeteorWord describe_meteor_word(const std::string& word, const MeteorResources* resources,
                                const MeteorStageSet& stages);

// A Bloom filter of 32-bit values with two hashes, 64 * Words bits: "may contain"
// has false positives only, so it lets matching skip most absent values cheaply.
template <size_t Words>
struct MeteorValueFilter {
  static_assert(Words == 4 || Words == 8, "256 or 512 bits");
  static constexpr uint32_t kShift = Words == 4 ? 24 : 23;
  std::array<uint64_t, Words> bits{};
  void add(uint32_t value) {
    set(value * 0x9E3779B1u);
    set(value * 0x85EBCA77u);
  }
  // Both bits read, without a branch: callers test many values in a row.
  bool may_contain(uint32_t value) const { return (bit(value * 0x9E3779B1u) & bit(value * 0x85EBCA77u)) != 0; }

 private:
  void set(uint32_t hash) { bits[hash >> kShift >> 6] |= uint64_t{1} << (hash >> kShift & 63); }
  // 0 or 1 (an integer, so that may_contain's "&" is arithmetic: clang warns on "&" of two bools)
  uint64_t bit(uint32_t hash) const { return bits[hash >> kShift >> 6] >> (hash >> kShift & 63) & 1; }
};

// A line ready for matching: its words, and the paraphrase table's phrases in it
// (found once per line, reused for every pairing).
struct MeteorLine {
  std::vector<const MeteorWord*> words;
  // Hypotheses only: the words' keys and stem keys, which every pairing scans for
  // the reference's words (hot, as the same hypothesis meets all its references),
  // and filters of them.
  std::vector<int32_t> keys, stem_keys;
  MeteorValueFilter<4> key_filter, stem_key_filter;
  // Every table phrase in the line, sorted by (node, start): where each occurs.
  std::vector<MeteorPhraseOccurrence> phrases;
  MeteorValueFilter<8> phrase_nodes;  // the nodes of `phrases`
  // Per paraphrase of each phrase in the line (positions ascending, shorter
  // phrases first, then the table's order): its node, and the phrase's (start,
  // length). Matching scans the nodes; the spans are read only for a match.
  std::vector<uint32_t> paraphrase_nodes;
  std::vector<std::array<uint32_t, 2>> paraphrase_spans;
  size_t function_words = 0;
  // For hypotheses of at most 64 words: synset -> bitmask of the positions whose words
  // belong to it (open addressing, kNoSynset marks empty slots), so a partner word
  // finds its synonyms here with one probe per synset.
  static constexpr uint32_t kNoSynset = UINT32_MAX;
  std::vector<uint32_t> synset_slots;
  std::vector<uint64_t> synset_positions;
  uint64_t synonym_positions(uint32_t synset) const;
};

// Matching reads some parts of a line only on one side of a pair: the hypothesis
// (line 1) is searched for the reference's words, through its keys, key filters and
// synset table, which a reference line does not build.
enum class MeteorSide : uint8_t { kHypothesis, kReference };

void prepare_meteor_line(MeteorLine& line, const MeteorResources* resources, const MeteorStageSet& stages,
                         MeteorSide side);

// One candidate: words [start, start + length) of line 2 with
// [match_start, match_start + match_length) of line 1.
struct MeteorMatch {
  int32_t start;
  int32_t length;
  int32_t match_start;
  int32_t match_length;
  int32_t stage;
};

// Candidates grouped by their start in line 2, in the order the jar lists them.
struct MeteorCandidates {
  std::vector<MeteorMatch> found;    // in discovery order
  std::vector<MeteorMatch> matches;  // grouped by start: [begin[j], begin[j + 1])
  std::vector<int32_t> begin;
  std::vector<int32_t> coverage1;    // candidates covering each line-1 word
  std::vector<int32_t> coverage2;
  uint64_t max_candidates = 0;       // the limit (common/limits.hpp) this search ran under
  std::vector<uint64_t> index;       // scratch of the matching stages
  std::vector<uint32_t> positions;
  size_t count(size_t j) const { return static_cast<size_t>(begin[j + 1] - begin[j]); }
};

// find_meteor_candidates throws InputError when a pair has more candidates than
// the process-wide limit meteor_max_candidates.

void find_meteor_candidates(const MeteorLine& line1, const MeteorLine& line2, const MeteorStageSet& stages,
                            MeteorCandidates& out);

}  // namespace fastamfm
