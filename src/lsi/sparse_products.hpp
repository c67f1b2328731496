// The passes over the term-document matrix A (M terms x N documents) that a
// randomized SVD needs, streamed chunk by chunk, on all cores, never forming A^T
// and never holding anything of size N x l:
//
//   Y = A * Omega        Omega[j][c] ~ N(0, 1), generated from (seed, j, c) when
//                        needed, so it is never stored
//   Y = A * (A^T * X)    per block of documents: Z = A_b^T X (a gather per
//                        document), then Y += A_b Z (a scatter into rows of Y)
//
// Y and X are M x l, row-major, float64 (X is read as float32 in the gather, which
// halves its random-access memory traffic; all sums are float64). Each row of Y accumulates its terms'
// contributions in document order whatever the thread count or the chunking, so
// results are identical bit for bit across workers and between in-memory and
// on-disk matrices: threads own disjoint ranges of terms in the scatter.
#pragma once
#include <cstdint>
#include <functional>

#include "parallel/parallel.hpp"
#include "lsi/term_document.hpp"

namespace fastamfm {

// Row `document` of Omega: l standard normal values that depend only on
// (seed, document, column), so any chunking yields the same matrix.
void gaussian_row(uint64_t seed, uint64_t document, size_t l, double* out);

// Called after each chunk with (chunks done, chunks in total).
using ChunkProgress = std::function<void(size_t, size_t)>;

// y (M x l) = A * Omega(seed).
void multiply_gaussian(const TermDocumentMatrix& a, uint64_t seed, size_t l, double* y, int workers,
                       const InterruptCheck& interrupted = {}, const ChunkProgress& progress = {});

// y (M x l) = A * (A^T * x), x also M x l.
void multiply_a_at(const TermDocumentMatrix& a, const double* x, size_t l, double* y, int workers,
                   const InterruptCheck& interrupted = {}, const ChunkProgress& progress = {});

}  // namespace fastamfm
