#include "overlap/reference_set.hpp"

#include <string>

#include "common/errors.hpp"
#include "overlap/ngram_counts.hpp"

namespace fastamfm {

namespace {
void check_segment_offsets(const std::vector<uint64_t>& offsets, size_t n_refs) {
  if (offsets.size() < 2) throw InputError("references: no segments (empty reference list)");
  if (offsets.front() != 0 || offsets.back() != n_refs)
    throw InputError("references: segment offsets do not cover the " + std::to_string(n_refs) + " references");
  for (size_t i = 0; i + 1 < offsets.size(); ++i) {
    if (offsets[i + 1] <= offsets[i])
      throw InputError("references: segment " + std::to_string(i) + " has no reference");
  }
}
}  // namespace

ReferenceSet::ReferenceSet(const TextBatch& flat_refs, std::vector<uint64_t> segment_offsets,
                           Tokenizer tokenizer, int max_order, int workers, const InterruptCheck& interrupted)
    : segment_offsets_(std::move(segment_offsets)), tokenizer_(tokenizer) {
  check_segment_offsets(segment_offsets_, flat_refs.size());
  if (max_order < 0 || max_order > kMaxNgramOrder)
    throw InputError("max_order must be in 0.." + std::to_string(kMaxNgramOrder) + ", got " + std::to_string(max_order));
  tokens_ = tokenize_batch(flat_refs, tokenizer_, workers, interrupted);
  // AM, FM and the embedding metrics need the tokens only (max_order 0).
  if (max_order > 0) ngrams_ = NgramTable(tokens_, max_order, workers, interrupted);
}

}  // namespace fastamfm
