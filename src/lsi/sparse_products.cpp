#include "lsi/sparse_products.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "text/hashing.hpp"
#include "lsi/vector_clones.hpp"

namespace fastamfm {

namespace {

// Documents per block: the block's Z (docs x l doubles) is the only
// document-sized buffer, about 14 MB for l = 110.
constexpr size_t kBlockDocs = 16384;

// Splits the terms into `parts` ranges holding about equal numbers of non-zeros.
std::vector<uint32_t> balanced_term_ranges(const TermDocumentMatrix& a, size_t parts) {
  const auto& nnz = a.term_nnz();
  const double per_part = static_cast<double>(a.nnz()) / static_cast<double>(parts);
  std::vector<uint32_t> bounds{0};
  uint64_t seen = 0;
  for (size_t t = 0; t < nnz.size(); ++t) {
    seen += nnz[t];
    if (bounds.size() < parts && static_cast<double>(seen) >= per_part * static_cast<double>(bounds.size()))
      bounds.push_back(static_cast<uint32_t>(t + 1));
  }
  if (bounds.back() != nnz.size()) bounds.push_back(static_cast<uint32_t>(nnz.size()));
  return bounds;
}

// y[t] += A[t][d] * z[d - d0] for the documents d of [d0, d1) and the terms t of
// [lo, hi), documents in order.
FASTAMFM_VECTOR_CLONES
void scatter_range(const DocChunk& c, size_t d0, size_t d1, uint32_t lo, uint32_t hi, const double* z, size_t l,
                   double* y) {
  for (size_t d = d0; d < d1; ++d) {
    const uint32_t* begin = c.terms.data() + c.offsets[d];
    const uint32_t* end = c.terms.data() + c.offsets[d + 1];
    const uint32_t* p = lo > 0 ? std::lower_bound(begin, end, lo) : begin;
    const double* __restrict zrow = z + (d - d0) * l;
    for (; p < end && *p < hi; ++p) {
      const double v = c.values[static_cast<size_t>(p - c.terms.data())];
      double* __restrict yrow = y + static_cast<size_t>(*p) * l;
      for (size_t k = 0; k < l; ++k) yrow[k] += v * zrow[k];
    }
  }
}

// z[d - d0] = sum over the terms t of document d of A[t][d] * x[t], for d in [begin, end).
// x is read in single precision (half the memory traffic of this random-access
// loop); sums are double. Q's columns are then accurate to ~1e-7, far below what
// the randomized range finder resolves.
FASTAMFM_VECTOR_CLONES
void gather_docs(const DocChunk& c, size_t d0, size_t begin, size_t end, const float* x, size_t l, double* z) {
  for (size_t d = begin; d < end; ++d) {
    double* __restrict zrow = z + (d - d0) * l;
    std::fill(zrow, zrow + l, 0.0);
    for (uint64_t e = c.offsets[d]; e < c.offsets[d + 1]; ++e) {
      const double v = c.values[e];
      const float* __restrict xrow = x + static_cast<size_t>(c.terms[e]) * l;
      for (size_t k = 0; k < l; ++k) zrow[k] += v * static_cast<double>(xrow[k]);
    }
  }
}

// The scatter of a block: each term range on its own thread.
void scatter_block(const DocChunk& c, size_t d0, size_t d1, const double* z, size_t l, double* y,
                   const std::vector<uint32_t>& ranges, int workers, const InterruptCheck& interrupted) {
  parallel_parts(
      ranges.size() - 1, workers, [&](size_t r) { scatter_range(c, d0, d1, ranges[r], ranges[r + 1], z, l, y); },
      interrupted);
}

void gather_block(const DocChunk& c, size_t d0, size_t d1, const float* x, size_t l, double* z, int workers,
                  const InterruptCheck& interrupted) {
  parallel_for(
      d1 - d0, workers, [&](size_t begin, size_t end) { gather_docs(c, d0, d0 + begin, d0 + end, x, l, z); },
      interrupted, 64);
}

template <class FillBlock>
void stream_blocks(const TermDocumentMatrix& a, size_t l, double* y, int workers, const InterruptCheck& interrupted,
                   const ChunkProgress& progress, FillBlock&& fill_block) {
  std::fill(y, y + a.num_terms() * l, 0.0);
  const size_t threads = static_cast<size_t>(resolve_workers(workers));
  const std::vector<uint32_t> ranges = balanced_term_ranges(a, std::max<size_t>(threads, 1));
  std::vector<double> z;
  for (size_t i = 0; i < a.num_chunks(); ++i) {
    const std::shared_ptr<const DocChunk> chunk = a.chunk(i);
    for (size_t d0 = 0; d0 < chunk->num_docs(); d0 += kBlockDocs) {
      const size_t d1 = std::min(chunk->num_docs(), d0 + kBlockDocs);
      z.resize((d1 - d0) * l);
      fill_block(*chunk, d0, d1, z.data());
      scatter_block(*chunk, d0, d1, z.data(), l, y, ranges, workers, interrupted);
    }
    if (progress) progress(i + 1, a.num_chunks());
  }
}

}  // namespace

void gaussian_row(uint64_t seed, uint64_t document, size_t l, double* out) {
  // Box-Muller on two uniforms drawn from a counter-based hash of (seed, document,
  // column pair): the even column of a pair gets the cosine branch, the odd the sine.
  const uint64_t key = mix64(mix64(seed + 0x632be59bd9b4e019ULL) ^ (document * 0x9e3779b97f4a7c15ULL));
  for (size_t k = 0; k < l; k += 2) {
    const uint64_t r1 = mix64(key + (k >> 1) * 0xd1b54a32d192ed03ULL + 1);
    const uint64_t r2 = mix64(r1 ^ 0x8cb92ba72f3d8dd7ULL);
    // Single precision is plenty for a random test matrix, and twice as fast.
    const float u1 = (static_cast<float>(r1 >> 40) + 0.5f) * 0x1.0p-24f;  // in (0, 1)
    const float u2 = static_cast<float>(r2 >> 40) * 0x1.0p-24f;
    const float radius = std::sqrt(-2.0f * std::log(u1));
    const float angle = 6.2831853f * u2;
    out[k] = static_cast<double>(radius * std::cos(angle));
    if (k + 1 < l) out[k + 1] = static_cast<double>(radius * std::sin(angle));
  }
}

void multiply_gaussian(const TermDocumentMatrix& a, uint64_t seed, size_t l, double* y, int workers,
                       const InterruptCheck& interrupted, const ChunkProgress& progress) {
  stream_blocks(a, l, y, workers, interrupted, progress, [&](const DocChunk& c, size_t d0, size_t d1, double* z) {
    parallel_for(
        d1 - d0, workers,
        [&](size_t begin, size_t end) {
          for (size_t i = begin; i < end; ++i) {
            const size_t d = d0 + i;
            if (c.offsets[d] == c.offsets[d + 1]) continue;  // an empty document never reaches y
            gaussian_row(seed, c.first_doc + d, l, z + i * l);
          }
        },
        interrupted, 64);
  });
}

void multiply_a_at(const TermDocumentMatrix& a, const double* x, size_t l, double* y, int workers,
                   const InterruptCheck& interrupted, const ChunkProgress& progress) {
  const std::vector<float> x_single(x, x + a.num_terms() * l);
  stream_blocks(a, l, y, workers, interrupted, progress, [&](const DocChunk& c, size_t d0, size_t d1, double* z) {
    gather_block(c, d0, d1, x_single.data(), l, z, workers, interrupted);
  });
}

}  // namespace fastamfm
