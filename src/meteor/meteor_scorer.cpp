#include "meteor/meteor_scorer.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <unordered_map>

#include "common/errors.hpp"
#include "common/limits.hpp"
#include "meteor/meteor_normalizer.hpp"
#include "text/utf8.hpp"

namespace fastamfm {

namespace {
// Room for rounding between a bound and the score it bounds (both are sums of a few
// dozen terms of size <= 1): a reference is skipped only when clearly below.
constexpr double kBoundMargin = 1e-9;
}  // namespace

double MeteorStats::test_matches() const {
  double total = 0;
  for (size_t i = 0; i < kMeteorStages; ++i) total += test_content[i] + test_function[i];
  return total;
}

double MeteorStats::reference_matches() const {
  double total = 0;
  for (size_t i = 0; i < kMeteorStages; ++i) total += reference_content[i] + reference_function[i];
  return total;
}

void MeteorStats::add(const MeteorStats& s) {
  test_length += s.test_length;
  reference_length += s.reference_length;
  test_function_words += s.test_function_words;
  reference_function_words += s.reference_function_words;
  for (size_t i = 0; i < kMeteorStages; ++i) {
    test_content[i] += s.test_content[i];
    reference_content[i] += s.reference_content[i];
    test_function[i] += s.test_function[i];
    reference_function[i] += s.reference_function[i];
  }
  const bool whole_in_one_chunk =
      s.test_matches() == s.test_length && s.reference_matches() == s.reference_length && s.chunks == 1.0;
  if (!whole_in_one_chunk) chunks += s.chunks;
}

MeteorStats meteor_stats(const MeteorAlignment& a, size_t test_length, size_t reference_length,
                         size_t test_function_words, size_t reference_function_words) {
  MeteorStats s;
  s.test_length = static_cast<double>(test_length);
  s.reference_length = static_cast<double>(reference_length);
  s.test_function_words = static_cast<double>(test_function_words);
  s.reference_function_words = static_cast<double>(reference_function_words);
  for (size_t i = 0; i < kMeteorStages; ++i) {
    s.test_content[i] = a.content1[i];
    s.reference_content[i] = a.content2[i];
    s.test_function[i] = a.function1[i];
    s.reference_function[i] = a.function2[i];
  }
  s.chunks = a.chunks;
  return s;
}

namespace {

// What the score formula reads: weighted matches and lengths, match counts, chunks.
struct MeteorTotals {
  double test_weighted = 0, test_weighted_length = 0, reference_weighted = 0, reference_weighted_length = 0;
  double test_matches = 0, test_length = 0, reference_matches = 0, reference_length = 0;
  double chunks = 0;
};

// The operations run in the jar's order so that results agree to the last bit.
double score_of_totals(const MeteorTotals& t, const MeteorParameters& p) {
  const double precision = t.test_weighted / t.test_weighted_length;
  const double recall = t.reference_weighted / t.reference_weighted_length;
  const double fmean = 1.0 / (((1.0 - p.alpha) / precision) + (p.alpha / recall));
  double frag;
  if (t.test_matches == t.test_length && t.reference_matches == t.reference_length && t.chunks == 1.0)
    frag = 0;
  else
    frag = t.chunks / ((t.test_matches + t.reference_matches) / 2);
  const double penalty = p.gamma * std::pow(frag, p.beta);
  const double score = fmean * (1.0 - penalty);
  if (std::isnan(score)) return 0.0;
  return std::max(score, 0.0);
}

double weighted_length(double length, double function_words, const MeteorParameters& p) {
  return (p.delta * (length - function_words)) + ((1.0 - p.delta) * function_words);
}

}  // namespace

double meteor_score(const MeteorStats& s, const MeteorParameters& p) {
  MeteorTotals t;
  t.test_weighted_length = weighted_length(s.test_length, s.test_function_words, p);
  t.reference_weighted_length = weighted_length(s.reference_length, s.reference_function_words, p);
  for (size_t i = 0; i < kMeteorStages; ++i) t.test_weighted += s.test_content[i] * p.stage_weights[i] * p.delta;
  for (size_t i = 0; i < kMeteorStages; ++i)
    t.reference_weighted += s.reference_content[i] * p.stage_weights[i] * p.delta;
  for (size_t i = 0; i < kMeteorStages; ++i)
    t.test_weighted += s.test_function[i] * p.stage_weights[i] * (1.0 - p.delta);
  for (size_t i = 0; i < kMeteorStages; ++i)
    t.reference_weighted += s.reference_function[i] * p.stage_weights[i] * (1.0 - p.delta);
  t.test_matches = s.test_matches();
  t.reference_matches = s.reference_matches();
  t.test_length = s.test_length;
  t.reference_length = s.reference_length;
  t.chunks = s.chunks;
  return score_of_totals(t, p);
}

namespace {

// The runs of consecutive covered words of one line: each run's weighted matches
// and its words, each list sorted descending on its own.
void covered_runs(const int32_t* best_stage, const MeteorLine& line, const MeteorParameters& p,
                  std::vector<double>& weights, std::vector<double>& words) {
  weights.clear();
  words.clear();
  bool in_run = false;
  for (size_t i = 0; i < line.words.size(); ++i) {
    if (best_stage[i] < 0) {
      in_run = false;
      continue;
    }
    if (!in_run) {
      weights.push_back(0);
      words.push_back(0);
      in_run = true;
    }
    const double stage_weight = p.stage_weights[static_cast<size_t>(best_stage[i])];
    weights.back() += stage_weight * (line.words[i]->function_word ? 1.0 - p.delta : p.delta);
    words.back() += 1;
  }
  std::sort(weights.begin(), weights.end(), std::greater<>());
  std::sort(words.begin(), words.end(), std::greater<>());
}

}  // namespace

double meteor_score_bound(const MeteorCandidates& candidates, const MeteorLine& test, const MeteorLine& reference,
                          const MeteorParameters& p, MeteorBoundScratch& scratch) {
  if (candidates.found.empty()) return 0.0;  // no match: the score is 0
  const size_t n1 = test.words.size(), n2 = reference.words.size();
  // The highest-weighted stage among the candidates covering each word (-1: none).
  std::vector<int32_t>& best_stage = scratch.best_stage;
  best_stage.assign(n1 + n2, -1);
  const auto improve = [&](size_t word, int32_t stage) {
    int32_t& best = best_stage[word];
    if (best < 0 || p.stage_weights[static_cast<size_t>(stage)] > p.stage_weights[static_cast<size_t>(best)])
      best = stage;
  };
  for (const MeteorMatch& m : candidates.found) {
    for (int32_t k = 0; k < m.match_length; ++k) improve(static_cast<size_t>(m.match_start + k), m.stage);
    for (int32_t k = 0; k < m.length; ++k) improve(n1 + static_cast<size_t>(m.start + k), m.stage);
  }
  // A chunk is contiguous in both lines, so an alignment that matches words of k1
  // runs of line 1 and k2 runs of line 2 has at least max(k1, k2) chunks, and its
  // matches are at most those of the best k1 (k2) runs, each word at its best
  // stage. The score grows with the matches and falls with the chunks, so the
  // best k runs of each line in k chunks bound every alignment of k chunks.
  covered_runs(best_stage.data(), test, p, scratch.test_weights, scratch.test_words);
  covered_runs(best_stage.data() + n1, reference, p, scratch.reference_weights, scratch.reference_words);
  MeteorTotals t;
  t.test_length = static_cast<double>(n1);
  t.reference_length = static_cast<double>(n2);
  t.test_weighted_length = weighted_length(t.test_length, static_cast<double>(test.function_words), p);
  t.reference_weighted_length = weighted_length(t.reference_length, static_cast<double>(reference.function_words), p);
  const size_t runs = std::max(scratch.test_weights.size(), scratch.reference_weights.size());
  double bound = 0;
  for (size_t k = 0; k < runs; ++k) {
    if (k < scratch.test_weights.size()) {
      t.test_weighted += scratch.test_weights[k];
      t.test_matches += scratch.test_words[k];
    }
    if (k < scratch.reference_weights.size()) {
      t.reference_weighted += scratch.reference_weights[k];
      t.reference_matches += scratch.reference_words[k];
    }
    t.chunks = static_cast<double>(k + 1);
    bound = std::max(bound, score_of_totals(t, p));
  }
  return bound;
}

MeteorPreparedTexts::MeteorPreparedTexts(const TextBatch& texts, MeteorSide side, const MeteorResources* resources,
                                         const MeteorStageSet& stages, int workers, const InterruptCheck& interrupted) {
  const size_t n = texts.size();
  for (size_t i = 0; i < n; ++i) validate_utf8(texts[i], "text", i);
  std::vector<std::vector<std::string>> normalized(n);
  parallel_for(
      n, workers,
      [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) normalized[i] = meteor_normalize_words(texts[i], resources);
      },
      interrupted, 64);

  std::vector<std::vector<uint32_t>> ids_of(n);
  std::unordered_map<std::string, uint32_t> ids;
  std::vector<const std::string*> spellings;
  for (size_t i = 0; i < n; ++i) {
    ids_of[i].reserve(normalized[i].size());
    for (std::string& w : normalized[i]) {
      auto [it, inserted] = ids.try_emplace(std::move(w), static_cast<uint32_t>(ids.size()));
      if (inserted) spellings.push_back(&it->first);
      ids_of[i].push_back(it->second);
    }
  }
  words_.resize(spellings.size());
  parallel_for(
      spellings.size(), workers,
      [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) words_[i] = describe_meteor_word(*spellings[i], resources, stages);
      },
      interrupted, 256);
  lines_.resize(n);
  parallel_for(
      n, workers,
      [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) {
          for (uint32_t id : ids_of[i]) lines_[i].words.push_back(&words_[id]);
          prepare_meteor_line(lines_[i], resources, stages, side);
        }
      },
      interrupted, 64);
}

MeteorReferences::MeteorReferences(const TextBatch& refs, std::vector<uint64_t> segment_offsets,
                                   std::shared_ptr<const MeteorResources> resources, const MeteorStageSet& stages,
                                   int workers, const InterruptCheck& interrupted)
    : resources_(std::move(resources)), stages_(stages), offsets_(std::move(segment_offsets)) {
  if (offsets_.empty() || offsets_.front() != 0 || offsets_.back() != refs.size())
    throw InputError("meteor: segment offsets do not describe the " + std::to_string(refs.size()) + " references");
  for (size_t i = 0; i + 1 < offsets_.size(); ++i)
    if (offsets_[i + 1] <= offsets_[i]) throw InputError("meteor: refs[" + std::to_string(i) + "] has no reference");
  const bool needs_resources = stages_[static_cast<size_t>(MeteorStage::kSynonym)] ||
                               stages_[static_cast<size_t>(MeteorStage::kParaphrase)];
  if (needs_resources && resources_ == nullptr)
    throw InputError("meteor: the synonym and paraphrase stages need METEOR resources");
  if (stages_[static_cast<size_t>(MeteorStage::kParaphrase)] && !resources_->has_paraphrases())
    throw InputError("meteor: the paraphrase stage needs resources with a paraphrase table");
  texts_ = std::make_unique<MeteorPreparedTexts>(refs, MeteorSide::kReference, resources_.get(), stages_,
                                                 resolve_workers(workers), interrupted);
}

MeteorReferences::Result MeteorReferences::score(const TextBatch& hyps, int workers,
                                                 const InterruptCheck& interrupted) const {
  const size_t n = hyps.size();
  if (n != num_segments())
    throw InputError("meteor: " + std::to_string(n) + " hypotheses but " + std::to_string(num_segments()) +
                     " reference segments");
  const int threads = resolve_workers(workers);
  const MeteorPreparedTexts tests(hyps, MeteorSide::kHypothesis, resources_.get(), stages_, threads, interrupted);

  Result result;
  result.sentences.assign(n, 0.0);
  result.stats.assign(n, MeteorStats{});
  const MeteorParameters params;
  const uint64_t candidate_budget = limits().meteor_max_candidates;
  parallel_for(
      n, threads,
      [&](size_t begin, size_t end) {
        MeteorAligner aligner;
        std::vector<MeteorCandidates> candidates;  // of each reference of the segment
        std::vector<bool> kept;
        std::vector<double> bounds;
        MeteorBoundScratch bound_scratch;
        std::vector<size_t> order;
        for (size_t i = begin; i < end; ++i) {
          const MeteorLine& test = tests.line(i);
          const size_t k = offsets_[i + 1] - offsets_[i];
          auto find = [&](size_t j) {
            try {
              find_meteor_candidates(test, texts_->line(offsets_[i] + j), stages_, candidates[j]);
            } catch (const InputError& e) {
              throw InputError("meteor: hyps[" + std::to_string(i) + "] and refs[" + std::to_string(i) + "][" +
                               std::to_string(j) + "]: " + e.what());
            }
          };
          if (candidates.size() < k) candidates.resize(k);
          kept.assign(k, true);
          bounds.resize(k);
          order.resize(k);
          // Each reference's candidates and score bound. The candidates stay for the
          // alignment while all those held fit one pair's limit (memory as for one
          // pair); past it they are dropped and found again if that reference is aligned.
          uint64_t held = 0;
          for (size_t j = 0; j < k; ++j) {
            find(j);
            // A single reference is aligned whatever its bound.
            bounds[j] = k == 1 ? 1.0
                               : meteor_score_bound(candidates[j], test, texts_->line(offsets_[i] + j), params,
                                                    bound_scratch);
            order[j] = j;
            const uint64_t size = candidates[j].found.capacity();
            if (held + size > candidate_budget) {
              candidates[j] = MeteorCandidates{};
              kept[j] = false;
            } else {
              held += size;
            }
          }
          // Highest bound first: an early good score rules out the references
          // whose bound is below it. The result is the sequential one: the best
          // score, from the first reference on ties.
          std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return bounds[a] > bounds[b]; });
          double best = -1;
          size_t best_reference = k;
          for (const size_t j : order) {
            if (bounds[j] + kBoundMargin < best) break;
            if (!kept[j]) find(j);
            const MeteorLine& reference = texts_->line(offsets_[i] + j);
            const MeteorAlignment a = aligner.align(test, reference, candidates[j]);
            if (!kept[j]) candidates[j] = MeteorCandidates{};
            const MeteorStats s = meteor_stats(a, test.words.size(), reference.words.size(), test.function_words,
                                               reference.function_words);
            const double score = meteor_score(s, params);
            if (score > best || (score == best && j < best_reference)) {
              best = score;
              best_reference = j;
              result.stats[i] = s;
            }
          }
          result.sentences[i] = best;
          // The space stays for the next segment within the same bound.
          uint64_t retained = 0;
          for (const MeteorCandidates& c : candidates) retained += c.found.capacity();
          if (retained > candidate_budget) std::fill(candidates.begin(), candidates.end(), MeteorCandidates{});
        }
      },
      interrupted, 8);

  for (const MeteorStats& s : result.stats) result.total.add(s);
  result.corpus = meteor_score(result.total, params);
  return result;
}

}  // namespace fastamfm
