// ROUGE-N, ROUGE-L and ROUGE-Lsum as Google's rouge-score computes them.
//
// Each pair gives precision, recall and F1 (2PR / (P + R), 0 when both are 0):
//   rouge-N  clipped n-gram overlap over the hypothesis's and the reference's
//            n-grams (each total at least 1);
//   rouge-L  the longest common subsequence over the two lengths (0 if either is empty);
//   rouge-Lsum  summary-level LCS over the texts' lines: each reference line's union
//            of its LCS with every hypothesis line, each token counted at most as often
//            as both texts hold it.
// Against several references each type keeps the reference with the highest F1
// (the first on ties), as RougeScorer.score_multi does.
#pragma once
#include <cstdint>
#include <vector>

#include "parallel/parallel.hpp"
#include "text/text_batch.hpp"
#include "text/token_id_batch.hpp"
#include "text/tokenizer.hpp"

namespace fastamfm {

// A rouge type: n >= 1 for rouge-n, kRougeL, kRougeLsum.
constexpr int kRougeL = 0;
constexpr int kRougeLsum = -1;

// Token ids of n documents and, per document, the token count of each of its lines.
struct RougeDocuments {
  TokenIdBatch tokens;
  std::vector<uint32_t> line_tokens;     // token count of every line, document after document
  std::vector<uint64_t> line_offsets{0};  // lines of document i: line_offsets[i]..line_offsets[i + 1]
  size_t size() const { return tokens.size(); }
};

// Texts split into lines at '\n' and tokenized (tokenizer: the rouge or rouge-stem preset).
RougeDocuments rouge_documents(const TextBatch& texts, const Tokenizer& tokenizer, int workers,
                               const InterruptCheck& interrupted = {});
// Token-id sequences, one line each.
RougeDocuments rouge_documents(TokenIdBatch ids);

// Per hypothesis and type: precision, recall, F1 of its best reference. [n * types * 3]
std::vector<double> rouge_score_segments(const RougeDocuments& hyps, const RougeDocuments& refs,
                                         const std::vector<uint64_t>& segment_offsets, const std::vector<int>& types,
                                         int workers, const InterruptCheck& interrupted = {});

// F1 of every candidate against every reference for one type, row-major [n * m].
std::vector<float> rouge_score_pairwise(const RougeDocuments& candidates, const RougeDocuments& refs, int type,
                                        int workers, const InterruptCheck& interrupted = {});

}  // namespace fastamfm
