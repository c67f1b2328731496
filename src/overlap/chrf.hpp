// chrF and chrF++ as sacrebleu (2.x) computes them (Popovic 2015, 2017).
//
// Per segment and order: the hypothesis n-grams, the reference n-grams and their
// clipped matches, for character orders 1..char_order (whitespace removed unless
// `whitespace`) and then word orders 1..word_order (chrF++: words split on whitespace,
// a leading or trailing ASCII punctuation mark split off a word of two or more
// characters). With several references, a segment keeps the statistics of the
// reference with the best chrF (the first on ties). Statistics are integers, summed
// over segments for the corpus score, so chunked corpora score exactly as whole ones.
#pragma once
#include <cstdint>
#include <vector>

#include "text/token_id_batch.hpp"
#include "parallel/parallel.hpp"
#include "text/text_batch.hpp"

namespace fastamfm {

struct ChrfOptions {
  int char_order = 6;
  int word_order = 0;
  double beta = 2.0;
  bool whitespace = false;     // keep whitespace inside character n-grams
  bool eps_smoothing = false;  // chrF++.py's epsilon smoothing instead of the effective order
  bool lowercase = false;      // ASCII here; the Python layer lowercases other text first
  int orders() const { return char_order + word_order; }
};

void check_chrf_options(const ChrfOptions& options);

// What chrF compares, per text: its characters (whitespace removed unless kept) and
// its words (chrF++'s split), as well-mixed ids.
struct ChrfTexts {
  TokenIdBatch chars, words;
  size_t size() const { return chars.size(); }
};
ChrfTexts chrf_texts(const TextBatch& texts, const ChrfOptions& options, int workers,
                     const InterruptCheck& interrupted = {});

// chrF on 0..100 from [hyp, ref, match] per order.
double chrf_score(const uint64_t* statistics, const ChrfOptions& options);

struct ChrfSegments {
  std::vector<uint64_t> statistics;  // [n * 3 * orders] of each segment's best reference
  std::vector<double> scores;        // [n] sentence chrF
};

// Hypothesis i against references segment_offsets[i]..segment_offsets[i + 1] of refs.
ChrfSegments chrf_segments(const ChrfTexts& hyps, const ChrfTexts& refs, const std::vector<uint64_t>& segment_offsets,
                           const ChrfOptions& options, int workers, const InterruptCheck& interrupted = {});

// Sentence chrF of every candidate against every reference, row-major [n * m].
std::vector<float> chrf_pairwise(const ChrfTexts& candidates, const ChrfTexts& refs, const ChrfOptions& options,
                                 int workers, const InterruptCheck& interrupted = {});

}  // namespace fastamfm
