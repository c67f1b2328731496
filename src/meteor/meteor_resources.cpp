#include "meteor/meteor_resources.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "common/errors.hpp"
#include "io/atomic_file.hpp"
#include "io/checksum.hpp"
#include "io/mapped_file.hpp"

namespace fastamfm {

namespace {

constexpr char kMagic[8] = {'F', 'A', 'M', 'E', 'T', 'E', 'O', 'R'};
// Header: magic | u32 version | u32 has paraphrases | u64 file bytes | u64 checksum
// (io/checksum.hpp, of the whole file with this field read as zero). Version 5
// added the size and the checksum; version 6 made paraphrases trie nodes.
constexpr uint32_t kFormatVersion = 6;
constexpr size_t kSizeAt = 16;
constexpr size_t kChecksumAt = 24;
constexpr size_t kHeaderBytes = 32;

uint64_t cache_checksum(const char* data, size_t size) {
  static const char zeros[8] = {};
  Checksum64Stream sum;
  sum.update(data, kChecksumAt);
  sum.update(zeros, sizeof zeros);
  sum.update(data + kHeaderBytes, size - kHeaderBytes);
  return sum.value();
}

// Splits text into lines the way Java's BufferedReader.readLine does (\n, \r\n or \r).
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t begin = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' || text[i] == '\r') {
      lines.push_back(text.substr(begin, i - begin));
      if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      begin = i + 1;
    }
  }
  if (begin < text.size()) lines.push_back(text.substr(begin));
  return lines;
}

// java.util.StringTokenizer with its default delimiters.
template <class Fn>
void for_each_token(std::string_view line, Fn fn) {
  const auto is_delim = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; };
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_delim(line[i])) ++i;
    size_t j = i;
    while (j < line.size() && !is_delim(line[j])) ++j;
    if (j > i) fn(line.substr(i, j - i));
    i = j;
  }
}

uint32_t parse_synset_id(std::string_view token, const char* file, size_t line) {
  uint64_t v = 0;
  if (token.empty() || token.size() > 10) v = UINT64_MAX;
  for (char c : token) {
    if (c < '0' || c > '9') {
      v = UINT64_MAX;
      break;
    }
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v > INT32_MAX)
    throw FormatError(std::string(file) + ":" + std::to_string(line) + ": synset id '" + std::string(token) +
                      "' is not a non-negative integer");
  return static_cast<uint32_t>(v);
}

struct SynonymTables {
  StringIndexBuilder words;
  std::vector<std::vector<uint32_t>> sets;
};

SynonymTables parse_synsets(std::string_view text) {
  SynonymTables t;
  const auto lines = split_lines(text);
  if (lines.size() % 2 != 0)
    throw FormatError("english.synsets:" + std::to_string(lines.size()) + ": a word without its synset line");
  for (size_t i = 0; i < lines.size(); i += 2) {
    const uint32_t id = t.words.intern(lines[i]);
    if (id == t.sets.size()) t.sets.emplace_back();
    // A repeated word replaces its earlier synsets, as the jar's Hashtable.put does.
    std::vector<uint32_t>& set = t.sets[id];
    set.clear();
    for_each_token(lines[i + 1], [&](std::string_view tok) { set.push_back(parse_synset_id(tok, "english.synsets", i + 2)); });
    std::sort(set.begin(), set.end());
    set.erase(std::unique(set.begin(), set.end()), set.end());
  }
  return t;
}

// Nonbreaking prefixes by kind; a prefix listed twice keeps its last kind, as the
// jar's Hashtable does. Comment lines start with '#'.
void write_prefixes(std::string_view text, FlatArrayWriter& w) {
  StringIndexBuilder all;
  std::vector<bool> numeric_only;
  for (std::string_view line : split_lines(text)) {
    std::vector<std::string_view> tokens;
    for_each_token(line, [&](std::string_view t) { tokens.push_back(t); });
    if (tokens.empty() || tokens[0][0] == '#') continue;
    const uint32_t id = all.intern(tokens[0]);
    if (id == numeric_only.size()) numeric_only.push_back(false);
    numeric_only[id] = tokens.size() > 1 && tokens[1] == "#NUMERIC_ONLY#";
  }
  StringIndexBuilder any, numeric;
  for (uint32_t id = 0; id < numeric_only.size(); ++id) (numeric_only[id] ? numeric : any).intern(all.at(id));
  any.write(w);
  numeric.write(w);
}

// Irregular form -> union of the synsets of its base forms.
void write_exceptions(std::string_view text, const SynonymTables& syn, FlatArrayWriter& w) {
  const auto lines = split_lines(text);
  if (lines.size() % 2 != 0)
    throw FormatError("english.exceptions:" + std::to_string(lines.size()) + ": a base form without its forms line");
  StringIndexBuilder forms;
  std::vector<std::vector<uint32_t>> sets;
  for (size_t i = 0; i < lines.size(); i += 2) {
    const uint32_t base = syn.words.find(lines[i]);
    for_each_token(lines[i + 1], [&](std::string_view form) {
      const uint32_t id = forms.intern(form);
      if (id == sets.size()) sets.emplace_back();
      if (base != StringIndex::kMissing) sets[id].insert(sets[id].end(), syn.sets[base].begin(), syn.sets[base].end());
    });
  }
  std::vector<uint64_t> begin{0};
  std::vector<uint32_t> ids;
  for (auto& s : sets) {
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    ids.insert(ids.end(), s.begin(), s.end());
    begin.push_back(ids.size());
  }
  forms.write(w);
  w.add(begin);
  w.add(ids);
}

// The paraphrase table as a trie over the word ids of every phrase in it, either
// side of a pair (children sorted by word id for binary search). A node emits the
// paraphrases of its phrase, in table order, as the nodes of those paraphrases: a
// paraphrase occurs in a line exactly where the line's walk reaches its node, so
// matching compares node ids and never reads the paraphrase's words.
void write_paraphrases(std::string_view text, FlatArrayWriter& w) {
  StringIndexBuilder vocab;
  // Phrase 2p is pair p's phrase, 2p + 1 its paraphrase.
  std::vector<uint32_t> begin{0}, words;
  const auto lines = split_lines(text);
  if (lines.size() % 3 != 0)
    throw FormatError("paraphrase-en:" + std::to_string(lines.size()) + ": the file does not hold whole (probability, phrase, paraphrase) triples");
  for (size_t i = 0; i < lines.size(); i += 3) {
    for (size_t side = 1; side <= 2; ++side) {
      for_each_token(lines[i + side], [&](std::string_view tok) { words.push_back(vocab.intern(tok)); });
      if (words.size() == begin.back())
        throw FormatError("paraphrase-en:" + std::to_string(i + side + 1) + ": empty phrase");
      begin.push_back(static_cast<uint32_t>(words.size()));
    }
  }
  const size_t n_phrases = begin.size() - 1, n_pairs = n_phrases / 2;

  // Sorting the phrases lays the trie out in preorder and gives every node's
  // children in increasing word order.
  std::vector<uint32_t> order(n_phrases);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return std::lexicographical_compare(words.begin() + begin[a], words.begin() + begin[a + 1],
                                        words.begin() + begin[b], words.begin() + begin[b + 1]);
  });
  struct Edge {
    uint32_t parent, word, child;
  };
  std::vector<Edge> edges;
  std::vector<uint32_t> node_of(n_phrases);
  std::vector<uint32_t> path{0};  // node ids along the previous phrase
  uint32_t n_nodes = 1;
  const uint32_t* prev = nullptr;
  size_t prev_len = 0;
  for (uint32_t phrase : order) {
    const uint32_t* ws = words.data() + begin[phrase];
    const size_t len = begin[phrase + 1] - begin[phrase];
    size_t common = 0;
    while (prev != nullptr && common < len && common < prev_len && ws[common] == prev[common]) ++common;
    path.resize(common + 1);
    for (size_t d = common; d < len; ++d) {
      edges.push_back({path.back(), ws[d], n_nodes});
      path.push_back(n_nodes++);
    }
    node_of[phrase] = path[len];
    prev = ws;
    prev_len = len;
  }
  // CSR by parent: a stable counting sort keeps children in word order.
  std::vector<uint32_t> child_begin(n_nodes + 1, 0), child_word(edges.size()), child_node(edges.size());
  for (const Edge& e : edges) ++child_begin[e.parent + 1];
  std::partial_sum(child_begin.begin(), child_begin.end(), child_begin.begin());
  {
    std::vector<uint32_t> fill(child_begin.begin(), child_begin.end() - 1);
    for (const Edge& e : edges) {
      child_word[fill[e.parent]] = e.word;
      child_node[fill[e.parent]++] = e.child;
    }
  }
  // CSR by phrase node, pairs in table order.
  std::vector<uint32_t> emit_begin(n_nodes + 1, 0), emit_target(n_pairs);
  for (size_t p = 0; p < n_pairs; ++p) ++emit_begin[node_of[2 * p] + 1];
  std::partial_sum(emit_begin.begin(), emit_begin.end(), emit_begin.begin());
  {
    std::vector<uint32_t> fill(emit_begin.begin(), emit_begin.end() - 1);
    for (size_t p = 0; p < n_pairs; ++p) emit_target[fill[node_of[2 * p]]++] = node_of[2 * p + 1];
  }
  // The root's children by word id (0: none), so that the first step of every
  // lookup, where the fan-out is largest, is one array read.
  std::vector<uint32_t> root_child(vocab.size(), 0);
  for (uint32_t e = child_begin[0]; e < child_begin[1]; ++e) root_child[child_word[e]] = child_node[e];
  vocab.write(w);
  w.add(root_child);
  w.add(child_begin);
  w.add(child_word);
  w.add(child_node);
  w.add(emit_begin);
  w.add(emit_target);
}

}  // namespace

std::shared_ptr<const MeteorResources> MeteorResources::build(const MeteorResourceTexts& texts) {
  FlatArrayWriter w;
  char header[kHeaderBytes] = {};
  std::memcpy(header, kMagic, 8);
  const uint32_t flags[2] = {kFormatVersion, texts.has_paraphrases ? 1u : 0u};
  std::memcpy(header + 8, flags, 8);
  w.bytes().append(header, kHeaderBytes);

  StringIndexBuilder function_words;
  for (std::string_view line : split_lines(texts.function_words)) function_words.intern(line);
  function_words.write(w);
  write_prefixes(texts.nonbreaking_prefixes, w);

  const SynonymTables syn = parse_synsets(texts.synsets);
  syn.words.write(w);
  std::vector<uint64_t> begin{0};
  std::vector<uint32_t> ids;
  for (const auto& s : syn.sets) {
    ids.insert(ids.end(), s.begin(), s.end());
    begin.push_back(ids.size());
  }
  w.add(begin);
  w.add(ids);
  write_exceptions(texts.exceptions, syn, w);
  write_paraphrases(texts.has_paraphrases ? std::string_view(texts.paraphrases) : std::string_view(), w);
  std::string& bytes = w.bytes();
  const uint64_t size = bytes.size();
  std::memcpy(bytes.data() + kSizeAt, &size, sizeof size);
  const uint64_t sum = cache_checksum(bytes.data(), bytes.size());
  std::memcpy(bytes.data() + kChecksumAt, &sum, sizeof sum);

  std::shared_ptr<MeteorResources> r(new MeteorResources());
  r->buffer_.swap(w.bytes());
  r->attach(r->buffer_.data(), r->buffer_.size(), "<built METEOR resources>");
  return r;
}

std::shared_ptr<const MeteorResources> MeteorResources::load(const std::string& path, bool use_mmap) {
  // Mapped, or a private copy that later changes to the file cannot reach.
  MappedFile file(path, use_mmap ? MappedFile::Access::kPrivate : MappedFile::Access::kCopy);
  if (file.size() < kHeaderBytes)
    throw FormatError(path, 0, "byte 0: truncated (a corrupt METEOR resource cache; delete it to rebuild)");
  std::shared_ptr<MeteorResources> r(new MeteorResources());
  r->file_ = std::move(file);
  r->attach(reinterpret_cast<const char*>(r->file_.data()), r->file_.size(), path);
  return r;
}

MeteorResources::~MeteorResources() = default;

void MeteorResources::save(const std::string& path) const {
  AtomicFile file(path);
  if (file_.data() != nullptr) file.write(file_.data(), file_.size());
  else file.write(buffer_);
  file.commit();
}

void MeteorResources::attach(const char* data, size_t size, const std::string& where) {
  if (size < kHeaderBytes || std::memcmp(data, kMagic, 8) != 0)
    throw FormatError(where, 0, "byte 0: not a fastamfm METEOR resource cache");
  uint32_t flags[2];
  std::memcpy(flags, data + 8, 8);
  if (flags[0] != kFormatVersion)
    throw FormatError(where, 0,
                      "byte 8: cache format version " + std::to_string(flags[0]) + ", expected " +
                          std::to_string(kFormatVersion) + " (delete it to rebuild)");
  uint64_t declared_size, stored_sum;
  std::memcpy(&declared_size, data + kSizeAt, 8);
  std::memcpy(&stored_sum, data + kChecksumAt, 8);
  if (declared_size != size)
    throw FormatError(where, 0,
                      "the header says " + std::to_string(declared_size) + " bytes but the file has " +
                          std::to_string(size) + " (truncated? delete it to rebuild)");
  if (cache_checksum(data, size) != stored_sum)
    throw FormatError(where, 0, "checksum mismatch: the METEOR resource cache is damaged (delete it to rebuild)");
  if (flags[1] > 1) throw FormatError(where, 0, "byte 12: corrupt paraphrase flag");
  has_paraphrases_ = flags[1] != 0;
  FlatArrayReader r(data + kHeaderBytes, size - kHeaderBytes, where);
  function_words_ = StringIndex(r);
  prefixes_any_ = StringIndex(r);
  prefixes_numeric_ = StringIndex(r);
  synonym_words_ = StringIndex(r);
  synset_begin_ = r.next<uint64_t>();
  synset_ids_ = r.next<uint32_t>();
  exception_forms_ = StringIndex(r);
  exception_begin_ = r.next<uint64_t>();
  exception_synsets_ = r.next<uint32_t>();
  paraphrase_vocab_ = StringIndex(r);
  root_child_ = r.next<uint32_t>();
  child_begin_ = r.next<uint32_t>();
  child_word_ = r.next<uint32_t>();
  child_node_ = r.next<uint32_t>();
  emit_begin_ = r.next<uint32_t>();
  emit_target_ = r.next<uint32_t>();

  // Every index the lookups follow is checked once here, so lookups need no checks.
  const auto check_csr = [&](const auto& begin, size_t rows, size_t targets, const char* what) {
    if (begin.size() != rows + 1 || begin[0] != 0) r.fail(what);
    for (size_t i = 1; i < begin.size(); ++i)
      if (begin[i] < begin[i - 1]) r.fail(what);
    if (begin[rows] != targets) r.fail(what);
  };
  check_csr(synset_begin_, synonym_words_.size(), synset_ids_.size(), "synset table is inconsistent");
  check_csr(exception_begin_, exception_forms_.size(), exception_synsets_.size(), "exception table is inconsistent");
  const size_t n_nodes = child_begin_.size() == 0 ? 0 : child_begin_.size() - 1;
  check_csr(child_begin_, n_nodes, child_word_.size(), "paraphrase trie is inconsistent");
  check_csr(emit_begin_, n_nodes, emit_target_.size(), "paraphrase trie is inconsistent");
  if (child_node_.size() != child_word_.size() || root_child_.size() != paraphrase_vocab_.size())
    r.fail("paraphrase trie is inconsistent");
  for (uint32_t c : root_child_)
    if (c >= n_nodes && c != 0) r.fail("paraphrase trie node out of range");
  for (uint32_t c : child_node_)
    if (c >= n_nodes) r.fail("paraphrase trie node out of range");
  for (uint32_t t : emit_target_)
    if (t == 0 || t >= n_nodes) r.fail("paraphrase trie node out of range");
  if (r.position() != size - kHeaderBytes) r.fail("unexpected bytes after the last table");
}

void MeteorResources::append_synsets(uint32_t word_id, std::vector<uint32_t>& out) const {
  out.insert(out.end(), synset_ids_.begin() + synset_begin_[word_id], synset_ids_.begin() + synset_begin_[word_id + 1]);
}

// WordNet's morphological rules (the suffix/ending table of WordNet 3's morph.c,
// as METEOR applies it): the first rule whose result is a WordNet word wins.
bool MeteorResources::base_form_synsets(std::string_view word, std::vector<uint32_t>& out) const {
  const uint32_t exc = exception_forms_.find(word);
  if (exc != StringIndex::kMissing) {
    out.insert(out.end(), exception_synsets_.begin() + exception_begin_[exc],
               exception_synsets_.begin() + exception_begin_[exc + 1]);
    return true;
  }
  size_t length = 0;  // in UTF-16 units, as Java counts
  for (unsigned char c : word) length += (c & 0xC0) != 0x80 ? ((c >= 0xF0) ? 2 : 1) : 0;
  if ((word.size() >= 2 && word.substr(word.size() - 2) == "ss") || length <= 2) {
    const uint32_t id = synonym_words_.find(word);
    if (id != StringIndex::kMissing) append_synsets(id, out);
    return true;
  }
  static constexpr std::string_view kSuffix[20] = {"s",  "ses", "xes", "zes", "ches", "shes", "men", "ies", "s",  "ies",
                                                   "es", "es",  "ed",  "ed",  "ing",  "ing",  "er",  "est", "er", "est"};
  static constexpr std::string_view kEnding[20] = {"", "s", "x", "z", "ch", "sh", "man", "y", "", "y",
                                                   "e", "",  "e", "",  "e",  "",   "",    "",  "e", "e"};
  std::string candidate;
  for (size_t i = 0; i < 20; ++i) {
    const std::string_view suffix = kSuffix[i];
    if (word.size() < suffix.size() || word.substr(word.size() - suffix.size()) != suffix) continue;
    candidate.assign(word.substr(0, word.size() - suffix.size()));
    candidate.append(kEnding[i]);
    const uint32_t id = synonym_words_.find(candidate);
    if (id != StringIndex::kMissing) {
      append_synsets(id, out);
      return true;
    }
  }
  return false;
}

std::vector<uint32_t> MeteorResources::synonym_sets(std::string_view word) const {
  std::vector<uint32_t> out;
  const uint32_t id = synonym_words_.find(word);
  if (id != StringIndex::kMissing) append_synsets(id, out);
  base_form_synsets(word, out);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

int32_t MeteorResources::paraphrase_word_id(std::string_view word) const {
  const uint32_t id = paraphrase_vocab_.find(word);
  return id == StringIndex::kMissing ? kUnknownWord : static_cast<int32_t>(id);
}

void MeteorResources::find_phrases(const int32_t* words, size_t n, size_t start,
                                   std::vector<MeteorPhraseOccurrence>& out) const {
  uint32_t node = 0;
  for (size_t i = start; i < n; ++i) {
    if (words[i] < 0) return;
    const auto word = static_cast<uint32_t>(words[i]);
    if (i == start) {
      node = root_child_[word];
      if (node == 0) return;
    } else {
      const uint32_t* first = child_word_.data() + child_begin_[node];
      const uint32_t* last = child_word_.data() + child_begin_[node + 1];
      const uint32_t* it = std::lower_bound(first, last, word);
      if (it == last || *it != word) return;
      node = child_node_[static_cast<size_t>(it - child_word_.data())];
    }
    out.push_back({node, static_cast<uint32_t>(start), static_cast<uint32_t>(i - start + 1)});
  }
}

}  // namespace fastamfm
