// AM's projection: sparse bag-of-words rows times the dense LSI matrix U_k,
// each result normalised to unit length.
#pragma once
#include <cstdint>

#include "device.cuh"

namespace fastamfm::cuda {

// All pointers are device memory. The rows are CSR: row r holds the entries
// indptr[r] .. indptr[r+1]-1 of (indices: int32 term ids < terms, data: float32
// weights such as counts). components: terms x dims row-major float32 (U_k).
// out (rows x dims) = L2-normalised sum over entries of data * components[index];
// a row without entries, or whose sum is zero, becomes the zero vector (AM 0).
// The caller guarantees the term ids are in range. Asynchronous on `stream`.
void am_projection(const int64_t* indptr, const int32_t* indices, const float* data, int64_t rows,
                   const float* components, int64_t dims, float* out, Stream stream);

}  // namespace fastamfm::cuda
