// METEOR 1.5 scoring: sufficient statistics of an alignment, the score formula
// (weighted precision/recall with function-word weight delta, harmonic mean with
// alpha, fragmentation penalty gamma * (chunks / matches)^beta), the corpus score
// from summed statistics, and the batch driver that normalises, matches, aligns
// and scores on all cores.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "meteor/meteor_aligner.hpp"
#include "meteor/meteor_resources.hpp"
#include "parallel/parallel.hpp"
#include "text/text_batch.hpp"

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

// A bound that no alignment of these candidates can score above, from the words
// some candidate covers, each at its best stage, and the chunks any alignment
// using them must have (see the definition). A reference whose bound is below the
// best score found so far cannot be the segment's best, so its alignment search is
// skipped.
struct MeteorBoundScratch {
  std::vector<int32_t> best_stage;
  std::vector<double> test_weights, test_words, reference_weights, reference_words;
};
double meteor_score_bound(const MeteorCandidates& candidates, const MeteorLine& test, const MeteorLine& reference,
                          const MeteorParameters& params, MeteorBoundScratch& scratch);

// Texts normalised, split into words, each distinct word described once, and
// prepared for matching (paraphrase phrases found): the form the aligner consumes.
// Its lines point into its own word table, so it is neither copied nor moved.
class MeteorPreparedTexts {
 public:
  MeteorPreparedTexts(const TextBatch& texts, MeteorSide side, const MeteorResources* resources,
                      const MeteorStageSet& stages, int workers, const InterruptCheck& interrupted);
  MeteorPreparedTexts(const MeteorPreparedTexts&) = delete;
  MeteorPreparedTexts& operator=(const MeteorPreparedTexts&) = delete;

  size_t size() const { return lines_.size(); }
  const MeteorLine& line(size_t i) const { return lines_[i]; }

 private:
  std::vector<MeteorWord> words_;
  std::vector<MeteorLine> lines_;
};

// References of n segments prepared once, so that many systems can be scored
// against them. Keeps the resources it was prepared with alive.
class MeteorReferences {
 public:
  MeteorReferences(const TextBatch& refs, std::vector<uint64_t> segment_offsets,
                   std::shared_ptr<const MeteorResources> resources, const MeteorStageSet& stages, int workers,
                   const InterruptCheck& interrupted = {});

  size_t num_segments() const { return offsets_.size() - 1; }
  size_t num_references() const { return texts_->size(); }
  const MeteorResources* resources() const { return resources_.get(); }
  const MeteorStageSet& stages() const { return stages_; }

  struct Result {
    std::vector<double> sentences;
    std::vector<MeteorStats> stats;  // of the best-scoring reference of each segment
    MeteorStats total;               // their sum (MeteorStats::add): the corpus statistics
    double corpus = 0;
  };
  // Scores hyps[i] against the references of segment i. A segment keeps the
  // statistics of its best reference (the first one on ties); the corpus score
  // comes from the summed statistics.
  Result score(const TextBatch& hyps, int workers, const InterruptCheck& interrupted = {}) const;

 private:
  std::shared_ptr<const MeteorResources> resources_;
  MeteorStageSet stages_;
  std::vector<uint64_t> offsets_;
  std::unique_ptr<MeteorPreparedTexts> texts_;
};

}  // namespace fastamfm
