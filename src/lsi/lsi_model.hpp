// A trained LSI model: vocabulary, per-term global weights, U_k (terms x k,
// float32, no Sigma scaling), singular values and the settings that made it.
//
// File format (little-endian), version 1:
//   "FAMFMLSI" | u32 version | u32 weighting | u32 tokenizer preset | u32 lowercase
//   u64 terms | u64 k | u64 documents | u64 seed | u64 oversampling
//   u64 power_iterations | u64 min_count | u64 max_vocab | u64 word bytes
//   u32 word lengths[terms] | word bytes | zero padding to 8
//   f64 global weights[terms] | f64 singular values[k] | zero padding to 64
//   f32 components[terms][k] | u64 checksum of all preceding bytes
// The components sit 64-byte aligned so a memory-mapped file is used in place.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "text/hashing.hpp"
#include "lsi/term_document.hpp"
#include "text/tokenizer.hpp"
#include "text/vocabulary.hpp"

namespace fastamfm {

struct LsiSettings {
  Weighting weighting = Weighting::Counts;
  TokenizerOptions tokenizer{TokenizerPreset::Amfm, false};
  uint64_t documents = 0;  // sentences the model was trained on
  uint64_t seed = 0;
  uint64_t oversampling = 0;
  uint64_t power_iterations = 0;
  uint64_t min_count = 1;
  uint64_t max_vocab = 0;
};

// Token id -> vocabulary index with open addressing: scoring looks up every token
// of every sentence, and this is several times faster than std::unordered_map.
class TermIndex {
 public:
  explicit TermIndex(const Vocabulary& vocabulary);
  TermIndex() = default;
  uint32_t find(TokenId id) const {
    if (slots_.empty()) return Vocabulary::kNotFound;
    for (size_t i = id & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.index == Vocabulary::kNotFound || s.id == id) return s.index;
    }
  }

 private:
  struct Slot {
    TokenId id = 0;
    uint32_t index = Vocabulary::kNotFound;
  };
  std::vector<Slot> slots_;
  size_t mask_ = 0;
};

class LsiModel {
 public:
  // components: terms x k row-major.
  LsiModel(std::vector<std::string> words, std::vector<double> global_weights, std::vector<float> components,
           std::vector<double> singular_values, LsiSettings settings);
  // Reads a model file; with use_mmap the components stay in the mapped file.
  // Throws FormatError naming the file for a foreign, truncated or corrupt file.
  static std::shared_ptr<LsiModel> load(const std::string& path, bool use_mmap);
  // Writes atomically: readers see the old file or the complete new one.
  void save(const std::string& path) const;

  size_t num_terms() const { return vocabulary_.size(); }
  size_t dims() const { return singular_values_.size(); }
  const Vocabulary& vocabulary() const { return vocabulary_; }
  const std::vector<double>& global_weights() const { return global_weights_; }
  const std::vector<double>& singular_values() const { return singular_values_; }
  const float* components() const { return components_; }
  const LsiSettings& settings() const { return settings_; }
  Tokenizer tokenizer() const { return Tokenizer(settings_.tokenizer); }

  // out[0..dims) = the weighted bag of words of one tokenized sentence times
  // U[:, :dims] (tf-idf bags scaled to unit length first, as in training).
  // Returns false, leaving out all zero, when no token is in the vocabulary.
  // `scratch` is reusable space of the caller.
  bool project(const TokenId* ids, size_t n_tokens, size_t dims, double* out,
               std::vector<uint32_t>& scratch) const;

 private:
  LsiModel() = default;
  void check_consistent() const;

  Vocabulary vocabulary_;
  TermIndex index_;
  std::vector<double> global_weights_;
  std::vector<double> singular_values_;
  LsiSettings settings_;
  std::vector<float> owned_components_;
  std::shared_ptr<const void> file_;  // the mapped or read file the components point into
  const float* components_ = nullptr;
};

}  // namespace fastamfm
