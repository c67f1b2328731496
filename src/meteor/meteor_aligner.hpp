// METEOR's alignment search: from all candidate matches, pick the alignment the
// jar picks. Unambiguous one-to-one candidates are fixed first; the rest is a beam
// search (width 40) over line-2 positions, ranking partial alignments by weighted
// matched words (integer-truncated, as the jar accumulates them in ints), then
// fewer chunks, then smaller summed distance, with the jar's stable ordering and
// its bookkeeping quirks reproduced so that ties resolve identically. Memory stays
// linear in the line lengths: a generation's listing of successors is cut to the beam
// as it grows, and only the survivors get bitsets and enter the choice pool.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "meteor/meteor_matcher.hpp"

namespace fastamfm {

struct MeteorAlignment {
  // Matched words by stage, split into content and function words, per line.
  std::array<int32_t, kMeteorStages> content1{}, content2{}, function1{}, function2{};
  int32_t chunks = 0;
};

// Reusable scratch space for one thread.
struct MeteorAlignerScratch;

class MeteorAligner {
 public:
  static constexpr int kBeamSize = 40;

  MeteorAligner();
  ~MeteorAligner();

  // The jar's alignment of line1 and line2 from their candidate matches
  // (find_meteor_candidates of the same two lines).
  MeteorAlignment align(const MeteorLine& line1, const MeteorLine& line2, const MeteorCandidates& candidates);

 private:
  std::unique_ptr<MeteorAlignerScratch> scratch_;
};

}  // namespace fastamfm
