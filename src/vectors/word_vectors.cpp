#include "vectors/word_vectors.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>

#include <cfloat>
#include <cmath>
#include <fcntl.h>
#include <unistd.h>

#include "common/errors.hpp"
#include "io/atomic_file.hpp"
#include "io/checksum.hpp"
#include "text/utf8.hpp"

namespace fastamfm {

namespace {

constexpr char kMagic[8] = {'F', 'A', 'M', 'F', 'M', 'W', 'V', '\0'};
constexpr uint32_t kVersion = 2;  // 2: the body is checksummed too
constexpr size_t kAlign = 64;
constexpr size_t kHeadBytes = size_t{1} << 20;

size_t align_up(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

uint64_t header_checksum(const WordVectorsHeader& h) {
  return checksum64(&h, offsetof(WordVectorsHeader, checksum));
}

using Sink = std::function<void(const void*, size_t)>;

// Lays out and writes the image of `parsed`: drops repeated words, builds the
// lookup table and the mean vector, then streams the sections to a sink.
class ImageWriter {
 public:
  ImageWriter(const ParsedVectors& parsed, const SourceKey& key, int workers) : parsed_(parsed) {
    index_words();
    compute_mean(workers);
    lay_out(key);
    Checksum64Stream body;
    write_body([&](const void* p, size_t n) { body.update(p, n); });
    header_.body_checksum = body.value();
    header_.checksum = header_checksum(header_);
  }

  size_t image_bytes() const { return header_.image_bytes; }

  void write(const Sink& sink) const {
    sink(&header_, sizeof header_);
    write_body(sink);
  }

 private:
  // Everything after the header, padding included.
  void write_body(const Sink& sink) const {
    size_t written = sizeof header_;
    auto put = [&](const void* p, size_t n) {
      sink(p, n);
      written += n;
    };
    auto pad_to = [&](size_t offset) {
      static const char zeros[kAlign] = {};
      while (written < offset) put(zeros, std::min(kAlign, offset - written));
    };
    pad_to(header_.vectors_offset);
    const size_t dim = parsed_.dim;
    for (size_t c = 0; c < parsed_.chunks.size(); ++c) {
      const VectorChunk& chunk = parsed_.chunks[c];
      if (!has_dropped_[c]) {
        put(chunk.values.data(), chunk.values.size() * sizeof(float));
        continue;
      }
      for (size_t r = 0; r < chunk.rows(); ++r)
        if (!dropped_[c][r]) put(chunk.values.data() + r * dim, dim * sizeof(float));
    }
    pad_to(header_.word_end_offset);
    put(word_end_.data(), word_end_.size() * sizeof(uint64_t));
    pad_to(header_.words_offset);
    for (const std::string_view w : kept_words_) put(w.data(), w.size());
    pad_to(header_.table_offset);
    put(table_.data(), table_.size() * sizeof(WordVectorsTableEntry));
    pad_to(header_.mean_offset);
    put(mean_.data(), mean_.size() * sizeof(double));
    pad_to(header_.image_bytes);
  }

  void index_words() {
    size_t capacity = 16;
    while (capacity < 2 * parsed_.rows + 1) capacity *= 2;
    table_.assign(capacity, WordVectorsTableEntry{0, kEmptyTableSlot});
    word_end_.reserve(parsed_.rows + 1);
    word_end_.push_back(0);
    kept_words_.reserve(parsed_.rows);
    const size_t mask = capacity - 1;
    for (const VectorChunk& chunk : parsed_.chunks) {
      dropped_.emplace_back(chunk.rows(), 0);
      has_dropped_.push_back(0);
      for (size_t r = 0; r < chunk.rows(); ++r) {
        const TokenId id = chunk.word_id[r];
        const std::string_view word = chunk.word(r);
        size_t slot = id & mask;
        bool repeated = false;
        while (table_[slot].row != kEmptyTableSlot) {
          if (table_[slot].id == id && kept_words_[table_[slot].row] == word) {
            repeated = true;
            break;
          }
          slot = (slot + 1) & mask;
        }
        if (repeated) {
          dropped_.back()[r] = 1;
          has_dropped_.back() = 1;
          ++duplicates_;
          continue;
        }
        if (kept_words_.size() >= WordVectors::kNotFound)
          throw InputError("word vectors: more than 2^32-1 words are not supported");
        table_[slot] = WordVectorsTableEntry{id, kept_words_.size()};
        kept_words_.push_back(word);
        word_end_.push_back(word_end_.back() + word.size());
      }
    }
  }

  // Sums per chunk (fixed by the file, not by the thread count), then in order.
  void compute_mean(int workers) {
    const size_t dim = parsed_.dim;
    std::vector<std::vector<double>> sums(parsed_.chunks.size(), std::vector<double>(dim, 0.0));
    parallel_parts(parsed_.chunks.size(), workers, [&](size_t c) {
      const VectorChunk& chunk = parsed_.chunks[c];
      double* sum = sums[c].data();
      for (size_t r = 0; r < chunk.rows(); ++r) {
        if (dropped_[c][r]) continue;
        const float* v = chunk.values.data() + r * dim;
        for (size_t j = 0; j < dim; ++j) sum[j] += v[j];
      }
    });
    mean_.assign(dim, 0.0);
    for (const auto& s : sums)
      for (size_t j = 0; j < dim; ++j) mean_[j] += s[j];
    const double n = static_cast<double>(kept_words_.size());
    for (double& m : mean_) m /= n;
  }

  void lay_out(const SourceKey& key) {
    WordVectorsHeader& h = header_;
    std::memset(&h, 0, sizeof h);
    std::memcpy(h.magic, kMagic, sizeof kMagic);
    h.version = kVersion;
    h.duplicates_dropped = static_cast<uint32_t>(std::min<size_t>(duplicates_, UINT32_MAX));
    h.rows = kept_words_.size();
    h.dim = parsed_.dim;
    h.vectors_offset = align_up(sizeof h);
    h.word_end_offset = align_up(h.vectors_offset + h.rows * h.dim * sizeof(float));
    h.words_offset = align_up(h.word_end_offset + word_end_.size() * sizeof(uint64_t));
    h.words_bytes = word_end_.back();
    h.table_offset = align_up(h.words_offset + h.words_bytes);
    h.table_capacity = table_.size();
    h.mean_offset = align_up(h.table_offset + table_.size() * sizeof(WordVectorsTableEntry));
    h.image_bytes = align_up(h.mean_offset + h.dim * sizeof(double));
    h.source_size = key.size;
    h.source_mtime_ns = key.mtime_ns;
    h.source_head_hash = key.head_hash;
    h.source_format = key.format;
  }

  const ParsedVectors& parsed_;
  std::vector<std::vector<uint8_t>> dropped_;  // per chunk, per row: a repeated word
  std::vector<uint8_t> has_dropped_;
  size_t duplicates_ = 0;
  std::vector<std::string_view> kept_words_;
  std::vector<uint64_t> word_end_;
  std::vector<WordVectorsTableEntry> table_;
  std::vector<double> mean_;
  WordVectorsHeader header_{};
};

std::string corrupt(const std::string& origin, const std::string& what) {
  return origin + ": corrupt word-vector cache (" + what + "); delete the file to rebuild it from the source";
}

}  // namespace

SourceKey source_key(const std::string& path, VectorFormat format) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw FileError(path, "stat", errno);
  SourceKey key;
  key.size = static_cast<uint64_t>(st.st_size);
  key.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  key.format = static_cast<uint32_t>(format);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw FileError(path, "open", errno);
  std::string head(kHeadBytes, '\0');
  head.resize(std::fread(head.data(), 1, head.size(), f));
  std::fclose(f);
  key.head_hash = hash_token(head);
  return key;
}

void WordVectors::attach(const uint8_t* image, size_t bytes) {
  if (bytes < sizeof(WordVectorsHeader)) throw FormatError(corrupt(origin_, "shorter than its header"));
  header_ = reinterpret_cast<const WordVectorsHeader*>(image);
  const WordVectorsHeader& h = *header_;
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) throw FormatError(corrupt(origin_, "not a fastamfm cache"));
  if (h.version != kVersion)
    throw FormatError(corrupt(origin_, "format version " + std::to_string(h.version) + ", expected " +
                                           std::to_string(kVersion)));
  if (h.checksum != header_checksum(h)) throw FormatError(corrupt(origin_, "header checksum mismatch"));
  if (h.image_bytes != bytes)
    throw FormatError(corrupt(origin_, "size " + std::to_string(bytes) + " bytes, the header says " +
                                           std::to_string(h.image_bytes)));
  if (checksum64(image + sizeof h, bytes - sizeof h) != h.body_checksum)
    throw FormatError(corrupt(origin_, "checksum mismatch: the file was damaged or modified after it was written"));
  auto section_fits = [&](uint64_t offset, uint64_t count, uint64_t item) {
    return offset % 8 == 0 && offset >= sizeof h && offset <= bytes && (item == 0 || count <= (bytes - offset) / item);
  };
  const bool ok = h.rows > 0 && h.dim > 0 && h.rows < kNotFound && h.rows <= bytes / h.dim &&
                  section_fits(h.vectors_offset, h.rows * h.dim, sizeof(float)) &&
                  section_fits(h.word_end_offset, h.rows + 1, sizeof(uint64_t)) &&
                  section_fits(h.words_offset, h.words_bytes, 1) &&
                  section_fits(h.table_offset, h.table_capacity, sizeof(WordVectorsTableEntry)) &&
                  section_fits(h.mean_offset, h.dim, sizeof(double)) && h.table_capacity > h.rows &&
                  (h.table_capacity & (h.table_capacity - 1)) == 0;
  if (!ok) throw FormatError(corrupt(origin_, "inconsistent section sizes"));
  vectors_ = reinterpret_cast<const float*>(image + h.vectors_offset);
  word_end_ = reinterpret_cast<const uint64_t*>(image + h.word_end_offset);
  words_ = reinterpret_cast<const char*>(image + h.words_offset);
  table_ = reinterpret_cast<const WordVectorsTableEntry*>(image + h.table_offset);
  mean_ = reinterpret_cast<const double*>(image + h.mean_offset);
  // Everything the lookups and metrics trust is checked once here.
  if (word_end_[0] != 0 || word_end_[h.rows] != h.words_bytes)
    throw FormatError(corrupt(origin_, "word offsets do not cover the word bytes"));
  // Each word on its own: valid bytes cut inside a character are two invalid words.
  for (size_t r = 0; r < h.rows; ++r) {
    if (word_end_[r + 1] < word_end_[r]) throw FormatError(corrupt(origin_, "word offsets out of order"));
    if (find_invalid_utf8(std::string_view(words_ + word_end_[r], word_end_[r + 1] - word_end_[r])) != SIZE_MAX)
      throw FormatError(corrupt(origin_, "word " + std::to_string(r) + " is not valid UTF-8"));
  }
  // Scans of the whole image, accumulated without branches so that they run at
  // memory speed (opening a cache is meant to be cheap).
  int in_range = 1;
  for (size_t i = 0; i < h.table_capacity; ++i)
    in_range &= static_cast<int>(table_[i].row < h.rows) | static_cast<int>(table_[i].row == kEmptyTableSlot);
  if (!in_range) throw FormatError(corrupt(origin_, "lookup table points past the last row"));
  int finite = 1;
  for (size_t i = 0; i < h.rows * h.dim; ++i) finite &= static_cast<int>(std::fabs(vectors_[i]) <= FLT_MAX);
  for (size_t j = 0; j < h.dim; ++j) finite &= static_cast<int>(std::fabs(mean_[j]) <= DBL_MAX);
  if (!finite) throw FormatError(corrupt(origin_, "a vector value is not a finite number"));
}

uint32_t WordVectors::find(TokenId id, std::string_view word) const {
  const size_t mask = header_->table_capacity - 1;
  size_t slot = id & mask;
  for (size_t probes = 0; probes <= mask; ++probes, slot = (slot + 1) & mask) {
    const WordVectorsTableEntry& e = table_[slot];
    if (e.row == kEmptyTableSlot) return kNotFound;
    if (e.id != id) continue;
    if (this->word(e.row) == word) return static_cast<uint32_t>(e.row);
  }
  return kNotFound;
}

std::shared_ptr<WordVectors> WordVectors::open(const std::string& cache_path, bool use_mmap) {
  auto wv = std::make_shared<WordVectors>();
  wv->origin_ = cache_path;
  // Mapped (shared with every process reading the cache), or a private copy that later
  // changes to the file cannot reach.
  wv->mapping_ = MappedFile(cache_path, use_mmap ? MappedFile::Access::kShared : MappedFile::Access::kCopy);
  wv->attach(wv->mapping_.data(), wv->mapping_.size());
  return wv;
}

std::shared_ptr<WordVectors> WordVectors::from_parsed(const ParsedVectors& parsed, const SourceKey& key,
                                                      int workers) {
  const ImageWriter writer(parsed, key, workers);
  auto wv = std::make_shared<WordVectors>();
  wv->origin_ = "<memory>";
  const size_t bytes = writer.image_bytes();
  wv->owned_.reset(new uint64_t[bytes / sizeof(uint64_t)]);
  auto* out = reinterpret_cast<uint8_t*>(wv->owned_.get());
  size_t at = 0;
  writer.write([&](const void* p, size_t n) {
    std::memcpy(out + at, p, n);
    at += n;
  });
  wv->attach(out, bytes);
  return wv;
}

bool cache_is_current(const std::string& cache_path, const SourceKey& key) {
  std::FILE* f = std::fopen(cache_path.c_str(), "rb");
  if (!f) return false;
  WordVectorsHeader h{};
  const size_t got = std::fread(&h, 1, sizeof h, f);
  std::fclose(f);
  if (got != sizeof h) throw FormatError(corrupt(cache_path, "shorter than its header"));
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) throw FormatError(corrupt(cache_path, "not a fastamfm cache"));
  if (h.version != kVersion) return false;  // written by another fastamfm version: rebuild
  if (h.checksum != header_checksum(h)) throw FormatError(corrupt(cache_path, "header checksum mismatch"));
  const SourceKey cached{h.source_size, h.source_mtime_ns, h.source_head_hash, static_cast<uint32_t>(h.source_format)};
  return cached == key;
}

void build_word_vectors_cache(const std::string& source, VectorFormat format, const std::string& cache_path,
                              int workers, const InterruptCheck& interrupted) {
  const SourceKey key = source_key(source, format);
  const ParsedVectors parsed = read_vector_file(source, format, workers, interrupted);
  const ImageWriter writer(parsed, key, workers);
  AtomicFile file(cache_path);
  writer.write([&](const void* p, size_t n) { file.write(p, n); });
  file.commit();
}

}  // namespace fastamfm
