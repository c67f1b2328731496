#include "overlap/rouge_score.hpp"

#include <algorithm>
#include <string>

#include "common/errors.hpp"
#include "overlap/lcs.hpp"
#include "overlap/ngram_counts.hpp"

namespace fastamfm {

namespace {

struct Prf {
  double precision = 0, recall = 0, f = 0;
};

double f1(double p, double r) { return p + r > 0 ? 2 * p * r / (p + r) : 0.0; }

Prf from_counts(uint64_t hits, uint64_t hyp_total, uint64_t ref_total) {
  Prf s;
  s.precision = static_cast<double>(hits) / static_cast<double>(hyp_total);
  s.recall = static_cast<double>(hits) / static_cast<double>(ref_total);
  s.f = f1(s.precision, s.recall);
  return s;
}

// Per-thread state of one scoring call.
struct PairScorer {
  const RougeDocuments& hyps;
  const RougeDocuments& refs;
  const NgramTable* hyp_ngrams;
  const NgramTable* ref_ngrams;
  BitParallelLcs lcs;
  std::vector<uint32_t> table;
  std::vector<char> in_union;
  std::vector<std::pair<TokenId, int64_t>> budget;

  Prf ngrams(size_t h, size_t r, int n) {
    const NgramOverlap o = ngram_overlap(hyp_ngrams->at(h, n), ref_ngrams->at(r, n));
    return from_counts(o.matched, std::max<uint64_t>(o.left_total, 1), std::max<uint64_t>(o.right_total, 1));
  }

  Prf longest_common(size_t h, size_t r) {
    const size_t nh = hyps.tokens.num_tokens(h), nr = refs.tokens.num_tokens(r);
    if (nh == 0 || nr == 0) return {};
    lcs.set_pattern(refs.tokens.ids(r), nr);
    return from_counts(lcs.length_with(hyps.tokens.ids(h), nh), nh, nr);
  }

  // rouge-score's _lcs_table + _backtrack_norec: marks the reference positions of one LCS.
  void mark_lcs(const TokenId* ref, size_t nr, const TokenId* can, size_t nc) {
    const size_t cols = nc + 1;
    // rouge-score backtracks a full table; past 2^28 cells (1 GiB) say so instead of failing to allocate.
    if ((nr + 1) > (size_t{1} << 28) / cols)
      throw InputError("rougeLsum: lines of " + std::to_string(nr) + " and " + std::to_string(nc) +
                       " tokens need a table of more than 2^28 cells; split the text into shorter lines");
    table.assign((nr + 1) * cols, 0);
    for (size_t i = 1; i <= nr; ++i)
      for (size_t j = 1; j <= nc; ++j)
        table[i * cols + j] = ref[i - 1] == can[j - 1] ? table[(i - 1) * cols + j - 1] + 1
                                                       : std::max(table[(i - 1) * cols + j], table[i * cols + j - 1]);
    size_t i = nr, j = nc;
    while (i > 0 && j > 0) {
      if (ref[i - 1] == can[j - 1]) {
        in_union[i - 1] = 1;
        --i;
        --j;
      } else if (table[i * cols + j - 1] > table[(i - 1) * cols + j]) {
        --j;
      } else {
        --i;
      }
    }
  }

  int64_t* budget_of(TokenId t) {
    auto it = std::lower_bound(budget.begin(), budget.end(), t,
                               [](const std::pair<TokenId, int64_t>& e, TokenId v) { return e.first < v; });
    return it != budget.end() && it->first == t ? &it->second : nullptr;
  }

  Prf summary_level(size_t h, size_t r) {
    const size_t lines_h = hyps.line_offsets[h + 1] - hyps.line_offsets[h];
    const size_t lines_r = refs.line_offsets[r + 1] - refs.line_offsets[r];
    if (lines_h <= 1 && lines_r <= 1) return longest_common(h, r);  // one line each: the union is one LCS
    const size_t nh = hyps.tokens.num_tokens(h), nr = refs.tokens.num_tokens(r);
    if (nh == 0 || nr == 0) return {};
    // Each token may be a hit as often as both texts hold it: min of the two counts.
    const TokenId* hyp_ids = hyps.tokens.ids(h);
    const TokenId* ref_ids = refs.tokens.ids(r);
    std::vector<std::pair<TokenId, int64_t>> hyp_counts;
    budget.clear();
    for (size_t k = 0; k < nr; ++k) budget.push_back({ref_ids[k], 1});
    for (size_t k = 0; k < nh; ++k) hyp_counts.push_back({hyp_ids[k], 1});
    auto tally = [](std::vector<std::pair<TokenId, int64_t>>& v) {
      std::sort(v.begin(), v.end());
      size_t out = 0;
      for (size_t k = 0; k < v.size(); ++k) {
        if (out > 0 && v[out - 1].first == v[k].first) {
          ++v[out - 1].second;
        } else {
          v[out++] = v[k];
        }
      }
      v.resize(out);
    };
    tally(budget);
    tally(hyp_counts);
    for (auto& e : budget) {
      auto it = std::lower_bound(hyp_counts.begin(), hyp_counts.end(), e.first,
                                 [](const std::pair<TokenId, int64_t>& x, TokenId v) { return x.first < v; });
      e.second = it != hyp_counts.end() && it->first == e.first ? std::min(e.second, it->second) : 0;
    }
    uint64_t hits = 0;
    size_t ref_start = 0;
    for (size_t lr = refs.line_offsets[r]; lr < refs.line_offsets[r + 1]; ++lr) {
      const size_t len_r = refs.line_tokens[lr];
      const TokenId* ref_line = ref_ids + ref_start;
      in_union.assign(len_r, 0);
      size_t hyp_start = 0;
      for (size_t lh = hyps.line_offsets[h]; lh < hyps.line_offsets[h + 1]; ++lh) {
        const size_t len_h = hyps.line_tokens[lh];
        mark_lcs(ref_line, len_r, hyp_ids + hyp_start, len_h);
        hyp_start += len_h;
      }
      for (size_t k = 0; k < len_r; ++k) {
        if (!in_union[k]) continue;
        int64_t* left = budget_of(ref_line[k]);
        if (left != nullptr && *left > 0) {
          --*left;
          ++hits;
        }
      }
      ref_start += len_r;
    }
    return from_counts(hits, nh, nr);
  }

  Prf score(size_t h, size_t r, int type) {
    if (type == kRougeL) return longest_common(h, r);
    if (type == kRougeLsum) return summary_level(h, r);
    return ngrams(h, r, type);
  }
};

int largest_n(const std::vector<int>& types) {
  int n = 0;
  for (int t : types) {
    if (t < kRougeLsum || t > kMaxNgramOrder)
      throw InputError("rouge: n-gram orders must be in 1.." + std::to_string(kMaxNgramOrder));
    n = std::max(n, t);
  }
  return n;
}

NgramTable ngram_table(const RougeDocuments& docs, int max_n, int workers, const InterruptCheck& interrupted) {
  return NgramTable::build(docs.size(), max_n, workers, interrupted,
                           [&](size_t i, std::vector<NgramCount>& entries, std::vector<uint64_t>& sizes) {
                             thread_local std::vector<NgramKey> keys;
                             for (int order = 1; order <= max_n; ++order) {
                               const size_t before = entries.size();
                               count_ngrams(docs.tokens.ids(i), docs.tokens.num_tokens(i), order, keys, entries);
                               sizes.push_back(entries.size() - before);
                             }
                           });
}

}  // namespace

RougeDocuments rouge_documents(const TextBatch& texts, const Tokenizer& tokenizer, int workers,
                               const InterruptCheck& interrupted) {
  constexpr size_t kPartSize = 4096;
  const size_t n = texts.size();
  const size_t parts = part_count(n, kPartSize);
  std::vector<std::vector<TokenId>> part_ids(parts);
  std::vector<std::vector<uint64_t>> part_lengths(parts);
  std::vector<std::vector<uint32_t>> part_lines(parts), part_line_counts(parts);
  parallel_parts(
      parts, workers,
      [&](size_t p) {
        std::string scratch;
        for (size_t i = p * kPartSize; i < std::min(n, (p + 1) * kPartSize); ++i) {
          const std::string_view text = texts[i];
          size_t total = 0, lines = 0, start = 0;
          while (true) {
            const size_t end = std::min(text.find('\n', start), text.size());
            size_t count = 0;
            tokenizer.for_each_token(text.substr(start, end - start), scratch, [&](std::string_view token) {
              part_ids[p].push_back(hash_token(token));
              ++count;
            });
            part_lines[p].push_back(static_cast<uint32_t>(count));
            total += count;
            ++lines;
            if (end == text.size()) break;
            start = end + 1;
          }
          part_lengths[p].push_back(total);
          part_line_counts[p].push_back(static_cast<uint32_t>(lines));
        }
      },
      interrupted);
  std::vector<TokenId> ids;
  std::vector<uint64_t> offsets{0};
  RougeDocuments docs;
  for (size_t p = 0; p < parts; ++p) {
    ids.insert(ids.end(), part_ids[p].begin(), part_ids[p].end());
    for (uint64_t len : part_lengths[p]) offsets.push_back(offsets.back() + len);
    docs.line_tokens.insert(docs.line_tokens.end(), part_lines[p].begin(), part_lines[p].end());
    for (uint32_t lines : part_line_counts[p]) docs.line_offsets.push_back(docs.line_offsets.back() + lines);
  }
  docs.tokens = TokenIdBatch(std::move(ids), std::move(offsets));
  return docs;
}

RougeDocuments rouge_documents(TokenIdBatch ids) {
  RougeDocuments docs;
  for (size_t i = 0; i < ids.size(); ++i) {
    docs.line_tokens.push_back(static_cast<uint32_t>(ids.num_tokens(i)));
    docs.line_offsets.push_back(docs.line_offsets.back() + 1);
  }
  docs.tokens = std::move(ids);
  return docs;
}

std::vector<double> rouge_score_segments(const RougeDocuments& hyps, const RougeDocuments& refs,
                                         const std::vector<uint64_t>& segment_offsets, const std::vector<int>& types,
                                         int workers, const InterruptCheck& interrupted) {
  const size_t n = hyps.size(), k = types.size();
  if (segment_offsets.size() != n + 1 || segment_offsets.back() != refs.size())
    throw InputError("rouge: " + std::to_string(n) + " hypotheses but the reference offsets describe " +
                     std::to_string(segment_offsets.empty() ? 0 : segment_offsets.size() - 1) + " segments");
  for (size_t i = 0; i < n; ++i)
    if (segment_offsets[i + 1] <= segment_offsets[i])
      throw InputError("rouge: segment " + std::to_string(i) + " has no reference");
  const int max_n = largest_n(types);
  NgramTable hyp_ngrams, ref_ngrams;
  if (max_n > 0) {
    hyp_ngrams = ngram_table(hyps, max_n, workers, interrupted);
    ref_ngrams = ngram_table(refs, max_n, workers, interrupted);
  }
  std::vector<double> out(n * k * 3);
  parallel_for(
      n, workers,
      [&](size_t begin, size_t end) {
        PairScorer scorer{hyps, refs, &hyp_ngrams, &ref_ngrams, {}, {}, {}, {}};
        for (size_t i = begin; i < end; ++i) {
          for (size_t t = 0; t < k; ++t) {
            Prf best;
            bool first = true;
            for (size_t r = segment_offsets[i]; r < segment_offsets[i + 1]; ++r) {
              const Prf s = scorer.score(i, r, types[t]);
              if (first || s.f > best.f) best = s;  // numpy.argmax: the first maximum
              first = false;
            }
            double* row = &out[(i * k + t) * 3];
            row[0] = best.precision;
            row[1] = best.recall;
            row[2] = best.f;
          }
        }
      },
      interrupted, 64);
  return out;
}

std::vector<float> rouge_score_pairwise(const RougeDocuments& candidates, const RougeDocuments& refs, int type,
                                        int workers, const InterruptCheck& interrupted) {
  const int max_n = largest_n({type});
  NgramTable cand_ngrams, ref_ngrams;
  if (max_n > 0) {
    cand_ngrams = ngram_table(candidates, max_n, workers, interrupted);
    ref_ngrams = ngram_table(refs, max_n, workers, interrupted);
  }
  const size_t n = candidates.size(), m = refs.size();
  std::vector<float> out(n * m);
  parallel_for(
      n, workers,
      [&](size_t begin, size_t end) {
        PairScorer scorer{candidates, refs, &cand_ngrams, &ref_ngrams, {}, {}, {}, {}};
        for (size_t i = begin; i < end; ++i)
          for (size_t j = 0; j < m; ++j) out[i * m + j] = static_cast<float>(scorer.score(i, j, type).f);
      },
      interrupted, 1);
  return out;
}

}  // namespace fastamfm
