// The n-gram counts of a corpus from the counts of its parts, counted apart (other
// threads, processes or machines): merge_ngram_counts(first, second) gives exactly
// the NgramCounts one NgramCounter fed `first`'s sentences and then `second`'s
// would finish with, so a language model estimated from merged counts is the model
// of the whole corpus, bit for bit.
//
// Word ids are dense and given in order of first occurrence: the merged vocabulary
// is `first`'s words followed by the words new in `second`, in `second`'s order.
// `second`'s n-grams are renumbered into it and sorted again; equal n-grams add
// their counts. Merging is associative, so parts may be merged pairwise in a tree
// as long as each merge keeps corpus order (earlier part first).
#pragma once
#include "lm/lm_counter.hpp"

namespace fastamfm {

// Checks that `counts` is well formed (vocabulary markers, sorted n-grams without
// repeats, ids inside the vocabulary, every word listed once among the unigrams) and
// closed as a corpus's counts are (every n-gram of order 2 and up counted at least once,
// its prefix and its suffix present one order down); throws InputError naming the
// problem and the n-gram. For counts that crossed a process boundary (a pickle, Dask).
void validate_ngram_counts(const NgramCounts& counts);

NgramCounts merge_ngram_counts(const NgramCounts& first, const NgramCounts& second, int workers);

}  // namespace fastamfm
