// Self-BLEU (Zhu et al. 2018, Texygen): each response scored by sentence BLEU with every
// other response of the same set as its references; the set's Self-BLEU is the mean.
//
// The sentence BLEU is NLTK's sentence_bleu with SmoothingFunction().method1, as Texygen
// and fast-bleu compute it: clipped n-gram precisions (denominator at least 1), a
// precision with no match given epsilon / denominator, uniform weights 1/max_order,
// the closest reference length (ties: the shorter), 0 without any unigram match, and the
// weighted logs summed as math.fsum sums them.
//
// Clipping against "all the others" needs no n x n work: per n-gram the two largest
// counts over the set (and how many responses hold the largest) give the largest count
// among the others of any one response; the length histogram gives the closest other
// length.
#pragma once
#include <vector>

#include "parallel/parallel.hpp"
#include "text/token_id_batch.hpp"

namespace fastamfm {

// NLTK's sentence BLEU (method1) from one segment's statistics.
double nltk_sentence_bleu(size_t hyp_len, size_t ref_len, const uint64_t* correct, const uint64_t* guess,
                          int max_order, double epsilon);

// Self-BLEU of each response against all the others. [n]; n >= 2.
std::vector<double> self_bleu_scores(const TokenIdBatch& responses, int max_order, double epsilon, int workers,
                                     const InterruptCheck& interrupted = {});

}  // namespace fastamfm
