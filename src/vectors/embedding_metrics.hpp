// The embedding metrics of Liu et al. (2016) with nlg-eval's formulas:
//   Embedding Average  cosine of the sums of the token vectors of hypothesis and reference;
//   Vector Extrema     cosine of the per-dimension extrema: the max when the min is > 0,
//                      the max when the min is < 0 and max > -min, else the min -- so a
//                      dimension whose min is exactly 0 gives 0, as nlg-eval's rule does;
//   Greedy Matching    mean over the two directions of the average best token cosine.
// Per hypothesis the maximum over its references; a cosine with a zero vector is 0
// (sklearn's cosine_similarity). Unknown tokens get the mean of all vectors (nlg-eval),
// are skipped, or get a zero vector. nlg-eval fails on a text without tokens; here
// that is an InputError naming it (EmptyPolicy::Error) or it scores 0 against
// anything (EmptyPolicy::Zero).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "vectors/embedded_references.hpp"
#include "parallel/parallel.hpp"
#include "text/tokenized_batch.hpp"

namespace fastamfm {

enum class EmptyPolicy { Error, Zero };
EmptyPolicy parse_empty_policy(std::string_view name);

struct EmbeddingMetricSelection {
  bool average = true;
  bool extrema = true;
  bool greedy = true;
};

// Per-hypothesis scores; a metric that was not selected stays empty.
struct EmbeddingScores {
  std::vector<double> average, extrema, greedy;
};

// `what` names the caller in errors ("embedding_average: hyps[3] has no tokens ...").
EmbeddingScores score_embedding_metrics(const EmbeddedReferences& refs, const TokenizedBatch& hyps,
                                        EmbeddingMetricSelection which, EmptyPolicy empty, const std::string& what,
                                        int workers, const InterruptCheck& interrupted = {});

}  // namespace fastamfm
