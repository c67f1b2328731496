#include "lsi/lsi_model.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "common/errors.hpp"
#include "io/mapped_file.hpp"
#include "io/atomic_file.hpp"
#include "io/checksum.hpp"
#include "lsi/vector_clones.hpp"
#include "text/utf8.hpp"

namespace fastamfm {

namespace {

constexpr char kMagic[8] = {'F', 'A', 'M', 'F', 'M', 'L', 'S', 'I'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kHeaderBytes = 8 + 4 * 4 + 9 * 8;
constexpr uint64_t kMaxDims = uint64_t{1} << 20;

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

// Writes to the file and the checksum together.
class SummedWriter {
 public:
  explicit SummedWriter(AtomicFile& file) : file_(file) {}
  void write(const void* data, size_t n) {
    file_.write(data, n);
    sum_.update(data, n);
    written_ += n;
  }
  template <class T>
  void put(T value) { write(&value, sizeof value); }
  void pad_to(size_t alignment) {
    static const unsigned char zeros[64] = {};
    write(zeros, round_up(written_, alignment) - written_);
  }
  uint64_t checksum() const { return sum_.value(); }

 private:
  AtomicFile& file_;
  LsiChecksum sum_;
  size_t written_ = 0;
};

// Bytes of a model file, mapped or read.
struct FileBytes {
  const unsigned char* data = nullptr;
  size_t size = 0;
  std::shared_ptr<const void> owner;
};

FileBytes read_file_bytes(const std::string& path, bool use_mmap) {
  auto file = std::make_shared<MappedFile>(path, use_mmap ? MappedFile::Access::kPrivate : MappedFile::Access::kCopy);
  FileBytes out;
  out.data = file->data();
  out.size = file->size();
  out.owner = std::move(file);
  return out;
}

// Bounds-checked reading of the parsed file.
class Cursor {
 public:
  Cursor(const FileBytes& bytes, const std::string& path) : bytes_(bytes), path_(path) {}
  template <class T>
  T get() {
    T value;
    std::memcpy(&value, take(sizeof(T)), sizeof(T));
    return value;
  }
  const unsigned char* take(size_t n) {
    if (n > bytes_.size - pos_) throw FormatError(path_, 0, "file is truncated");
    const unsigned char* p = bytes_.data + pos_;
    pos_ += n;
    return p;
  }
  void align(size_t alignment) { take(round_up(pos_, alignment) - pos_); }
  size_t position() const { return pos_; }

 private:
  const FileBytes& bytes_;
  const std::string& path_;
  size_t pos_ = 0;
};

}  // namespace

TermIndex::TermIndex(const Vocabulary& vocabulary) {
  size_t capacity = 16;
  while (capacity < 2 * vocabulary.size()) capacity *= 2;  // at most half full
  slots_.resize(capacity);
  mask_ = capacity - 1;
  for (uint32_t t = 0; t < vocabulary.size(); ++t) {
    const TokenId id = hash_token(vocabulary.word(t));
    size_t i = id & mask_;
    while (slots_[i].index != Vocabulary::kNotFound) i = (i + 1) & mask_;
    slots_[i] = Slot{id, t};
  }
}

LsiModel::LsiModel(std::vector<std::string> words, std::vector<double> global_weights, std::vector<float> components,
                   std::vector<double> singular_values, LsiSettings settings)
    : global_weights_(std::move(global_weights)),
      singular_values_(std::move(singular_values)),
      settings_(settings),
      owned_components_(std::move(components)) {
  for (const auto& w : words) vocabulary_.add(w);
  if (vocabulary_.size() != words.size()) throw InputError("LSI model: the vocabulary has duplicate words");
  index_ = TermIndex(vocabulary_);
  components_ = owned_components_.data();
  if (owned_components_.size() != vocabulary_.size() * singular_values_.size())
    throw InputError("LSI model: components must be " + std::to_string(vocabulary_.size()) + " x " +
                     std::to_string(singular_values_.size()) + ", got " + std::to_string(owned_components_.size()) +
                     " values");
  check_consistent();
}

void LsiModel::check_consistent() const {
  if (vocabulary_.size() == 0) throw InputError("LSI model: empty vocabulary");
  if (singular_values_.empty()) throw InputError("LSI model: no dimensions");
  if (global_weights_.size() != vocabulary_.size())
    throw InputError("LSI model: " + std::to_string(global_weights_.size()) + " global weights for " +
                     std::to_string(vocabulary_.size()) + " words");
}

void LsiModel::save(const std::string& path) const {
  AtomicFile file(path);
  SummedWriter out(file);
  const size_t terms = num_terms(), k = dims();
  uint64_t word_bytes = 0;
  for (const auto& w : vocabulary_.words()) word_bytes += w.size();
  out.write(kMagic, sizeof kMagic);
  out.put<uint32_t>(kFormatVersion);
  out.put<uint32_t>(static_cast<uint32_t>(settings_.weighting));
  out.put<uint32_t>(static_cast<uint32_t>(settings_.tokenizer.preset));
  out.put<uint32_t>(settings_.tokenizer.lowercase ? 1 : 0);
  for (uint64_t v : {uint64_t{terms}, uint64_t{k}, settings_.documents, settings_.seed, settings_.oversampling,
                     settings_.power_iterations, settings_.min_count, settings_.max_vocab, word_bytes})
    out.put<uint64_t>(v);
  for (const auto& w : vocabulary_.words()) out.put<uint32_t>(static_cast<uint32_t>(w.size()));
  for (const auto& w : vocabulary_.words()) out.write(w.data(), w.size());
  out.pad_to(8);
  out.write(global_weights_.data(), terms * sizeof(double));
  out.write(singular_values_.data(), k * sizeof(double));
  out.pad_to(64);
  out.write(components_, terms * k * sizeof(float));
  const uint64_t sum = out.checksum();
  file.write(&sum, sizeof sum);
  file.commit();
}

std::shared_ptr<LsiModel> LsiModel::load(const std::string& path, bool use_mmap) {
  const FileBytes bytes = read_file_bytes(path, use_mmap);
  if (bytes.size < sizeof kMagic || std::memcmp(bytes.data, kMagic, sizeof kMagic) != 0)
    throw FormatError(path, 0, "not a fastamfm LSI model file (bad magic bytes)");
  Cursor in(bytes, path);
  in.take(sizeof kMagic);
  if (bytes.size < kHeaderBytes + 8)
    throw FormatError(path, 0, "file is truncated (" + std::to_string(bytes.size) + " bytes, shorter than the header)");
  const auto version = in.get<uint32_t>();
  if (version != kFormatVersion)
    throw FormatError(path, 0,
                      "LSI model format version " + std::to_string(version) +
                          " is not supported (this fastamfm reads version " + std::to_string(kFormatVersion) + ")");
  const auto weighting = in.get<uint32_t>();
  const auto preset = in.get<uint32_t>();
  const auto lowercase = in.get<uint32_t>();
  uint64_t header[9];
  for (auto& v : header) v = in.get<uint64_t>();
  const uint64_t terms = header[0], k = header[1], word_bytes = header[8];

  // The size the header promises, computed without overflow for any header values.
  if (terms == 0 || terms > UINT32_MAX || k == 0 || k > kMaxDims || word_bytes > bytes.size)
    throw FormatError(path, 0,
                      "corrupt header (" + std::to_string(terms) + " terms, " + std::to_string(k) + " dimensions, " +
                          std::to_string(word_bytes) + " word bytes)");
  const uint64_t expected =
      round_up(round_up(kHeaderBytes + 4 * terms + word_bytes, 8) + 8 * terms + 8 * k, 64) + 4 * terms * k + 8;
  if (bytes.size < expected)
    throw FormatError(path, 0,
                      "file is truncated (" + std::to_string(bytes.size) + " bytes, the header promises " +
                          std::to_string(expected) + ")");
  if (bytes.size > expected)
    throw FormatError(path, 0, std::to_string(bytes.size - expected) + " unexpected bytes after the model");
  LsiChecksum sum;
  sum.update(bytes.data, expected - 8);
  uint64_t stored;
  std::memcpy(&stored, bytes.data + expected - 8, 8);
  if (sum.value() != stored)
    throw FormatError(path, 0, "checksum mismatch, the file is corrupt (modified or damaged after it was written)");
  if (weighting > 2 || preset > 1 || lowercase > 1)
    throw FormatError(path, 0, "corrupt header (unknown weighting or tokenizer)");

  std::shared_ptr<LsiModel> model(new LsiModel());
  model->settings_.weighting = static_cast<Weighting>(weighting);
  model->settings_.tokenizer = TokenizerOptions{static_cast<TokenizerPreset>(preset), lowercase == 1};
  model->settings_.documents = header[2];
  model->settings_.seed = header[3];
  model->settings_.oversampling = header[4];
  model->settings_.power_iterations = header[5];
  model->settings_.min_count = header[6];
  model->settings_.max_vocab = header[7];

  const unsigned char* lengths = in.take(4 * terms);
  const unsigned char* text = in.take(word_bytes);
  uint64_t offset = 0;
  for (uint64_t t = 0; t < terms; ++t) {
    uint32_t len;
    std::memcpy(&len, lengths + 4 * t, 4);
    if (len > word_bytes - offset) throw FormatError(path, 0, "corrupt vocabulary (word lengths exceed the text)");
    const std::string_view word(reinterpret_cast<const char*>(text + offset), len);
    if (len == 0 || find_invalid_utf8(word) != SIZE_MAX)
      throw FormatError(path, 0, "corrupt vocabulary (word " + std::to_string(t + 1) + " is empty or not UTF-8)");
    model->vocabulary_.add(word);
    offset += len;
  }
  if (offset != word_bytes || model->vocabulary_.size() != terms)
    throw FormatError(path, 0, "corrupt vocabulary (lengths do not add up, or duplicate words)");
  model->index_ = TermIndex(model->vocabulary_);
  in.align(8);
  model->global_weights_.resize(terms);
  std::memcpy(model->global_weights_.data(), in.take(8 * terms), 8 * terms);
  model->singular_values_.resize(k);
  std::memcpy(model->singular_values_.data(), in.take(8 * k), 8 * k);
  in.align(64);
  model->components_ = reinterpret_cast<const float*>(in.take(4 * terms * k));
  model->file_ = bytes.owner;
  // A NaN here would make every score it touches NaN, silently.
  const auto finite = [](const auto* v, size_t n) {
    for (size_t i = 0; i < n; ++i)
      if (!std::isfinite(v[i])) return false;
    return true;
  };
  if (!finite(model->global_weights_.data(), terms) || !finite(model->singular_values_.data(), k) ||
      !finite(model->components_, terms * k))
    throw FormatError(path, 0, "a weight, singular value or component is not a finite number");
  return model;
}

bool LsiModel::project(const TokenId* ids, size_t n_tokens, size_t dims_used, double* out,
                       std::vector<uint32_t>& scratch) const {
  std::fill(out, out + dims_used, 0.0);
  scratch.clear();
  for (size_t i = 0; i < n_tokens; ++i) {
    const uint32_t t = index_.find(ids[i]);
    if (t != Vocabulary::kNotFound) scratch.push_back(t);
  }
  if (scratch.empty()) return false;
  std::sort(scratch.begin(), scratch.end());
  const size_t k = dims();
  // The rows are scattered over U: ask for all of them before the first is used,
  // so their cache misses overlap instead of queueing one after another.
  for (uint32_t t : scratch)
    for (size_t c = 0; c < dims_used; c += 16) __builtin_prefetch(components_ + static_cast<size_t>(t) * k + c);
  double norm2 = 0.0;
  for (size_t a = 0; a < scratch.size();) {
    size_t b = a + 1;
    while (b < scratch.size() && scratch[b] == scratch[a]) ++b;
    const uint32_t t = scratch[a];
    const double w = local_weight(settings_.weighting, static_cast<uint32_t>(b - a)) * global_weights_[t];
    norm2 += w * w;
    add_scaled_row(out, components_ + static_cast<size_t>(t) * k, w, dims_used);
    a = b;
  }
  if (normalises_documents(settings_.weighting) && norm2 > 0) {
    const double scale = 1.0 / std::sqrt(norm2);
    for (size_t c = 0; c < dims_used; ++c) out[c] *= scale;
  }
  return true;
}

}  // namespace fastamfm
