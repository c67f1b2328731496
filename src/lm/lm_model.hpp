// NgramModel: a backoff n-gram language model ready for queries, held in the
// layout of fastamfm's binary file (lm_binary_format.hpp), either built in memory
// from an LmContent or memory-mapped from a file. Immutable, so any number of
// threads query it at once. Scores follow ARPA backoff semantics exactly as
// kenlm.Model.score does: log10 p(w|h) = prob(longest known n-gram ending in w)
// + the backoffs of the longer contexts that exist; unknown words score as <unk>.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lm/lm_binary_format.hpp"
#include "lm/lm_content.hpp"
#include "parallel/parallel.hpp"
#include "text/text_batch.hpp"
#include "text/tokenized_batch.hpp"
#include "text/tokenizer.hpp"

namespace fastamfm {

struct TokenScore {
  float log10_prob;
  uint8_t ngram_length;  // length of the n-gram whose probability was used
  bool oov;
};

class NgramModel {
 public:
  // Builds the tables (one order per thread). Throws FormatError for duplicate
  // n-grams. A model without <unk> gets one with log10 p = -100, as kenlm does.
  // Queries rely, as kenlm's do, on every n-gram's prefix and suffix being in the
  // model, which ARPA files and the estimators guarantee.
  static NgramModel build(const LmContent& content);
  // Loads a file written by save(), memory-mapped (pages shared between processes)
  // or, without use_mmap, copied into memory (immune to the file changing later).
  // Throws FormatError naming the file and the defect if it is corrupt.
  static NgramModel load(const std::string& path, bool use_mmap = true);
  // True when the file starts with the binary format's magic bytes.
  static bool is_binary_file(const std::string& path);
  // Writes the binary file atomically.
  void save(const std::string& path) const;

  int order() const { return static_cast<int>(header_->order); }
  size_t vocab_size() const { return header_->vocab_size; }
  std::string_view word(size_t i) const;
  std::string_view metadata() const;
  uint64_t checksum() const { return header_->checksum; }
  size_t count(int n) const { return header_->orders[n - 1].count; }
  const uint32_t* ids(int n) const;
  const float* log10_prob(int n) const;
  const float* log10_backoff(int n) const;

  // log10 probability of a sentence of token ids (hashing.hpp). With bos the
  // history starts as <s>; with eos </s> is scored last. `out`, when given,
  // receives one TokenScore per prediction (n_tokens + eos).
  double score(const TokenId* tokens, size_t n_tokens, bool bos, bool eos, TokenScore* out = nullptr) const;

  // Word-by-word scoring, as kenlm keeps it: the state after a word holds the
  // words that can still be context (history[k] is the word k+1 back) and the
  // backoff weights of those contexts (backoff[k] for history[k..0]).
  struct State {
    TokenId history[kMaxLmOrder];
    float backoff[kMaxLmOrder];
    int context_len = 0;
  };
  // The lookups of one prediction, computed and prefetched before they are needed.
  struct Lookup {
    TokenId word;
    int longest;
    uint64_t keys[kMaxLmOrder];
  };
  State begin_sentence(bool bos) const;
  void prepare(const State& state, TokenId word, Lookup& lookup) const;
  TokenScore advance(State& state, Lookup& lookup) const;

 private:
  inline const LmSlot* find(int n, uint64_t key) const;
  // Prefetches the slots of the n-grams ending at prediction `end` of a sentence
  // (tokens, then </s>), however long a context turns out to exist.
  void prefetch_ending_at(const TokenId* tokens, size_t n_tokens, size_t end) const;
  void bind(std::shared_ptr<const void> storage, const uint8_t* base);
  // The lookups load() cannot leave to the checksum: <unk> in place and, with
  // every_ngram (files without a header checksum), each n-gram in its table.
  void check_tables(const std::string& path, bool every_ngram) const;

  std::shared_ptr<const void> storage_;  // owns the bytes (vector or mapping)
  const uint8_t* base_ = nullptr;
  const LmHeader* header_ = nullptr;
  const LmSlot* tables_[kMaxLmOrder] = {};
  uint64_t slots_[kMaxLmOrder] = {};
  TokenId unk_token_ = 0, bos_token_ = 0, eos_token_ = 0;
};

// Scores every sentence of `batch` on `workers` threads.
std::vector<double> score_batch(const NgramModel& model, const TokenizedBatch& batch, bool bos, bool eos,
                                int workers, const InterruptCheck& interrupted = {});

// Tokenizes and scores every text on `workers` threads, keeping only token ids.
std::vector<double> score_texts(const NgramModel& model, const TextBatch& texts, const Tokenizer& tokenizer, bool bos,
                                bool eos, int workers, const InterruptCheck& interrupted = {});

// Per-token scores of every sentence: predictions of sentence i are
// out[offsets[i] .. offsets[i+1]).
void token_scores_batch(const NgramModel& model, const TokenizedBatch& batch, bool bos, bool eos, int workers,
                        std::vector<TokenScore>& out, std::vector<uint64_t>& offsets,
                        const InterruptCheck& interrupted = {});

}  // namespace fastamfm
