#include "meteor/meteor_aligner.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace fastamfm {

namespace {

// Stage weights of the search (METEOR's "best weights for evaluation"); the
// scorer's weights are different and apply only to the final statistics.
constexpr double kSearchWeight[kMeteorStages] = {1.0, 0.5, 0.5, 0.5};

// A partial alignment's counters. Its used-word bitsets live in a per-generation
// arena at `block`; the candidates it chose are a chain through the choice pool
// (shared prefixes are stored once), ending at `last_choice`.
struct PartialAlignment {
  size_t block = 0;
  int32_t last_choice = -1;
  int32_t matches1 = 0;  // weighted, truncated to int after every addition (as in the jar)
  int32_t matches2 = 0;
  int32_t chunks = 0;
  int32_t idx = 0;
  int32_t last_match_end = -1;
  int32_t distance = 0;

  // Counts a match that the path takes next (line-2 order).
  void take(const MeteorMatch& m) {
    const double w = kSearchWeight[m.stage];
    matches1 = static_cast<int32_t>(matches1 + m.match_length * w);
    matches2 = static_cast<int32_t>(matches2 + m.length * w);
    if (last_match_end != -1 && m.match_start != last_match_end) ++chunks;
    idx = m.start + m.length;
    last_match_end = m.match_start + m.match_length;
  }
};

// The ranking as two integers compared lexicographically: more weighted matches,
// then fewer chunks, then smaller distance, then the earlier position, which makes
// the order exactly that of a stable sort.
struct RankKey {
  uint64_t hi, lo;
  bool operator<(const RankKey& o) const { return hi != o.hi ? hi < o.hi : lo < o.lo; }
};

RankKey rank_key(const PartialAlignment& p, uint32_t index) {
  const auto matches = static_cast<uint32_t>(p.matches1 + p.matches2);
  return {(uint64_t{UINT32_MAX - matches} << 32) | static_cast<uint32_t>(p.chunks),
          (uint64_t{static_cast<uint32_t>(p.distance)} << 32) | index};
}

// A path the search could continue with: a copy of `parent` that, when
// `candidate` >= 0, has taken that candidate too.
struct Successor {
  PartialAlignment state;
  int32_t parent;
  int32_t candidate;
};

// The jar lists every successor of a generation, stable-sorts them and keeps the
// best kBeamSize. Keeping only the best kBeamSize while they are listed gives the
// same paths in the same order (the listing position breaks every tie) with memory
// that does not grow with the number of candidates.
class BeamSelector {
 public:
  void clear() {
    heap_.clear();
    offered_ = 0;
  }
  void offer(const PartialAlignment& state, int32_t parent, int32_t candidate) {
    const RankKey key = rank_key(state, offered_++);
    if (heap_.size() == static_cast<size_t>(MeteorAligner::kBeamSize)) {
      if (!(key < heap_.front().first)) return;
      std::pop_heap(heap_.begin(), heap_.end(), by_key);
      heap_.back() = {key, Successor{state, parent, candidate}};
    } else {
      heap_.push_back({key, Successor{state, parent, candidate}});
    }
    std::push_heap(heap_.begin(), heap_.end(), by_key);
  }
  bool empty() const { return heap_.empty(); }
  // The kept successors, best first (consumes the selection).
  std::vector<std::pair<RankKey, Successor>>& ranked() {
    std::sort_heap(heap_.begin(), heap_.end(), by_key);
    return heap_;
  }

 private:
  static bool by_key(const std::pair<RankKey, Successor>& a, const std::pair<RankKey, Successor>& b) {
    return a.first < b.first;
  }
  std::vector<std::pair<RankKey, Successor>> heap_;
  uint32_t offered_ = 0;
};

}  // namespace

struct Choice {
  int32_t candidate;
  int32_t previous;
};

// Block layout: the line-1 used bitset (w1 words), then the line-2 one (w2 words).
struct MeteorAlignerScratch {
  MeteorCandidates candidates;
  std::vector<PartialAlignment> paths, next_paths;
  BeamSelector beam;
  std::vector<uint64_t> arena, next_arena;
  std::vector<Choice> choices;
  std::vector<int32_t> fixed;  // the certain candidate of each line-2 start, or -1
  size_t w1 = 0, block_size = 0;

  static bool test(const uint64_t* bits, int32_t i) { return (bits[i >> 6] >> (i & 63) & 1) != 0; }
  static void set(uint64_t* bits, int32_t i) { bits[i >> 6] |= uint64_t{1} << (i & 63); }

  bool is_used(size_t block, const MeteorMatch& m) const {
    const uint64_t* u1 = arena.data() + block;
    const uint64_t* u2 = u1 + w1;
    for (int32_t k = 0; k < m.length; ++k)
      if (test(u2, m.start + k)) return true;
    for (int32_t k = 0; k < m.match_length; ++k)
      if (test(u1, m.match_start + k)) return true;
    return false;
  }
  void set_used(std::vector<uint64_t>& a, size_t block, const MeteorMatch& m) const {
    uint64_t* u1 = a.data() + block;
    uint64_t* u2 = u1 + w1;
    for (int32_t k = 0; k < m.length; ++k) set(u2, m.start + k);
    for (int32_t k = 0; k < m.match_length; ++k) set(u1, m.match_start + k);
  }
};

MeteorAligner::MeteorAligner() : scratch_(std::make_unique<MeteorAlignerScratch>()) {}
MeteorAligner::~MeteorAligner() = default;

MeteorAlignment MeteorAligner::align(const MeteorLine& line1, const MeteorLine& line2,
                                     const MeteorResources* resources, const MeteorStageSet& stages) {
  MeteorAlignerScratch& s = *scratch_;
  MeteorCandidates& cand = s.candidates;
  find_meteor_candidates(line1, line2, resources, stages, cand);
  const size_t n1 = line1.words.size(), n2 = line2.words.size();
  s.w1 = (n1 + 63) / 64;
  s.block_size = s.w1 + (n2 + 63) / 64;
  s.choices.clear();

  // The start: one-to-one candidates that nothing else covers are certain.
  s.arena.assign(s.block_size, 0);
  s.fixed.assign(n2, -1);
  for (size_t j = 0; j < n2; ++j) {
    if (cand.count(j) != 1) continue;
    const MeteorMatch& m = cand.matches[static_cast<size_t>(cand.begin[j])];
    bool overlap = false;
    for (int32_t k = 0; k < m.length; ++k) overlap = overlap || cand.coverage2[j + static_cast<size_t>(k)] != 1;
    for (int32_t k = 0; k < m.match_length; ++k)
      overlap = overlap || cand.coverage1[static_cast<size_t>(m.match_start + k)] != 1;
    if (!overlap) {
      s.fixed[j] = cand.begin[j];
      s.set_used(s.arena, 0, m);
    }
  }

  // Beam search, left to right over line 2. Each generation's survivors get their
  // bitsets copied into a new arena. A used line-2 word at the path's next
  // position can only belong to a certain candidate (chosen ones move idx past
  // their words), so the jar's lookup of the path's match there reads `fixed`.
  s.paths.assign(1, PartialAlignment{});
  for (size_t current = 0; current <= n2; ++current) {
    s.beam.clear();
    for (size_t rank = 0; rank < s.paths.size(); ++rank) {
      PartialAlignment& path = s.paths[rank];
      const auto parent = static_cast<int32_t>(rank);
      if (current == n2) {
        if (path.last_match_end != -1) ++path.chunks;
        s.beam.offer(path, parent, -1);
        continue;
      }
      const uint64_t* used2 = s.arena.data() + path.block + s.w1;
      if (MeteorAlignerScratch::test(used2, static_cast<int32_t>(current))) {
        if (static_cast<int32_t>(current) < path.idx) {
          s.beam.offer(path, parent, -1);
        } else if (path.idx >= 0 && static_cast<size_t>(path.idx) < n2 && s.fixed[static_cast<size_t>(path.idx)] >= 0) {
          const MeteorMatch& m = cand.matches[static_cast<size_t>(s.fixed[static_cast<size_t>(path.idx)])];
          path.take(m);
          path.distance += std::abs(m.start - m.match_start);
          s.beam.offer(path, parent, -1);
        }
        continue;
      }
      for (int32_t c = cand.begin[current]; c < cand.begin[current + 1]; ++c) {
        const MeteorMatch& m = cand.matches[static_cast<size_t>(c)];
        if (s.is_used(path.block, m)) continue;
        PartialAlignment branch = path;
        branch.take(m);
        s.beam.offer(branch, parent, c);
        // The jar adds this distance to the path it branched from, not to the branch.
        path.distance += std::abs(m.start - m.match_start);
      }
      if (path.last_match_end != -1) {
        ++path.chunks;
        path.last_match_end = -1;
      }
      ++path.idx;
      s.beam.offer(path, parent, -1);
    }
    if (s.beam.empty()) s.beam.offer(s.paths[0], 0, -1);
    // The survivors, best first, each with its own copy of its parent's bitsets.
    s.next_arena.clear();
    s.next_paths.clear();
    for (const auto& kept : s.beam.ranked()) {
      const Successor& next = kept.second;
      PartialAlignment state = next.state;
      state.block = s.next_arena.size();
      const uint64_t* from = s.arena.data() + s.paths[static_cast<size_t>(next.parent)].block;
      s.next_arena.insert(s.next_arena.end(), from, from + s.block_size);
      if (next.candidate >= 0) {
        s.set_used(s.next_arena, state.block, cand.matches[static_cast<size_t>(next.candidate)]);
        s.choices.push_back({next.candidate, state.last_choice});
        state.last_choice = static_cast<int32_t>(s.choices.size() - 1);
      }
      s.next_paths.push_back(state);
    }
    s.paths.swap(s.next_paths);
    s.arena.swap(s.next_arena);
  }
  std::vector<int32_t>& best = s.fixed;  // the certain candidates plus the chosen ones
  for (int32_t c = s.paths[0].last_choice; c >= 0; c = s.choices[static_cast<size_t>(c)].previous) {
    const int32_t candidate = s.choices[static_cast<size_t>(c)].candidate;
    best[static_cast<size_t>(cand.matches[static_cast<size_t>(candidate)].start)] = candidate;
  }

  MeteorAlignment out;
  size_t idx = 0;
  int32_t last_match_end = -1;
  while (idx < n2) {
    if (best[idx] < 0) {
      if (last_match_end != -1) {
        ++out.chunks;
        last_match_end = -1;
      }
      ++idx;
      continue;
    }
    const MeteorMatch& m = cand.matches[static_cast<size_t>(best[idx])];
    const auto stage = static_cast<size_t>(m.stage);
    for (int32_t k = 0; k < m.match_length; ++k)
      ++(line1.words[static_cast<size_t>(m.match_start + k)]->function_word ? out.function1 : out.content1)[stage];
    for (int32_t k = 0; k < m.length; ++k)
      ++(line2.words[static_cast<size_t>(m.start + k)]->function_word ? out.function2 : out.content2)[stage];
    if (last_match_end != -1 && m.match_start != last_match_end) ++out.chunks;
    idx = static_cast<size_t>(m.start + m.length);
    last_match_end = m.match_start + m.match_length;
  }
  if (last_match_end != -1) ++out.chunks;
  return out;
}

}  // namespace fastamfm
