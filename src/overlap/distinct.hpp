// Distinct-n (Li et al. 2016): distinct n-grams / all n-grams, over the whole set
// of responses and per response (a response too short for any n-gram scores 0).
#pragma once
#include <cstdint>
#include <vector>

#include "parallel/parallel.hpp"
#include "text/hashing.hpp"
#include "text/tokenized_batch.hpp"

namespace fastamfm {

struct DistinctCounts {
  std::vector<int> orders;
  std::vector<uint64_t> unique;         // [n * orders] distinct n-grams of each response
  std::vector<uint64_t> total;          // [n * orders] n-grams of each response
  std::vector<uint64_t> corpus_unique;  // [orders] distinct n-grams over all responses
  std::vector<uint64_t> corpus_total;   // [orders]
  // [orders] the distinct n-gram keys over all responses, sorted: the union of two
  // batches' keys gives the distinct n-grams of both, so corpus Distinct-n streams.
  std::vector<std::vector<NgramKey>> corpus_keys;
};

DistinctCounts distinct_ngrams(const TokenizedBatch& texts, const std::vector<int>& orders, int workers,
                               const InterruptCheck& interrupted = {});

}  // namespace fastamfm
