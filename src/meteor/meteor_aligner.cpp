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
// (shared prefixes are stored once), ending at `last_choice`, plus the candidate it
// took in this generation (`pending_choice`), pooled only if the path survives.
struct PartialAlignment {
  size_t block = 0;
  int32_t last_choice = -1;
  int32_t pending_choice = -1;
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

// The ranking as one 128-bit integer (compared without branches): more weighted
// matches, then fewer chunks, then smaller distance, then the earlier position,
// which makes the order exactly that of a stable sort (positions follow the
// listing order).
__extension__ using RankKey = unsigned __int128;

RankKey rank_key(const PartialAlignment& p, size_t position) {
  const auto matches = static_cast<uint32_t>(p.matches1 + p.matches2);
  const uint64_t hi = (uint64_t{UINT32_MAX - matches} << 32) | static_cast<uint32_t>(p.chunks);
  const uint64_t lo = (uint64_t{static_cast<uint32_t>(p.distance)} << 32) | static_cast<uint32_t>(position);
  return (RankKey{hi} << 64) | lo;
}

size_t position_of(const RankKey& k) { return static_cast<size_t>(k & UINT32_MAX); }

// Keeps the best `keep` paths in the order Java's stable sort would put them
// first (the jar drops everything past the beam).
void rank_best(std::vector<PartialAlignment>& v, size_t keep, std::vector<RankKey>& keys,
               std::vector<PartialAlignment>& out) {
  keys.resize(v.size());
  for (size_t i = 0; i < v.size(); ++i) keys[i] = rank_key(v[i], i);
  // The best `keep`, ranked: selected first where the listing is longer.
  if (keys.size() > keep) {
    std::nth_element(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(keep), keys.end());
    keys.resize(keep);
  }
  const bool moved = !std::is_sorted(keys.begin(), keys.end());
  if (moved) std::sort(keys.begin(), keys.end());
  if (!moved && keys.size() == v.size()) return;
  out.clear();
  for (const RankKey& k : keys) out.push_back(v[position_of(k)]);
  v.swap(out);
}

}  // namespace

struct Choice {
  int32_t candidate;
  int32_t previous;
};

// Block layout: the line-1 used bitset (w1 words), then the line-2 one (w2 words).
struct MeteorAlignerScratch {
  std::vector<PartialAlignment> paths, next, ranked;
  std::vector<RankKey> keys;
  std::vector<uint64_t> arena, next_arena;
  std::vector<Choice> choices;
  std::vector<int32_t> fixed;  // the certain candidate of each line-2 start, or -1
  size_t w1 = 0, block_size = 0;

  static bool test(const uint64_t* bits, int32_t i) { return (bits[i >> 6] >> (i & 63) & 1) != 0; }
  static void set(uint64_t* bits, int32_t i) { bits[i >> 6] |= uint64_t{1} << (i & 63); }

  // Lists `path` (or, with pending_choice set afterwards, a branch of it) for the
  // next generation. Its bitsets stay its parent's until it survives the ranking.
  PartialAlignment& push_next(const PartialAlignment& path) {
    next.push_back(path);
    return next.back();
  }
  // The jar lists every successor of a generation and keeps the best kBeamSize; a
  // path ranked below kBeamSize others can never come back, so a long listing is cut
  // to its best kBeamSize as it grows. The kept paths stay in listing order, so that
  // positions still break ties as the listing did: same survivors, bounded memory.
  void prune_next() {
    keys.resize(next.size());
    for (size_t i = 0; i < next.size(); ++i) keys[i] = rank_key(next[i], i);
    std::nth_element(keys.begin(), keys.begin() + MeteorAligner::kBeamSize, keys.end());
    keys.resize(MeteorAligner::kBeamSize);
    std::sort(keys.begin(), keys.end(),
              [](const RankKey& a, const RankKey& b) { return position_of(a) < position_of(b); });
    ranked.clear();
    for (const RankKey& k : keys) ranked.push_back(next[position_of(k)]);
    next.swap(ranked);
  }
  // The survivors (`paths`, ranked) that took a candidate in the last generation
  // mark it used in bitsets of their own and pool it. All survivors move to a new
  // arena then, so the arena and the pool grow by at most the beam per generation,
  // however many successors were listed; without a new candidate nothing changes.
  void start_generation(const MeteorCandidates& cand) {
    if (std::none_of(paths.begin(), paths.end(), [](const PartialAlignment& p) { return p.pending_choice >= 0; }))
      return;
    next_arena.clear();
    for (PartialAlignment& p : paths) {
      const uint64_t* from = arena.data() + p.block;
      p.block = next_arena.size();
      next_arena.insert(next_arena.end(), from, from + block_size);
      if (p.pending_choice < 0) continue;
      set_used(next_arena, p.block, cand.matches[static_cast<size_t>(p.pending_choice)]);
      choices.push_back({p.pending_choice, p.last_choice});
      p.last_choice = static_cast<int32_t>(choices.size() - 1);
      p.pending_choice = -1;
    }
    arena.swap(next_arena);
  }
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
                                     const MeteorCandidates& cand) {
  MeteorAlignerScratch& s = *scratch_;
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

  // Beam search, left to right over line 2, one generation per word. A used
  // line-2 word at the path's next position can only belong to a certain candidate
  // (chosen ones move idx past their words), so the jar's lookup of the path's
  // match there reads `fixed`.
  s.next.assign(1, PartialAlignment{});
  constexpr size_t kPruneAt = 16 * kBeamSize;
  for (size_t current = 0; current <= n2; ++current) {
    s.paths.swap(s.next);
    s.next.clear();
    rank_best(s.paths, kBeamSize, s.keys, s.ranked);
    s.start_generation(cand);
    // A path whose word here is used moves past it (or takes the certain candidate
    // that starts at its position); the jar drops it where neither applies.
    const auto step_over_used = [&](PartialAlignment& path) {
      if (static_cast<int32_t>(current) < path.idx) return true;
      if (path.idx < 0 || static_cast<size_t>(path.idx) >= n2 || s.fixed[static_cast<size_t>(path.idx)] < 0)
        return false;
      const MeteorMatch& m = cand.matches[static_cast<size_t>(s.fixed[static_cast<size_t>(path.idx)])];
      path.take(m);
      path.distance += std::abs(m.start - m.match_start);
      return true;
    };
    const auto close_and_advance = [](PartialAlignment& path) {
      if (path.last_match_end != -1) {
        ++path.chunks;
        path.last_match_end = -1;
      }
      ++path.idx;
    };
    if (current < n2 && cand.count(current) == 0) {
      // No candidate starts here: no path branches, so the generation is the paths
      // themselves, updated in place, in their ranked order.
      size_t kept = 0;
      for (PartialAlignment& path : s.paths) {
        const uint64_t* used2 = s.arena.data() + path.block + s.w1;
        const bool keep = MeteorAlignerScratch::test(used2, static_cast<int32_t>(current)) ? step_over_used(path)
                                                                                          : (close_and_advance(path), true);
        if (keep) s.paths[kept++] = path;
      }
      if (kept == 0) kept = 1;  // none left: the best path goes on unchanged, as below
      s.paths.resize(kept);
      s.next.swap(s.paths);
      continue;
    }
    const size_t width = s.paths.size();
    for (size_t rank = 0; rank < width; ++rank) {
      PartialAlignment& path = s.paths[rank];
      if (current == n2) {
        if (path.last_match_end != -1) ++path.chunks;
        s.push_next(path);
        continue;
      }
      const uint64_t* used2 = s.arena.data() + path.block + s.w1;
      if (MeteorAlignerScratch::test(used2, static_cast<int32_t>(current))) {
        if (step_over_used(path)) s.push_next(path);
        continue;
      }
      for (int32_t c = cand.begin[current]; c < cand.begin[current + 1]; ++c) {
        const MeteorMatch& m = cand.matches[static_cast<size_t>(c)];
        if (s.is_used(path.block, m)) continue;
        PartialAlignment& branch = s.push_next(path);
        branch.pending_choice = c;
        branch.take(m);
        // The jar adds this distance to the path it branched from, not to the branch.
        path.distance += std::abs(m.start - m.match_start);
        if (s.next.size() >= kPruneAt) s.prune_next();
      }
      close_and_advance(path);
      s.push_next(path);
      if (s.next.size() >= kPruneAt) s.prune_next();
    }
    if (s.next.empty()) s.push_next(s.paths[0]);
  }
  rank_best(s.next, 1, s.keys, s.ranked);
  std::vector<int32_t>& best = s.fixed;  // the certain candidates plus the chosen ones
  for (int32_t c = s.next[0].last_choice; c >= 0; c = s.choices[static_cast<size_t>(c)].previous) {
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
