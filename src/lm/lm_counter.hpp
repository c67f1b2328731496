// Streaming n-gram counting for the language-model trainer, with bounded memory.
//
// Sentences are tokenized on all threads, mapped to dense word ids in input order
// (so ids never depend on the thread count), padded as <s> w1 .. wn </s>, and every
// n-gram of orders 1..N is counted (orders 2..N on one thread per order). When the
// count tables outgrow `memory_budget` bytes they are sorted and spilled to disk as
// runs (lm_count_runs.hpp), merged again by finish(). The final counts are what the
// model is made of, so they must fit in memory; the budget bounds everything else.
// Literal "<s>", "</s>" and "<unk>" tokens in the corpus are skipped, as KenLM's
// lmplz does (it treats them as whitespace).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "lm/lm_count_runs.hpp"
#include "lm/lm_grams.hpp"
#include "parallel/parallel.hpp"
#include "text/text_batch.hpp"
#include "text/tokenizer.hpp"
#include "text/vocabulary.hpp"

namespace fastamfm {

struct NgramCounts {
  std::vector<std::string> words;  // id -> word; ids 0, 1, 2 are <unk>, <s>, </s>
  std::vector<GramArray> orders;   // orders[n-1], sorted with gram_less; orders[0] lists every word id once
  uint64_t sentences = 0;
  uint64_t tokens = 0;
  uint64_t spilled_runs = 0;
  bool closed_vocabulary = false;
};

// Training takes counts over (train_lm leaves them without orders). Throws
// InputError for such emptied counts, which nothing can use any more.
void require_counts_not_taken(const NgramCounts& counts);

struct CounterOptions {
  int order = 3;
  size_t memory_budget = size_t{1} << 30;
  std::string temp_dir;  // where runs spill; empty = $TMPDIR or /tmp
  int workers = -1;
};

class NgramCounter {
 public:
  // closed_vocabulary: when not empty, words outside it are counted as <unk>.
  NgramCounter(CounterOptions options, Tokenizer tokenizer, const std::vector<std::string>& closed_vocabulary);

  void add(const TextBatch& texts, const InterruptCheck& interrupted = {});
  // Streams a one-sentence-per-line UTF-8 file in chunks.
  void add_file(const std::string& path, const InterruptCheck& interrupted = {});
  // Sorted counts of every order (of a part of a corpus, possibly without tokens:
  // merge_ngram_counts adds parts). The counts are handed over: afterwards add,
  // add_file and finish throw InputError (a finished counter holds no tables).
  NgramCounts finish(const InterruptCheck& interrupted = {});

  uint64_t sentences() const { return sentences_; }
  uint64_t tokens() const { return tokens_; }
  uint64_t spilled_runs() const { return spilled_runs_; }

 private:
  size_t table_bytes() const;
  void spill();
  void check_not_finished() const;

  CounterOptions options_;
  Tokenizer tokenizer_;
  Vocabulary vocab_;
  bool closed_ = false;
  std::vector<uint64_t> unigram_counts_;
  std::vector<GramArray> grams_;  // orders 2..N, at index n-2
  std::vector<GramIndex> index_;
  std::vector<std::vector<std::unique_ptr<CountRun>>> runs_;
  uint64_t sentences_ = 0, tokens_ = 0, spilled_runs_ = 0;
  bool finished_ = false;
};

}  // namespace fastamfm
