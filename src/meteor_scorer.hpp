// METEOR 1.5 scoring: sufficient statistics of an alignment, the score formula
// (weighted precision/recall with function-word weight delta, harmonic mean with
// alpha, fragmentation penalty gamma * (chunks / matches)^beta), the corpus score
// from summed statistics, and the batch driver that normalises, matches, aligns
// and scores on all cores.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "meteor_aligner.hpp"
#include "meteor_resources.hpp"
#include "parallel.hpp"
#include "text_batch.hpp"

namespace fastamfm {

// METEOR 1.5, English, task "default" (= ranking): the jar's -l en parameters.
struct MeteorParameters {
  double alpha = 0.85;
  double beta = 0.20;
  double gamma = 0.60;
  double delta = 0.75;
  std::array<double, kMeteorStages> stage_weights{1.0, 0.6, 0.8, 0.6};
};

// The jar's sufficient statistics of one segment (or, summed, of a corpus).
struct MeteorStats {
  double test_length = 0, reference_length = 0;
  double test_function_words = 0, reference_function_words = 0;
  std::array<double, kMeteorStages> test_content{}, reference_content{}, test_function{}, reference_function{};
  double chunks = 0;

  double test_matches() const;
  double reference_matches() const;
  // Adds a segment's statistics; like the jar, a segment matched entirely in one
  // chunk adds no chunk (so perfect segments carry no fragmentation penalty).
  void add(const MeteorStats& segment);
};

MeteorStats meteor_stats(const MeteorAlignment& alignment, size_t test_length, size_t reference_length,
                         size_t test_function_words, size_t reference_function_words);

// The score of (summed) statistics; 0 where the formula divides by zero.
double meteor_score(const MeteorStats& stats, const MeteorParameters& params = {});

struct MeteorBatchResult {
  std::vector<double> sentences;
  std::vector<MeteorStats> stats;  // of the best-scoring reference of each segment
  double corpus = 0;
};

// Scores hyps[i] against refs[ref_offsets[i] .. ref_offsets[i + 1]). A segment keeps
// the statistics of its best reference (first one on ties); the corpus score comes
// from the summed statistics. `resources` may be null only when `stages` needs none.
MeteorBatchResult meteor_score_batch(const TextBatch& hyps, const TextBatch& refs,
                                     const std::vector<uint64_t>& ref_offsets, const MeteorResources* resources,
                                     const MeteorStageSet& stages, int workers, const InterruptCheck& interrupted = {});

}  // namespace fastamfm
