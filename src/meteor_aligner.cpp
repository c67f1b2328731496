#include "meteor_aligner.hpp"

#include <algorithm>
#include <cstdlib>

namespace fastamfm {

namespace {

// Stage weights of the search (METEOR's "best weights for evaluation"); the
// scorer's weights are different and apply only to the final statistics.
constexpr double kSearchWeight[kMeteorStages] = {1.0, 0.5, 0.5, 0.5};

struct PartialAlignment {
  std::vector<const MeteorMatch*> matches;  // by start in line 2
  std::vector<uint8_t> used1, used2;
  int32_t matches1 = 0;  // weighted, truncated to int after every addition (as in the jar)
  int32_t matches2 = 0;
  int32_t chunks = 0;
  int32_t idx = 0;
  int32_t last_match_end = -1;
  int32_t distance = 0;

  bool is_used(const MeteorMatch& m) const {
    for (int32_t k = 0; k < m.length; ++k)
      if (used2[static_cast<size_t>(m.start + k)]) return true;
    for (int32_t k = 0; k < m.match_length; ++k)
      if (used1[static_cast<size_t>(m.match_start + k)]) return true;
    return false;
  }
  void set_used(const MeteorMatch& m) {
    for (int32_t k = 0; k < m.length; ++k) used2[static_cast<size_t>(m.start + k)] = 1;
    for (int32_t k = 0; k < m.match_length; ++k) used1[static_cast<size_t>(m.match_start + k)] = 1;
  }
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

// More weighted matches first, then fewer chunks, then smaller distance.
bool ranks_before(const PartialAlignment& x, const PartialAlignment& y) {
  const int32_t mx = x.matches1 + x.matches2, my = y.matches1 + y.matches2;
  if (mx != my) return mx > my;
  if (x.chunks != y.chunks) return x.chunks < y.chunks;
  return x.distance < y.distance;
}

}  // namespace

struct MeteorAlignerScratch {
  MeteorCandidates candidates;
  std::vector<PartialAlignment> paths, next;
};

MeteorAligner::MeteorAligner() : scratch_(std::make_unique<MeteorAlignerScratch>()) {}
MeteorAligner::~MeteorAligner() = default;

MeteorAlignment MeteorAligner::align(const std::vector<const MeteorWord*>& words1,
                                     const std::vector<const MeteorWord*>& words2, const MeteorResources* resources,
                                     const MeteorStageSet& stages) {
  MeteorCandidates& cand = scratch_->candidates;
  find_meteor_candidates(words1, words2, resources, stages, cand);
  const size_t n1 = words1.size(), n2 = words2.size();

  // One-to-one candidates that nothing else covers are certain.
  PartialAlignment start;
  start.matches.assign(n2, nullptr);
  start.used1.assign(n1, 0);
  start.used2.assign(n2, 0);
  for (size_t j = 0; j < n2; ++j) {
    if (cand.by_start[j].size() != 1) continue;
    const MeteorMatch& m = cand.by_start[j][0];
    bool overlap = false;
    for (int32_t k = 0; k < m.length; ++k) overlap = overlap || cand.coverage2[j + static_cast<size_t>(k)] != 1;
    for (int32_t k = 0; k < m.match_length; ++k)
      overlap = overlap || cand.coverage1[static_cast<size_t>(m.match_start + k)] != 1;
    if (!overlap) {
      start.matches[j] = &m;
      start.set_used(m);
    }
  }

  // Beam search, left to right over line 2. Paths are moved, not copied, where
  // the jar reuses the same object; std::stable_sort orders like Java's TimSort.
  auto& paths = scratch_->paths;
  auto& next = scratch_->next;
  next.clear();
  next.push_back(std::move(start));
  for (size_t current = 0; current <= n2; ++current) {
    paths.swap(next);
    next.clear();
    std::stable_sort(paths.begin(), paths.end(), ranks_before);
    const size_t width = std::min<size_t>(paths.size(), kBeamSize);
    for (size_t rank = 0; rank < width; ++rank) {
      PartialAlignment& path = paths[rank];
      if (current == n2) {
        if (path.last_match_end != -1) ++path.chunks;
        next.push_back(std::move(path));
        continue;
      }
      if (path.used2[current]) {
        if (static_cast<int32_t>(current) < path.idx) {
          next.push_back(std::move(path));
        } else if (path.idx >= 0 && static_cast<size_t>(path.idx) < n2 && path.matches[static_cast<size_t>(path.idx)] != nullptr) {
          const MeteorMatch& m = *path.matches[static_cast<size_t>(path.idx)];
          path.take(m);
          path.distance += std::abs(m.start - m.match_start);
          next.push_back(std::move(path));
        }
        continue;
      }
      for (const MeteorMatch& m : cand.by_start[current]) {
        if (path.is_used(m)) continue;
        PartialAlignment branch = path;
        branch.set_used(m);
        branch.matches[current] = &m;
        branch.take(m);
        // The jar adds this distance to the path it branched from, not to the branch.
        path.distance += std::abs(m.start - m.match_start);
        next.push_back(std::move(branch));
      }
      if (path.last_match_end != -1) {
        ++path.chunks;
        path.last_match_end = -1;
      }
      ++path.idx;
      next.push_back(std::move(path));
    }
    if (next.empty()) next.push_back(std::move(paths[0]));
  }
  std::stable_sort(next.begin(), next.end(), ranks_before);
  const PartialAlignment& best = next[0];

  MeteorAlignment out;
  size_t idx = 0;
  int32_t last_match_end = -1;
  while (idx < n2) {
    const MeteorMatch* m = best.matches[idx];
    if (m == nullptr) {
      if (last_match_end != -1) {
        ++out.chunks;
        last_match_end = -1;
      }
      ++idx;
      continue;
    }
    for (int32_t k = 0; k < m->match_length; ++k)
      ++(words1[static_cast<size_t>(m->match_start + k)]->function_word ? out.function1 : out.content1)[m->stage];
    for (int32_t k = 0; k < m->length; ++k)
      ++(words2[static_cast<size_t>(m->start + k)]->function_word ? out.function2 : out.content2)[m->stage];
    if (last_match_end != -1 && m->match_start != last_match_end) ++out.chunks;
    idx = static_cast<size_t>(m->start + m->length);
    last_match_end = m->match_start + m->match_length;
  }
  if (last_match_end != -1) ++out.chunks;
  return out;
}

}  // namespace fastamfm
