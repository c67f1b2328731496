#include "meteor/meteor_scorer.hpp"

#include <algorithm>
#include <cmath>
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

// The operations run in the jar's order so that results agree to the last bit.
double meteor_score(const MeteorStats& s, const MeteorParameters& p) {
  const double test_weighted_length =
      (p.delta * (s.test_length - s.test_function_words)) + ((1.0 - p.delta) * s.test_function_words);
  const double ref_weighted_length =
      (p.delta * (s.reference_length - s.reference_function_words)) + ((1.0 - p.delta) * s.reference_function_words);
  double test_weighted = 0, ref_weighted = 0;
  for (size_t i = 0; i < kMeteorStages; ++i) test_weighted += s.test_content[i] * p.stage_weights[i] * p.delta;
  for (size_t i = 0; i < kMeteorStages; ++i) ref_weighted += s.reference_content[i] * p.stage_weights[i] * p.delta;
  for (size_t i = 0; i < kMeteorStages; ++i) test_weighted += s.test_function[i] * p.stage_weights[i] * (1.0 - p.delta);
  for (size_t i = 0; i < kMeteorStages; ++i)
    ref_weighted += s.reference_function[i] * p.stage_weights[i] * (1.0 - p.delta);
  const double precision = test_weighted / test_weighted_length;
  const double recall = ref_weighted / ref_weighted_length;
  const double fmean = 1.0 / (((1.0 - p.alpha) / precision) + (p.alpha / recall));
  const double test_matches = s.test_matches(), ref_matches = s.reference_matches();
  double frag;
  if (test_matches == s.test_length && ref_matches == s.reference_length && s.chunks == 1.0)
    frag = 0;
  else
    frag = s.chunks / ((test_matches + ref_matches) / 2);
  const double penalty = p.gamma * std::pow(frag, p.beta);
  const double score = fmean * (1.0 - penalty);
  if (std::isnan(score)) return 0.0;
  return std::max(score, 0.0);
}

double meteor_score_bound(const MeteorCandidates& candidates, const MeteorLine& test, const MeteorLine& reference,
                          const MeteorParameters& p, std::vector<int32_t>& best_stage) {
  if (candidates.found.empty()) return 0.0;  // no match: the score is 0
  const size_t n1 = test.words.size(), n2 = reference.words.size();
  // The highest-weighted stage among the candidates covering each word (-1: none).
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
  // Those words matched at those stages in one chunk, scored by the score's own formula.
  MeteorAlignment best;
  best.chunks = 1;
  for (size_t i = 0; i < n1 + n2; ++i) {
    if (best_stage[i] < 0) continue;
    const auto stage = static_cast<size_t>(best_stage[i]);
    if (i < n1) ++(test.words[i]->function_word ? best.function1 : best.content1)[stage];
    else ++(reference.words[i - n1]->function_word ? best.function2 : best.content2)[stage];
  }
  return meteor_score(meteor_stats(best, n1, n2, test.function_words, reference.function_words), p);
}

MeteorPreparedTexts::MeteorPreparedTexts(const TextBatch& texts, const MeteorResources* resources,
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
          prepare_meteor_line(lines_[i], resources, stages);
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
  texts_ = std::make_unique<MeteorPreparedTexts>(refs, resources_.get(), stages_, resolve_workers(workers), interrupted);
}

MeteorReferences::Result MeteorReferences::score(const TextBatch& hyps, int workers,
                                                 const InterruptCheck& interrupted) const {
  const size_t n = hyps.size();
  if (n != num_segments())
    throw InputError("meteor: " + std::to_string(n) + " hypotheses but " + std::to_string(num_segments()) +
                     " reference segments");
  const int threads = resolve_workers(workers);
  const MeteorPreparedTexts tests(hyps, resources_.get(), stages_, threads, interrupted);

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
        std::vector<int32_t> best_stage;
        std::vector<size_t> order;
        for (size_t i = begin; i < end; ++i) {
          const MeteorLine& test = tests.line(i);
          const size_t k = offsets_[i + 1] - offsets_[i];
          auto find = [&](size_t j) {
            try {
              find_meteor_candidates(test, texts_->line(offsets_[i] + j), resources_.get(), stages_, candidates[j]);
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
                                                    best_stage);
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
