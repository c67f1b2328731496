// Ragged references encoded once: tokens and n-gram counts of every reference,
// grouped by segment (refs of hypothesis i are references refs_begin(i)..refs_end(i)).
// Immutable after construction, so many systems are scored against one instance
// concurrently without re-encoding.
#pragma once
#include <cstdint>
#include <vector>

#include "overlap/ngram_counts.hpp"
#include "text/text_batch.hpp"
#include "text/tokenized_batch.hpp"
#include "text/tokenizer.hpp"

namespace fastamfm {

class ReferenceSet {
 public:
  // flat_refs holds all references, segment after segment; segment_offsets has
  // n_segments + 1 entries, starts at 0, ends at flat_refs.size(), and every
  // segment has at least one reference.
  ReferenceSet(const TextBatch& flat_refs, std::vector<uint64_t> segment_offsets, Tokenizer tokenizer,
               int max_order, int workers, const InterruptCheck& interrupted = {});

  size_t num_segments() const { return segment_offsets_.size() - 1; }
  size_t num_references() const { return tokens_.size(); }
  size_t refs_begin(size_t segment) const { return segment_offsets_[segment]; }
  size_t refs_end(size_t segment) const { return segment_offsets_[segment + 1]; }
  size_t num_refs(size_t segment) const { return refs_end(segment) - refs_begin(segment); }

  const Tokenizer& tokenizer() const { return tokenizer_; }
  const TokenizedBatch& tokens() const { return tokens_; }  // indexed by reference
  const NgramTable& ngrams() const { return ngrams_; }      // indexed by reference
  int max_order() const { return ngrams_.max_order(); }
  const std::vector<uint64_t>& segment_offsets() const { return segment_offsets_; }

 private:
  std::vector<uint64_t> segment_offsets_;
  Tokenizer tokenizer_;
  TokenizedBatch tokens_;
  NgramTable ngrams_;
};

}  // namespace fastamfm
