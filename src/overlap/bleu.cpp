#include "overlap/bleu.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <string>

#include "common/errors.hpp"
#include "overlap/ngram_counts.hpp"
#include "overlap/segment_clipper.hpp"

namespace fastamfm {

RefLength parse_ref_length(std::string_view name) {
  if (name == "closest") return RefLength::Closest;
  if (name == "shortest") return RefLength::Shortest;
  if (name == "average") return RefLength::Average;
  if (name == "closest-first") return RefLength::ClosestFirst;
  throw InputError("ref_length must be 'closest', 'shortest', 'average' or 'closest-first', got '" +
                   std::string(name) + "'");
}

BleuSmoothing parse_bleu_smoothing(std::string_view name) {
  if (name == "none") return BleuSmoothing::None;
  if (name == "floor") return BleuSmoothing::Floor;
  if (name == "add-k") return BleuSmoothing::AddK;
  if (name == "exp") return BleuSmoothing::Exp;
  throw InputError("smooth must be 'none', 'floor', 'add-k' or 'exp', got '" + std::string(name) + "'");
}

namespace {

double effective_ref_length(const std::vector<size_t>& ref_lens, size_t hyp_len, RefLength mode) {
  if (mode == RefLength::Average) {
    uint64_t total = 0;
    for (size_t len : ref_lens) total += len;
    return static_cast<double>(total) / static_cast<double>(ref_lens.size());
  }
  size_t best = ref_lens[0];
  for (size_t len : ref_lens) {
    if (mode == RefLength::Shortest) {
      best = std::min(best, len);
    } else {
      // Closest to the hypothesis; on a tie the shorter reference (or the first given).
      const size_t d_len = len > hyp_len ? len - hyp_len : hyp_len - len;
      const size_t d_best = best > hyp_len ? best - hyp_len : hyp_len - best;
      if (d_len < d_best || (d_len == d_best && len < best && mode == RefLength::Closest)) best = len;
    }
  }
  return static_cast<double>(best);
}

// Raises max_ref[j] to the count the reference has of hypothesis n-gram j.
void raise_max_counts(NgramSpan hyp, NgramSpan ref, uint32_t* max_ref) {
  size_t i = 0, j = 0;
  while (i < hyp.size && j < ref.size) {
    const NgramKey a = hyp.data[i].key, b = ref.data[j].key;
    if (a == b) max_ref[i] = std::max(max_ref[i], ref.data[j].count);
    // Advance without a data-dependent branch: the keys are random.
    i += a <= b;
    j += b <= a;
  }
}

// One segment's statistics. ref_spans(order, fn) calls fn(span) for each reference
// (or for one span already holding the maxima); each hypothesis n-gram counts at
// most as often as it occurs in any single reference.
struct SegmentScratch {
  std::vector<uint32_t> max_ref;
  std::vector<size_t> ref_lens;
};

template <class HypSpan, class RefSpans>
void fill_segment(BleuStatistics& stats, size_t i, size_t hyp_len, RefLength mode, HypSpan&& hyp_span,
                  RefSpans&& ref_spans, SegmentScratch& scratch) {
  const size_t k_orders = static_cast<size_t>(stats.max_order);
  stats.hyp_len[i] = static_cast<double>(hyp_len);
  stats.ref_len[i] = effective_ref_length(scratch.ref_lens, hyp_len, mode);
  for (size_t k = 0; k < k_orders; ++k) {
    const int order = static_cast<int>(k + 1);
    const NgramSpan hyp = hyp_span(order);
    scratch.max_ref.assign(hyp.size, 0);
    ref_spans(order, [&](NgramSpan ref) { raise_max_counts(hyp, ref, scratch.max_ref.data()); });
    uint64_t correct = 0;
    for (size_t j = 0; j < hyp.size; ++j) correct += std::min(hyp.data[j].count, scratch.max_ref[j]);
    stats.guess[i * k_orders + k] = hyp_len > k ? hyp_len - k : 0;
    stats.correct[i * k_orders + k] = correct;
  }
}

BleuStatistics empty_statistics(size_t n, int max_order) {
  BleuStatistics stats;
  stats.max_order = max_order;
  stats.hyp_len.resize(n);
  stats.ref_len.resize(n);
  stats.guess.resize(n * static_cast<size_t>(max_order));
  stats.correct.resize(n * static_cast<size_t>(max_order));
  return stats;
}

// The union of the segment's reference spans with the maximum count of each key, appended to out.
void merge_max_counts(const ReferenceSet& refs, size_t segment, int order, std::vector<NgramCount>& scratch,
                      std::vector<NgramCount>& out) {
  scratch.clear();
  for (size_t r = refs.refs_begin(segment); r < refs.refs_end(segment); ++r) {
    const NgramSpan span = refs.ngrams().at(r, order);
    scratch.insert(scratch.end(), span.begin(), span.end());
  }
  std::sort(scratch.begin(), scratch.end(), [](const NgramCount& a, const NgramCount& b) {
    return a.key < b.key || (a.key == b.key && a.count > b.count);
  });
  for (size_t i = 0; i < scratch.size(); ++i)
    if (i == 0 || scratch[i].key != scratch[i - 1].key) out.push_back(scratch[i]);  // the largest count comes first
}

// sacrebleu's my_log: log, with log(0) floored to a large negative number.
double floored_log(double x) { return x == 0.0 ? -9999999999.0 : std::log(x); }

double smoothed_bleu(double hyp_len, double ref_len, const uint64_t* guess, const uint64_t* correct, int order,
                     BleuSmoothing smoothing, double smooth_value, PythonSum log_sum) {
  return sacrebleu_bleu(hyp_len, ref_len, guess, correct, order, smoothing, smooth_value, true, log_sum) / 100.0;
}

}  // namespace

double sacrebleu_bleu(double hyp_len, double ref_len, const uint64_t* guess, const uint64_t* correct, int max_order,
                      BleuSmoothing smoothing, double smooth_value, bool effective_order, PythonSum log_sum) {
  if (smooth_value < 0) smooth_value = smoothing == BleuSmoothing::Floor ? 0.1 : 1.0;
  double brevity = 1.0;
  if (hyp_len < ref_len) brevity = hyp_len > 0 ? std::exp(1.0 - ref_len / hyp_len) : 0.0;
  bool any_correct = false;
  for (int k = 0; k < max_order; ++k) any_correct = any_correct || correct[k] > 0;
  if (!any_correct) return 0.0;

  std::array<double, kMaxNgramOrder> precisions{};
  double mteval_divisor = 1.0;
  int used_orders = max_order;
  for (int n = 1; n <= max_order; ++n) {
    double c = static_cast<double>(correct[n - 1]);
    double t = static_cast<double>(guess[n - 1]);
    if (smoothing == BleuSmoothing::AddK && n > 1) {
      c += smooth_value;
      t += smooth_value;
    }
    if (t == 0) break;
    if (effective_order) used_orders = n;
    double& p = precisions[static_cast<size_t>(n - 1)];
    if (c == 0) {
      if (smoothing == BleuSmoothing::Exp) {
        mteval_divisor *= 2;
        p = 100. / (mteval_divisor * t);
      } else if (smoothing == BleuSmoothing::Floor) {
        p = 100. * smooth_value / t;
      }
    } else {
      p = 100. * c / t;
    }
  }
  PythonFloatSum logs(log_sum);
  for (int k = 0; k < used_orders; ++k) logs.add(floored_log(precisions[static_cast<size_t>(k)]));
  return brevity * std::exp(logs.value() / used_orders);
}

double tensorbleu_bleu(double hyp_len, double ref_len, const uint64_t* guess, const uint64_t* correct, int max_order,
                       BleuSmoothing smoothing, double smooth_value) {
  double log_sum = 0.0;
  const double weight = 1.0 / max_order;
  for (int k = 0; k < max_order; ++k) {
    const double c = static_cast<double>(correct[k]), t = static_cast<double>(guess[k]);
    double p;
    if (smoothing == BleuSmoothing::Floor) {
      p = (c == 0 ? (smooth_value < 0 ? 0.1 : smooth_value) : c) / (t == 0 ? 1.0 : t);
    } else if (smoothing == BleuSmoothing::AddK) {
      const double k_add = smooth_value < 0 ? 1.0 : smooth_value;
      p = (c + k_add) / (t + k_add);
    } else {
      p = t > 0 ? c / t : 0.0;
      if (smoothing == BleuSmoothing::Exp && p == 0) p = 1e-12;
    }
    log_sum += weight * std::log(p + 1e-12);
  }
  double brevity = 1.0;
  if (hyp_len < ref_len) brevity = std::exp(1 - ref_len / hyp_len);
  if (hyp_len == 0) brevity = 0.0;
  return brevity * std::exp(log_sum);
}

std::vector<float> sacrebleu_pairwise(const TokenizedBatch& candidates, const NgramTable& candidate_ngrams,
                                      const TokenizedBatch& refs, const NgramTable& ref_ngrams, int max_order,
                                      BleuSmoothing smoothing, double smooth_value, bool effective_order,
                                      PythonSum log_sum, int workers, const InterruptCheck& interrupted) {
  if (max_order < 1 || max_order > candidate_ngrams.max_order() || max_order > ref_ngrams.max_order())
    throw InputError("bleu: max_order exceeds the n-gram orders counted");
  const size_t n = candidates.size(), m = refs.size();
  std::vector<float> out(n * m);
  parallel_for(
      n, workers,
      [&](size_t begin, size_t end) {
        std::array<uint64_t, kMaxNgramOrder> guess{}, correct{};
        for (size_t i = begin; i < end; ++i) {
          const size_t hyp_len = candidates.num_tokens(i);
          for (int k = 0; k < max_order; ++k)
            guess[static_cast<size_t>(k)] = hyp_len > static_cast<size_t>(k) ? hyp_len - static_cast<size_t>(k) : 0;
          for (size_t j = 0; j < m; ++j) {
            for (int k = 0; k < max_order; ++k)
              correct[static_cast<size_t>(k)] = ngram_overlap(candidate_ngrams.at(i, k + 1), ref_ngrams.at(j, k + 1)).matched;
            out[i * m + j] = static_cast<float>(sacrebleu_bleu(static_cast<double>(hyp_len),
                                                               static_cast<double>(refs.num_tokens(j)), guess.data(),
                                                               correct.data(), max_order, smoothing, smooth_value,
                                                               effective_order, log_sum));
          }
        }
      },
      interrupted, 1);
  return out;
}

BleuReferenceCounts::BleuReferenceCounts(std::shared_ptr<const ReferenceSet> refs, int max_order, int workers,
                                         const InterruptCheck& interrupted)
    : refs_(std::move(refs)), max_order_(max_order) {
  if (max_order < 1 || max_order > refs_->max_order())
    throw InputError("bleu: max_order " + std::to_string(max_order) + " but the references hold n-grams up to order " +
                     std::to_string(refs_->max_order()));
  constexpr size_t kPartSize = 1024;
  const size_t n = refs_->num_segments();
  const size_t parts = part_count(n, kPartSize);
  std::vector<std::vector<NgramCount>> part_entries(parts);
  std::vector<std::vector<uint64_t>> part_sizes(parts);
  parallel_parts(
      parts, workers,
      [&](size_t p) {
        std::vector<NgramCount> scratch;
        for (size_t s = p * kPartSize; s < std::min(n, (p + 1) * kPartSize); ++s) {
          for (int order = 1; order <= max_order_; ++order) {
            const size_t before = part_entries[p].size();
            merge_max_counts(*refs_, s, order, scratch, part_entries[p]);
            part_sizes[p].push_back(part_entries[p].size() - before);
          }
        }
      },
      interrupted);
  offsets_.assign(1, 0);
  join_ngram_parts(part_entries, part_sizes, entries_, offsets_);
}

namespace {
void check_bleu_inputs(const TokenizedBatch& hyps, const NgramTable& hyp_ngrams, const ReferenceSet& refs,
                       int max_order, int ref_orders) {
  if (hyps.size() != refs.num_segments())
    throw InputError("bleu: " + std::to_string(hyps.size()) + " hypotheses but " +
                     std::to_string(refs.num_segments()) + " reference segments");
  if (max_order < 1 || max_order > hyp_ngrams.max_order() || max_order > ref_orders)
    throw InputError("bleu: max_order " + std::to_string(max_order) + " exceeds the n-gram orders counted (" +
                     std::to_string(std::min(hyp_ngrams.max_order(), ref_orders)) + ")");
}


// Scores every segment; ref_spans(i, order, fn) calls fn(span) for the reference
// n-gram counts that segment i is clipped against.
template <class RefSpans>
BleuStatistics segment_statistics(const TokenizedBatch& hyps, const NgramTable& hyp_ngrams, const ReferenceSet& refs,
                                  int max_order, RefLength ref_length, int workers, const InterruptCheck& interrupted,
                                  RefSpans&& ref_spans) {
  const size_t n = hyps.size();
  BleuStatistics stats = empty_statistics(n, max_order);
  parallel_for(
      n, workers,
      [&](size_t begin, size_t end) {
        SegmentScratch scratch;
        for (size_t i = begin; i < end; ++i) {
          scratch.ref_lens.clear();
          for (size_t r = refs.refs_begin(i); r < refs.refs_end(i); ++r)
            scratch.ref_lens.push_back(refs.tokens().num_tokens(r));
          fill_segment(
              stats, i, hyps.num_tokens(i), ref_length, [&](int order) { return hyp_ngrams.at(i, order); },
              [&](int order, auto&& fn) { ref_spans(i, order, fn); }, scratch);
        }
      },
      interrupted, 256);
  return stats;
}
}  // namespace

BleuStatistics bleu_statistics(const TokenizedBatch& hyps, const NgramTable& hyp_ngrams, const ReferenceSet& refs,
                               int max_order, RefLength ref_length, int workers, const InterruptCheck& interrupted) {
  check_bleu_inputs(hyps, hyp_ngrams, refs, max_order, refs.max_order());
  return segment_statistics(hyps, hyp_ngrams, refs, max_order, ref_length, workers, interrupted,
                            [&](size_t i, int order, auto&& fn) {
                              for (size_t r = refs.refs_begin(i); r < refs.refs_end(i); ++r)
                                fn(refs.ngrams().at(r, order));
                            });
}

BleuStatistics bleu_statistics(const TokenizedBatch& hyps, const NgramTable& hyp_ngrams,
                               const BleuReferenceCounts& ref_counts, int max_order, RefLength ref_length, int workers,
                               const InterruptCheck& interrupted) {
  const ReferenceSet& refs = ref_counts.references();
  check_bleu_inputs(hyps, hyp_ngrams, refs, max_order, ref_counts.max_order());
  return segment_statistics(hyps, hyp_ngrams, refs, max_order, ref_length, workers, interrupted,
                            [&](size_t i, int order, auto&& fn) { fn(ref_counts.max_counts(i, order)); });
}

namespace {

// Statistics of segments whose token ids come from ids_of(text index or reference
// index, ids): shared by the text and the token-id paths.
template <class HypIds, class RefIds>
BleuStatistics clipped_statistics(size_t n, size_t n_refs, const std::vector<uint64_t>& segment_offsets, int max_order,
                                  RefLength ref_length, int workers, const InterruptCheck& interrupted,
                                  HypIds&& hyp_ids, RefIds&& ref_ids) {
  if (segment_offsets.size() != n + 1 || segment_offsets.front() != 0 || segment_offsets.back() != n_refs)
    throw InputError("bleu: " + std::to_string(n) + " hypotheses but the reference offsets describe " +
                     std::to_string(segment_offsets.empty() ? 0 : segment_offsets.size() - 1) + " segments of " +
                     std::to_string(n_refs) + " references");
  for (size_t i = 0; i < n; ++i)
    if (segment_offsets[i + 1] <= segment_offsets[i])
      throw InputError("bleu: segment " + std::to_string(i) + " has no reference");
  if (max_order < 1 || max_order > kMaxNgramOrder)
    throw InputError("bleu: max_order must be in 1.." + std::to_string(kMaxNgramOrder));
  const size_t k_orders = static_cast<size_t>(max_order);
  BleuStatistics stats = empty_statistics(n, max_order);
  parallel_for(
      n, workers,
      [&](size_t begin, size_t end) {
        SegmentClipper clipper(max_order);
        std::vector<size_t> ref_lens;
        std::vector<TokenId> ids;
        for (size_t i = begin; i < end; ++i) {
          hyp_ids(i, ids);
          const size_t hyp_len = ids.size();
          clipper.set_hypothesis(ids);
          ref_lens.clear();
          for (size_t r = segment_offsets[i]; r < segment_offsets[i + 1]; ++r) {
            ref_ids(r, ids);
            ref_lens.push_back(ids.size());
            clipper.add_reference(ids);
          }
          stats.hyp_len[i] = static_cast<double>(hyp_len);
          stats.ref_len[i] = effective_ref_length(ref_lens, hyp_len, ref_length);
          clipper.correct(&stats.correct[i * k_orders]);
          for (size_t k = 0; k < k_orders; ++k) stats.guess[i * k_orders + k] = hyp_len > k ? hyp_len - k : 0;
        }
      },
      interrupted, 256);
  return stats;
}

}  // namespace

BleuStatistics bleu_statistics_from_text(const TextBatch& hyps, const TextBatch& refs,
                                         const std::vector<uint64_t>& segment_offsets, const Tokenizer& tokenizer,
                                         int max_order, RefLength ref_length, int workers,
                                         const InterruptCheck& interrupted) {
  auto tokenize = [&](std::string_view text, std::vector<TokenId>& ids) {
    thread_local std::string scratch;
    ids.clear();
    tokenizer.for_each_token(text, scratch, [&](std::string_view tok) { ids.push_back(hash_token(tok)); });
  };
  return clipped_statistics(
      hyps.size(), refs.size(), segment_offsets, max_order, ref_length, workers, interrupted,
      [&](size_t i, std::vector<TokenId>& ids) { tokenize(hyps[i], ids); },
      [&](size_t r, std::vector<TokenId>& ids) { tokenize(refs[r], ids); });
}

BleuStatistics bleu_statistics_from_ids(const TokenIdBatch& hyps, const TokenIdBatch& refs,
                                        const std::vector<uint64_t>& segment_offsets, int max_order,
                                        RefLength ref_length, int workers, const InterruptCheck& interrupted) {
  // Integer ids are mixed so that the clipper's table sees uniform low bits.
  auto copy = [](const TokenIdBatch& batch, size_t i, std::vector<TokenId>& ids) {
    ids.clear();
    for (size_t k = 0; k < batch.num_tokens(i); ++k) ids.push_back(mix64(batch.ids(i)[k]));
  };
  return clipped_statistics(
      hyps.size(), refs.size(), segment_offsets, max_order, ref_length, workers, interrupted,
      [&](size_t i, std::vector<TokenId>& ids) { copy(hyps, i, ids); },
      [&](size_t r, std::vector<TokenId>& ids) { copy(refs, r, ids); });
}

void bleu_from_totals(double hyp_len, double ref_len, const uint64_t* guess, const uint64_t* correct, int max_order,
                      double* out) {
  constexpr double kSmall = 1e-9;  // keeps the division defined when nothing was guessed
  constexpr double kTiny = 1e-15;  // so that zero matches still give (almost) zero
  double product = 1.0;
  for (int k = 0; k < max_order; ++k) {
    product *= (static_cast<double>(correct[k]) + kTiny) / (static_cast<double>(guess[k]) + kSmall);
    out[k] = std::pow(product, 1.0 / (k + 1));
  }
  const double ratio = (hyp_len + kTiny) / (ref_len + kSmall);
  if (ratio < 1) {
    const double brevity = std::exp(1 - 1 / ratio);
    for (int k = 0; k < max_order; ++k) out[k] *= brevity;
  }
}

std::vector<double> bleu_segment_scores(const BleuStatistics& stats) {
  const size_t k_orders = static_cast<size_t>(stats.max_order);
  std::vector<double> out(stats.size() * k_orders);
  for (size_t i = 0; i < stats.size(); ++i)
    bleu_from_totals(stats.hyp_len[i], stats.ref_len[i], &stats.guess[i * k_orders], &stats.correct[i * k_orders],
                     stats.max_order, &out[i * k_orders]);
  return out;
}

std::vector<double> bleu_smoothed_segment_scores(const BleuStatistics& stats, BleuSmoothing smoothing,
                                                 double smooth_value, PythonSum log_sum) {
  if (smooth_value < 0) smooth_value = smoothing == BleuSmoothing::Floor ? 0.1 : 1.0;
  const size_t k_orders = static_cast<size_t>(stats.max_order);
  std::vector<double> out(stats.size() * k_orders);
  for (size_t i = 0; i < stats.size(); ++i)
    for (size_t k = 0; k < k_orders; ++k)
      out[i * k_orders + k] = smoothed_bleu(stats.hyp_len[i], stats.ref_len[i], &stats.guess[i * k_orders],
                                            &stats.correct[i * k_orders], static_cast<int>(k + 1), smoothing,
                                            smooth_value, log_sum);
  return out;
}

}  // namespace fastamfm
