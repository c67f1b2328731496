// Word vectors behind one memory image, whether it lives in a cache file mapped
// read-only (shared by every process that opens it) or in memory (from an LSI
// model, or a load without cache).
//
// Image layout (host byte order, every section 64-byte aligned), version 2:
//   WordVectorsHeader | float32 vectors[rows][dim] | uint64 word_end[rows + 1] |
//   word bytes | open-addressing table {token id, row}[capacity] | float64 mean[dim]
// The table is keyed by the tokenizer's 64-bit token id, so a tokenized sentence
// is looked up without re-hashing; the word bytes are compared as well, so a hash
// collision can never return another word's vector. A word that appears twice in
// the source keeps its first vector (what gensim keeps); later rows are dropped.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "text/hashing.hpp"
#include "io/mapped_file.hpp"
#include "parallel/parallel.hpp"
#include "vectors/vector_file_reader.hpp"

namespace fastamfm {

// What a cache was built from: a changed size, modification time or first MiB of
// the source (or another format) makes the cache stale and it is rebuilt.
struct SourceKey {
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  uint64_t head_hash = 0;
  uint32_t format = 0;
  bool operator==(const SourceKey& o) const {
    return size == o.size && mtime_ns == o.mtime_ns && head_hash == o.head_hash && format == o.format;
  }
};
SourceKey source_key(const std::string& path, VectorFormat format);

struct WordVectorsHeader {
  char magic[8];
  uint32_t version;
  uint32_t duplicates_dropped;
  uint64_t rows, dim;
  uint64_t vectors_offset, word_end_offset, words_offset, words_bytes;
  uint64_t table_offset, table_capacity, mean_offset, image_bytes;
  uint64_t source_size;
  int64_t source_mtime_ns;
  uint64_t source_head_hash;
  uint64_t source_format;
  uint64_t body_checksum;  // checksum64 (io/checksum.hpp) of every byte after the header
  uint64_t checksum;       // checksum64 of every byte above
};

// One slot of the image's open-addressing table; row == kEmptyTableSlot when free.
struct WordVectorsTableEntry {
  uint64_t id;
  uint64_t row;
};
constexpr uint64_t kEmptyTableSlot = UINT64_MAX;

class WordVectors {
 public:
  static constexpr uint32_t kNotFound = UINT32_MAX;

  // Maps a cache file (or, without use_mmap, copies it into memory); verifies its
  // checksums and structure; FormatError naming the path when it is corrupt.
  static std::shared_ptr<WordVectors> open(const std::string& cache_path, bool use_mmap = true);
  // Builds the image in memory (no cache file).
  static std::shared_ptr<WordVectors> from_parsed(const ParsedVectors& parsed, const SourceKey& key, int workers);

  size_t size() const { return header_->rows; }
  size_t dim() const { return header_->dim; }
  const float* data() const { return vectors_; }
  const float* row(size_t r) const { return vectors_ + r * dim(); }
  const double* mean() const { return mean_; }  // mean of all vectors, nlg-eval's vector for unknown words
  std::string_view word(size_t r) const {
    return std::string_view(words_ + word_end_[r], word_end_[r + 1] - word_end_[r]);
  }
  // Row of `word` (whose token id is `id`), or kNotFound.
  uint32_t find(TokenId id, std::string_view word) const;
  uint32_t find(std::string_view word) const { return find(hash_token(word), word); }
  const WordVectorsHeader& header() const { return *header_; }
  // The cache path, or "<memory>" for an in-memory image.
  const std::string& origin() const { return origin_; }

 private:
  void attach(const uint8_t* image, size_t bytes);

  std::string origin_;
  MappedFile mapping_;
  std::unique_ptr<uint64_t[]> owned_;
  const WordVectorsHeader* header_ = nullptr;
  const float* vectors_ = nullptr;
  const uint64_t* word_end_ = nullptr;
  const char* words_ = nullptr;
  const WordVectorsTableEntry* table_ = nullptr;
  const double* mean_ = nullptr;
};

// True when cache_path holds a cache of this fastamfm version built from the
// source `key` describes; false when absent or stale; FormatError when the file
// there is not a readable cache (corrupt header).
bool cache_is_current(const std::string& cache_path, const SourceKey& key);

// Parses `source` and writes its cache atomically (readers never see a partial file).
void build_word_vectors_cache(const std::string& source, VectorFormat format, const std::string& cache_path,
                              int workers, const InterruptCheck& interrupted = {});

}  // namespace fastamfm
