#include "overlap/chrf.hpp"

#include <string>
#include <string_view>

#include "common/errors.hpp"
#include "overlap/ngram_counts.hpp"
#include "overlap/segment_clipper.hpp"
#include "text/tokenizer.hpp"
#include "text/utf8.hpp"

namespace fastamfm {

void check_chrf_options(const ChrfOptions& o) {
  if (o.char_order < 0 || o.char_order > kMaxNgramOrder || o.word_order < 0 || o.word_order > kMaxNgramOrder ||
      o.orders() < 1)
    throw InputError("chrf: char_order and word_order must be in 0.." + std::to_string(kMaxNgramOrder) +
                     ", and not both 0");
  if (!(o.beta >= 0.0)) throw InputError("chrf: beta must be >= 0");
}

namespace {

// Python's string.punctuation.
bool is_ascii_punctuation(unsigned char c) {
  return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E);
}

void add_word(std::string_view word, std::vector<TokenId>& words) { words.push_back(hash_token(word)); }

// sacrebleu's _remove_punctuation: a word of two or more characters loses a trailing
// punctuation mark, or else a leading one, as a word of its own.
void split_word(std::string_view w, std::vector<TokenId>& words) {
  size_t characters = 0;
  for (size_t pos = 0; pos < w.size() && characters < 2; ++characters) decode_utf8(w, pos);
  if (characters == 1) return add_word(w, words);
  if (is_ascii_punctuation(static_cast<unsigned char>(w.back()))) {
    add_word(w.substr(0, w.size() - 1), words);
    add_word(w.substr(w.size() - 1), words);
  } else if (is_ascii_punctuation(static_cast<unsigned char>(w.front()))) {
    add_word(w.substr(0, 1), words);
    add_word(w.substr(1), words);
  } else {
    add_word(w, words);
  }
}

}  // namespace

ChrfTexts chrf_texts(const TextBatch& texts, const ChrfOptions& options, int workers,
                     const InterruptCheck& interrupted) {
  check_chrf_options(options);
  const Tokenizer words_of{TokenizerOptions{TokenizerPreset::Whitespace, false}};
  constexpr size_t kPartSize = 4096;
  const size_t n = texts.size();
  const size_t parts = part_count(n, kPartSize);
  std::vector<std::vector<TokenId>> chars(parts), words(parts);
  std::vector<std::vector<uint64_t>> char_lengths(parts), word_lengths(parts);
  parallel_parts(
      parts, workers,
      [&](size_t p) {
        std::string lowered, scratch;
        for (size_t i = p * kPartSize; i < std::min(n, (p + 1) * kPartSize); ++i) {
          std::string_view text = texts[i];
          if (options.lowercase) {
            lowered.assign(text);
            for (char& c : lowered)
              if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + ('a' - 'A'));
            text = lowered;
          }
          const size_t chars_before = chars[p].size(), words_before = words[p].size();
          if (options.char_order > 0) {
            for (size_t pos = 0; pos < text.size();) {
              const uint32_t cp = decode_utf8(text, pos);
              if (options.whitespace || !is_python_whitespace(cp)) chars[p].push_back(mix64(cp + 1));
            }
          }
          if (options.word_order > 0)
            words_of.for_each_token(text, scratch, [&](std::string_view w) { split_word(w, words[p]); });
          char_lengths[p].push_back(chars[p].size() - chars_before);
          word_lengths[p].push_back(words[p].size() - words_before);
        }
      },
      interrupted);
  auto join = [&](std::vector<std::vector<TokenId>>& ids, std::vector<std::vector<uint64_t>>& lengths) {
    std::vector<TokenId> all;
    std::vector<uint64_t> offsets{0};
    for (size_t p = 0; p < parts; ++p) {
      all.insert(all.end(), ids[p].begin(), ids[p].end());
      for (uint64_t len : lengths[p]) offsets.push_back(offsets.back() + len);
    }
    return TokenIdBatch(std::move(all), std::move(offsets));
  };
  return ChrfTexts{join(chars, char_lengths), join(words, word_lengths)};
}

namespace {

// Per-thread state: one clipper for characters, one for words.
struct ChrfMatcher {
  const ChrfOptions& options;
  SegmentClipper chars{options.char_order > 0 ? options.char_order : 1};
  SegmentClipper words{options.word_order > 0 ? options.word_order : 1};
  uint64_t matched[kMaxNgramOrder] = {};

  explicit ChrfMatcher(const ChrfOptions& o) : options(o) {}

  void set_hypothesis(const ChrfTexts& hyps, size_t h) {
    if (options.char_order > 0) chars.set_hypothesis(hyps.chars.ids(h), hyps.chars.num_tokens(h));
    if (options.word_order > 0) words.set_hypothesis(hyps.words.ids(h), hyps.words.num_tokens(h));
  }

  // [hyp, ref, match] per order, sacrebleu's statistics of the pair.
  void statistics(const ChrfTexts& hyps, size_t h, const ChrfTexts& refs, size_t r, uint64_t* out) {
    fill(chars, options.char_order, hyps.chars.num_tokens(h), refs.chars.ids(r), refs.chars.num_tokens(r), out);
    fill(words, options.word_order, hyps.words.num_tokens(h), refs.words.ids(r), refs.words.num_tokens(r),
         out + 3 * options.char_order);
  }

  void fill(SegmentClipper& clipper, int orders, size_t hyp_len, const TokenId* ref, size_t ref_len, uint64_t* out) {
    if (orders == 0) return;
    clipper.match(ref, ref_len, matched);
    for (int k = 0; k < orders; ++k) {
      const size_t n = static_cast<size_t>(k) + 1;
      const uint64_t ref_total = ref_len >= n ? ref_len - n + 1 : 0;
      // sacrebleu counts no hypothesis n-grams of an order its reference has none of.
      out[3 * k] = ref_total > 0 && hyp_len >= n ? hyp_len - n + 1 : 0;
      out[3 * k + 1] = ref_total;
      out[3 * k + 2] = matched[k];
    }
  }
};

}  // namespace

double chrf_score(const uint64_t* statistics, const ChrfOptions& options) {
  constexpr double kEps = 1e-16;
  const int orders = options.orders();
  const double factor = options.beta * options.beta;
  double score = 0.0, avg_prec = 0.0, avg_rec = 0.0;
  int effective_order = 0;
  for (int k = 0; k < orders; ++k) {
    const uint64_t n_hyp = statistics[3 * k], n_ref = statistics[3 * k + 1], n_match = statistics[3 * k + 2];
    const double prec = n_hyp > 0 ? static_cast<double>(n_match) / static_cast<double>(n_hyp) : kEps;
    const double rec = n_ref > 0 ? static_cast<double>(n_match) / static_cast<double>(n_ref) : kEps;
    const double denom = factor * prec + rec;
    score += denom > 0 ? ((1 + factor) * prec * rec / denom) : kEps;
    if (n_hyp > 0 && n_ref > 0) {
      avg_prec += prec;
      avg_rec += rec;
      ++effective_order;
    }
  }
  if (options.eps_smoothing) return 100 * score / orders;
  if (effective_order == 0) {
    avg_prec = avg_rec = 0.0;
  } else {
    avg_prec /= effective_order;
    avg_rec /= effective_order;
  }
  if (avg_prec + avg_rec != 0.0) {
    score = (1 + factor) * avg_prec * avg_rec;
    score /= (factor * avg_prec) + avg_rec;
    return 100 * score;
  }
  return 0.0;
}

ChrfSegments chrf_segments(const ChrfTexts& hyps, const ChrfTexts& refs, const std::vector<uint64_t>& segment_offsets,
                           const ChrfOptions& options, int workers, const InterruptCheck& interrupted) {
  const size_t n = hyps.size(), width = 3 * static_cast<size_t>(options.orders());
  if (segment_offsets.size() != n + 1 || segment_offsets.back() != refs.size())
    throw InputError("chrf: " + std::to_string(n) + " hypotheses but the reference offsets describe " +
                     std::to_string(segment_offsets.empty() ? 0 : segment_offsets.size() - 1) + " segments");
  for (size_t i = 0; i < n; ++i)
    if (segment_offsets[i + 1] <= segment_offsets[i]) throw InputError("chrf: segment " + std::to_string(i) + " has no reference");
  ChrfSegments out;
  out.statistics.resize(n * width);
  out.scores.resize(n);
  parallel_for(
      n, workers,
      [&](size_t begin, size_t end) {
        std::vector<uint64_t> stats(width);
        ChrfMatcher matcher(options);
        for (size_t i = begin; i < end; ++i) {
          double best = -1.0;
          matcher.set_hypothesis(hyps, i);
          for (size_t r = segment_offsets[i]; r < segment_offsets[i + 1]; ++r) {
            matcher.statistics(hyps, i, refs, r, stats.data());
            const double f = chrf_score(stats.data(), options);
            if (f > best) {
              best = f;
              std::copy(stats.begin(), stats.end(), out.statistics.begin() + static_cast<ptrdiff_t>(i * width));
            }
          }
          out.scores[i] = best;
        }
      },
      interrupted, 64);
  return out;
}

std::vector<float> chrf_pairwise(const ChrfTexts& candidates, const ChrfTexts& refs, const ChrfOptions& options,
                                 int workers, const InterruptCheck& interrupted) {
  const size_t n = candidates.size(), m = refs.size();
  std::vector<float> out(n * m);
  parallel_for(
      n, workers,
      [&](size_t begin, size_t end) {
        std::vector<uint64_t> stats(3 * static_cast<size_t>(options.orders()));
        ChrfMatcher matcher(options);
        for (size_t i = begin; i < end; ++i) {
          matcher.set_hypothesis(candidates, i);
          for (size_t j = 0; j < m; ++j) {
            matcher.statistics(candidates, i, refs, j, stats.data());
            out[i * m + j] = static_cast<float>(chrf_score(stats.data(), options));
          }
        }
      },
      interrupted, 1);
  return out;
}

}  // namespace fastamfm
