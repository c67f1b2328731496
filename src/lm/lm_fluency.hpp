// FM, the fluency half of AM-FM (D'Haro et al. 2019): how close the language-model
// probabilities of a hypothesis and of its references are.
//
// Sentence probability, from log10 P = sum of the N+1 predictions of the N words
// and </s> (with <s> as the first context, as kenlm.Model.score computes it):
//   per-word            exp(ln P / N)      the AM-FM toolkit's normalisation
//   inverse-perplexity  exp(ln P / (N+1))  1 / perplexity, as Deep AM-FM uses it
// A sentence with no scored word (N = 0: empty, or every word unknown under
// oov=skip) has probability 0, so an empty response never looks fluent.
// Unknown words (oov):
//   skip   their predictions leave log10 P and N, as SRILM's `ngram -ppl` (the tool of
//          the AM-FM toolkit) excludes OOVs; the words after them are scored from
//          the state the model reaches, as kenlm does
//   score  they count with the model's <unk> probability, as kenlm.Model.score does
//          (-100 in log10 for a closed-vocabulary model without a trained <unk>)
// FM against one reference = min(p_hyp, p_ref) / max(p_hyp, p_ref) (0 when both
// are 0). Over the references of a hypothesis: mean (the paper), max, or maxmin
// (Deep AM-FM: max - min of the per-reference ratios, 0 for a single reference).
#pragma once
#include <string>
#include <vector>

#include "lm/lm_model.hpp"
#include "text/tokenized_batch.hpp"

namespace fastamfm {

enum class FluencyNormalization { PerWord, InversePerplexity };
enum class FluencyCombine { Mean, Max, MaxMin };
enum class FluencyOov { Skip, Score };
FluencyNormalization parse_fluency_normalization(const std::string& name);
FluencyCombine parse_fluency_combine(const std::string& name);
FluencyOov parse_fluency_oov(const std::string& name);

double normalized_sentence_probability(double log10_prob, size_t n_words, FluencyNormalization normalization);

struct FluencyScores {
  std::vector<double> fm;        // per hypothesis
  std::vector<double> hyp_prob;  // normalised probability per hypothesis
  std::vector<double> ref_prob;  // normalised probability per reference
};

// Normalised probability of every sentence of `batch` (with <s> and </s>).
std::vector<double> sentence_probabilities(const NgramModel& model, const TokenizedBatch& batch,
                                           FluencyNormalization normalization, FluencyOov oov, int workers,
                                           const InterruptCheck& interrupted = {});

// FM of every hypothesis from the normalised probabilities of the hypotheses and of
// their references (so reference probabilities computed once can serve many systems).
std::vector<double> fluency_from_probabilities(const std::vector<double>& hyp_prob, const std::vector<double>& ref_prob,
                                               const std::vector<uint64_t>& segment_offsets, FluencyCombine combine);

// refs holds the references of every hypothesis in turn: those of hypothesis i are
// refs[segment_offsets[i] .. segment_offsets[i+1]).
FluencyScores fluency_scores(const NgramModel& model, const TokenizedBatch& hyps, const TokenizedBatch& refs,
                             const std::vector<uint64_t>& segment_offsets, FluencyNormalization normalization,
                             FluencyCombine combine, FluencyOov oov, int workers,
                             const InterruptCheck& interrupted = {});

}  // namespace fastamfm
