// METEOR 1.5's English resources: function words, WordNet synsets with the
// irregular-form exceptions, and the paraphrase table, held in one flat buffer
// (memory-mapped from the binary cache file, or built in memory from the jar's
// text files). Immutable after construction, so one instance is shared by every
// thread and every call.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/mapped_file.hpp"
#include "meteor/meteor_flat_arrays.hpp"
#include "meteor/meteor_string_index.hpp"

namespace fastamfm {

// A phrase of the paraphrase table found in a line: its trie node, where it
// starts, and its length in words.
struct MeteorPhraseOccurrence {
  uint32_t node, start, length;
};

// The text of the resource files, as the jar ships them.
struct MeteorResourceTexts {
  std::string function_words;  // function/english.words: one word per line
  std::string synsets;         // synonym/english.synsets: word line, then a line of synset ids
  std::string exceptions;      // synonym/english.exceptions: base line, then a line of forms
  std::string paraphrases;     // data/paraphrase-en (ungzipped): probability, phrase, paraphrase lines
  std::string nonbreaking_prefixes;  // nonbreaking/english.prefixes: "Mr" or "No #NUMERIC_ONLY#" lines
  bool has_paraphrases = false;
};

class MeteorResources {
 public:
  // Parses the jar's text files into the flat layout (takes seconds for the
  // paraphrase table; see save/load for the cached form).
  static std::shared_ptr<const MeteorResources> build(const MeteorResourceTexts& texts);
  // Memory-maps a cache file written by save() (or, without use_mmap, copies it into
  // memory). Verifies its size, checksum and every index the lookups follow; throws
  // FormatError for a corrupt file.
  static std::shared_ptr<const MeteorResources> load(const std::string& path, bool use_mmap = true);
  // Writes the flat layout atomically (readers never see a partial file).
  void save(const std::string& path) const;

  ~MeteorResources();
  MeteorResources(const MeteorResources&) = delete;
  MeteorResources& operator=(const MeteorResources&) = delete;

  bool has_paraphrases() const { return has_paraphrases_; }
  size_t num_paraphrases() const { return emit_target_.size(); }
  size_t num_synonym_words() const { return synonym_words_.size(); }

  bool is_function_word(std::string_view word) const { return function_words_.contains(word); }

  // How the normalizer treats a word ending in "." whose part before the dot is `prefix`.
  enum class PrefixKind { kNone, kAny, kNumericOnly };
  PrefixKind nonbreaking_prefix(std::string_view prefix) const {
    if (prefixes_any_.contains(prefix)) return PrefixKind::kAny;
    if (prefixes_numeric_.contains(prefix)) return PrefixKind::kNumericOnly;
    return PrefixKind::kNone;
  }

  // WordNet synsets of `word` united with those of its base form (irregular
  // exceptions first, else the WordNet suffix rules), sorted: the jar's
  // getSynSets(word) + getStemSynSets(word).
  std::vector<uint32_t> synonym_sets(std::string_view word) const;

  // Paraphrase table access: word ids, and the table's phrases in a word-id sequence.
  static constexpr int32_t kUnknownWord = -1;
  int32_t paraphrase_word_id(std::string_view word) const;
  // Appends the occurrence of every phrase of the table (either side of a pair)
  // equal to words[start, start + length), shortest first.
  void find_phrases(const int32_t* words, size_t n, size_t start, std::vector<MeteorPhraseOccurrence>& out) const;
  // The nodes of the paraphrases of the phrase at `node`, in table order.
  FlatArray<uint32_t> paraphrases_of(uint32_t node) const {
    return FlatArray<uint32_t>(emit_target_.data() + emit_begin_[node], emit_begin_[node + 1] - emit_begin_[node]);
  }

 private:
  MeteorResources() = default;
  void attach(const char* data, size_t size, const std::string& where);
  bool base_form_synsets(std::string_view word, std::vector<uint32_t>& out) const;
  void append_synsets(uint32_t word_id, std::vector<uint32_t>& out) const;

  // Owned storage: either an in-memory buffer or a memory map.
  std::string buffer_;   // built here
  MappedFile file_;      // or loaded from a cache file

  bool has_paraphrases_ = false;
  StringIndex function_words_;
  StringIndex prefixes_any_;
  StringIndex prefixes_numeric_;
  StringIndex synonym_words_;
  FlatArray<uint64_t> synset_begin_;
  FlatArray<uint32_t> synset_ids_;
  StringIndex exception_forms_;
  FlatArray<uint64_t> exception_begin_;
  FlatArray<uint32_t> exception_synsets_;
  StringIndex paraphrase_vocab_;
  FlatArray<uint32_t> root_child_;
  FlatArray<uint32_t> child_begin_;
  FlatArray<uint32_t> child_word_;
  FlatArray<uint32_t> child_node_;
  FlatArray<uint32_t> emit_begin_;
  FlatArray<uint32_t> emit_target_;  // the paraphrases' nodes
};

}  // namespace fastamfm
