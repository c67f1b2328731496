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

#include "meteor_resources.hpp"

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

// One candidate: words [start, start + length) of line 2 with
// [match_start, match_start + match_length) of line 1.
struct MeteorMatch {
  int32_t start;
  int32_t length;
  int32_t match_start;
  int32_t match_length;
  uint8_t stage;
};

struct MeteorCandidates {
  std::vector<std::vector<MeteorMatch>> by_start;  // indexed by start in line 2
  std::vector<int32_t> coverage1;                  // candidates covering each line-1 word
  std::vector<int32_t> coverage2;
};

// words1/words2: the two lines as pointers into the batch's word table.
void find_meteor_candidates(const std::vector<const MeteorWord*>& words1, const std::vector<const MeteorWord*>& words2,
                            const MeteorResources* resources, const MeteorStageSet& stages,
                            MeteorCandidates& out);

}  // namespace fastamfm
