#include "lsi/term_document.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

#include "common/errors.hpp"
#include "text/hashing.hpp"
#include "text/tokenized_batch.hpp"

namespace fastamfm {

Weighting parse_weighting(const std::string& name) {
  if (name == "counts") return Weighting::Counts;
  if (name == "tfidf") return Weighting::Tfidf;
  if (name == "log-entropy") return Weighting::LogEntropy;
  throw InputError("unknown weighting '" + name + "' (expected 'counts', 'tfidf' or 'log-entropy')");
}

const char* weighting_name(Weighting weighting) {
  switch (weighting) {
    case Weighting::Tfidf: return "tfidf";
    case Weighting::LogEntropy: return "log-entropy";
    default: return "counts";
  }
}

double local_weight(Weighting weighting, uint32_t count) {
  return weighting == Weighting::LogEntropy ? std::log1p(static_cast<double>(count)) : static_cast<double>(count);
}

// --- chunk files -------------------------------------------------------------
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

FilePtr open_file(const std::string& path, const char* mode) {
  FilePtr f(std::fopen(path.c_str(), mode));
  if (!f) throw FileError(path, "open", errno);
  return f;
}

template <class T>
void write_vector(std::FILE* f, const std::vector<T>& v, const std::string& path) {
  const uint64_t n = v.size();
  if (std::fwrite(&n, sizeof n, 1, f) != 1 || (n && std::fwrite(v.data(), sizeof(T), n, f) != n))
    throw std::runtime_error(path + ": write failed (disk full?): " + std::strerror(errno));
}

template <class T>
void read_vector(std::FILE* f, std::vector<T>& v, const std::string& path) {
  uint64_t n = 0;
  if (std::fread(&n, sizeof n, 1, f) != 1) throw std::runtime_error(path + ": spill file is truncated");
  v.resize(n);
  if (n && std::fread(v.data(), sizeof(T), n, f) != n) throw std::runtime_error(path + ": spill file is truncated");
}

std::string spill_path(const std::string& dir, const char* kind, size_t index) {
  return dir + "/" + kind + "_" + std::to_string(index) + ".bin";
}

}  // namespace

// --- TermDocumentMatrix --------------------------------------------------------
TermDocumentMatrix::TermDocumentMatrix(size_t num_terms, std::string spill_dir)
    : num_terms_(num_terms), spill_dir_(std::move(spill_dir)), term_nnz_(num_terms, 0) {}

TermDocumentMatrix::~TermDocumentMatrix() {
  for (const auto& f : files_) std::remove(f.c_str());
}

void TermDocumentMatrix::append(DocChunk chunk) {
  if (chunk.first_doc != num_docs_) throw std::logic_error("TermDocumentMatrix: chunks out of order");
  for (uint32_t t : chunk.terms) ++term_nnz_[t];
  num_docs_ += chunk.num_docs();
  nnz_ += chunk.nnz();
  chunk_docs_.push_back(chunk.num_docs());
  if (spill_dir_.empty()) {
    in_memory_.push_back(std::make_shared<const DocChunk>(std::move(chunk)));
    return;
  }
  const std::string path = spill_path(spill_dir_, "chunk", files_.size());
  FilePtr f = open_file(path, "wb");
  files_.push_back(path);
  std::fwrite(&chunk.first_doc, sizeof chunk.first_doc, 1, f.get());
  write_vector(f.get(), chunk.offsets, path);
  write_vector(f.get(), chunk.terms, path);
  write_vector(f.get(), chunk.values, path);
  if (std::fclose(f.release()) != 0) throw std::runtime_error(path + ": write failed: " + std::strerror(errno));
}

std::shared_ptr<const DocChunk> TermDocumentMatrix::chunk(size_t i) const {
  if (spill_dir_.empty()) return in_memory_.at(i);
  const std::string& path = files_.at(i);
  FilePtr f = open_file(path, "rb");
  auto c = std::make_shared<DocChunk>();
  if (std::fread(&c->first_doc, sizeof c->first_doc, 1, f.get()) != 1)
    throw std::runtime_error(path + ": spill file is truncated");
  read_vector(f.get(), c->offsets, path);
  read_vector(f.get(), c->terms, path);
  read_vector(f.get(), c->values, path);
  return c;
}

// --- TermDocumentBuilder -------------------------------------------------------
TermDocumentBuilder::TermDocumentBuilder(Tokenizer tokenizer, size_t chunk_bytes, std::string spill_dir)
    : tokenizer_(tokenizer), chunk_bytes_(std::max<size_t>(chunk_bytes, 4096)), spill_dir_(std::move(spill_dir)) {}

TermDocumentBuilder::~TermDocumentBuilder() {
  for (const auto& f : raw_files_) std::remove(f.c_str());
}

// --- counting documents --------------------------------------------------------
void CountedDocuments::validate() const {
  if (offsets.empty() || offsets.front() != 0) throw InputError("counted documents: offsets must start at 0");
  if (offsets.back() != ids.size() || ids.size() != counts.size())
    throw InputError("counted documents: offsets, ids and counts disagree in size");
  if (type_ids.size() != type_words.size()) throw InputError("counted documents: type ids and words disagree in size");
  // Every offset checked before any is followed: only the last is known to be in range
  // (a large one in the middle once read far past the ids; found by the fuzzer).
  for (size_t d = 0; d + 1 < offsets.size(); ++d)
    if (offsets[d + 1] < offsets[d]) throw InputError("counted documents: offsets decrease at document " + std::to_string(d));
  for (size_t d = 0; d + 1 < offsets.size(); ++d) {
    for (uint64_t e = offsets[d] + 1; e < offsets[d + 1]; ++e)
      if (ids[e] <= ids[e - 1]) throw InputError("counted documents: ids not ascending in document " + std::to_string(d));
  }
  for (size_t t = 1; t < type_ids.size(); ++t)
    if (type_ids[t] <= type_ids[t - 1]) throw InputError("counted documents: type ids not ascending");
  // A token's id is the hash of its text: a table pairing them otherwise would give the
  // builder two words for one id, or one word twice in the vocabulary.
  for (size_t t = 0; t < type_ids.size(); ++t)
    if (hash_token(type_words[t]) != type_ids[t])
      throw InputError("counted documents: type id " + std::to_string(t) + " is not the hash of its word");
  for (size_t e = 0; e < ids.size(); ++e) {
    if (counts[e] == 0) throw InputError("counted documents: a count is 0");
    if (!std::binary_search(type_ids.begin(), type_ids.end(), ids[e]))
      throw InputError("counted documents: a token id has no word in the type table");
  }
}

namespace {

// One token of one document: its id, its count in the document and the flat index of the
// document's first occurrence of it (to recover the text).
struct RowEntry {
  TokenId id;
  uint32_t count;
  uint64_t flat;
};

// Per document its distinct token ids (ascending) with counts, built in fixed parts on
// `workers` threads: parts[p] holds the entries of documents p*kPart.., doc_sizes[p] how
// many each has. The part of building that needs no corpus-wide state.
struct DocumentRows {
  static constexpr size_t kPart = 4096;
  std::vector<std::vector<RowEntry>> parts;
  std::vector<std::vector<uint32_t>> doc_sizes;

  // Calls entry(const RowEntry&) for every entry and end() after each document, in document order.
  template <class Entry, class End>
  void for_each(const Entry& entry, const End& end) const {
    for (size_t p = 0; p < parts.size(); ++p) {
      size_t e = 0;
      for (uint32_t size : doc_sizes[p]) {
        for (uint32_t k = 0; k < size; ++k) entry(parts[p][e++]);
        end();
      }
    }
  }
};

DocumentRows count_rows(const TokenizedBatch& tokens, int workers, const InterruptCheck& interrupted) {
  const size_t n = tokens.size();
  const size_t parts = part_count(n, DocumentRows::kPart);
  DocumentRows rows;
  rows.parts.resize(parts);
  rows.doc_sizes.resize(parts);
  parallel_parts(
      parts, workers,
      [&](size_t p) {
        const size_t begin = p * DocumentRows::kPart, end = std::min(n, begin + DocumentRows::kPart);
        std::vector<std::pair<TokenId, uint64_t>> ids;
        for (size_t i = begin; i < end; ++i) {
          ids.clear();
          const TokenId* doc = tokens.ids(i);
          for (size_t j = 0; j < tokens.num_tokens(i); ++j) ids.emplace_back(doc[j], tokens.first_token(i) + j);
          std::sort(ids.begin(), ids.end());
          const size_t before = rows.parts[p].size();
          for (size_t a = 0; a < ids.size();) {
            size_t b = a + 1;
            while (b < ids.size() && ids[b].first == ids[a].first) ++b;
            rows.parts[p].push_back({ids[a].first, static_cast<uint32_t>(b - a), ids[a].second});
            a = b;
          }
          rows.doc_sizes[p].push_back(static_cast<uint32_t>(rows.parts[p].size() - before));
        }
      },
      interrupted);
  return rows;
}

}  // namespace

CountedDocuments count_documents(const TextBatch& texts, const Tokenizer& tokenizer, int workers,
                                 const InterruptCheck& interrupted) {
  const TokenizedBatch tokens = tokenize_batch(texts, tokenizer, workers, interrupted);
  const DocumentRows rows = count_rows(tokens, workers, interrupted);
  CountedDocuments out;
  out.offsets.reserve(tokens.size() + 1);
  // The text of each distinct id comes from its first occurrence in the batch.
  std::unordered_map<TokenId, uint64_t> first;
  rows.for_each(
      [&](const RowEntry& entry) {
        out.ids.push_back(entry.id);
        out.counts.push_back(entry.count);
        first.emplace(entry.id, entry.flat);
      },
      [&] { out.offsets.push_back(out.ids.size()); });
  std::vector<std::pair<TokenId, uint64_t>> types(first.begin(), first.end());
  std::sort(types.begin(), types.end());
  out.type_ids.reserve(types.size());
  out.type_words.reserve(types.size());
  for (const auto& [id, flat] : types) {
    out.type_ids.push_back(id);
    out.type_words.emplace_back(tokens.token_at(flat));
  }
  return out;
}

// --- TermDocumentBuilder (continued) ------------------------------------------------
// Statistics and chunk rows are added in document order, so they never depend on threads
// or on where the documents were counted. word_of() is asked only for a token not seen before.
template <class WordOf>
void TermDocumentBuilder::add_entry(TokenId id, uint32_t count, const WordOf& word_of) {
  TermStats& s = stats_[id];
  if (s.frequency == 0) s.word = word_of();
  s.frequency += count;
  s.documents += 1;
  s.count_log_count += count * std::log(static_cast<double>(count));
  current_.ids.push_back(id);
  current_.counts.push_back(count);
}

void TermDocumentBuilder::end_document() {
  current_.offsets.push_back(current_.ids.size());
  ++num_docs_;
  if (current_.bytes() >= chunk_bytes_) flush_raw();
}

void TermDocumentBuilder::add(const TextBatch& texts, int workers, const InterruptCheck& interrupted) {
  if (finished_) throw std::logic_error("TermDocumentBuilder: add() after finish()");
  const TokenizedBatch tokens = tokenize_batch(texts, tokenizer_, workers, interrupted);
  count_rows(tokens, workers, interrupted)
      .for_each(
          [&](const RowEntry& entry) {
            add_entry(entry.id, entry.count, [&] { return std::string(tokens.token_at(entry.flat)); });
          },
          [&] { end_document(); });
}

void TermDocumentBuilder::add_counted(const CountedDocuments& documents) {
  if (finished_) throw std::logic_error("TermDocumentBuilder: add() after finish()");
  for (size_t d = 0; d < documents.num_docs(); ++d) {
    for (uint64_t e = documents.offsets[d]; e < documents.offsets[d + 1]; ++e) {
      const TokenId id = documents.ids[e];
      add_entry(id, documents.counts[e], [&] {
        const auto type = std::lower_bound(documents.type_ids.begin(), documents.type_ids.end(), id);
        if (type == documents.type_ids.end() || *type != id)
          throw InputError("counted documents: a token id has no word in the type table");
        return documents.type_words[static_cast<size_t>(type - documents.type_ids.begin())];
      });
    }
    end_document();
  }
}

void TermDocumentBuilder::flush_raw() {
  if (current_.offsets.size() == 1) return;
  RawChunk next;
  next.first_doc = num_docs_;
  std::swap(next, current_);
  if (spill_dir_.empty()) {
    raw_in_memory_.push_back(std::move(next));
    return;
  }
  const std::string path = spill_path(spill_dir_, "raw", raw_files_.size());
  FilePtr f = open_file(path, "wb");
  raw_files_.push_back(path);
  std::fwrite(&next.first_doc, sizeof next.first_doc, 1, f.get());
  write_vector(f.get(), next.offsets, path);
  write_vector(f.get(), next.ids, path);
  write_vector(f.get(), next.counts, path);
  if (std::fclose(f.release()) != 0) throw std::runtime_error(path + ": write failed: " + std::strerror(errno));
}

TermDocumentBuilder::RawChunk TermDocumentBuilder::load_raw(size_t i) {
  if (spill_dir_.empty()) return std::move(raw_in_memory_[i]);
  const std::string& path = raw_files_[i];
  RawChunk c;
  {
    FilePtr f = open_file(path, "rb");
    if (std::fread(&c.first_doc, sizeof c.first_doc, 1, f.get()) != 1)
      throw std::runtime_error(path + ": spill file is truncated");
    read_vector(f.get(), c.offsets, path);
    read_vector(f.get(), c.ids, path);
    read_vector(f.get(), c.counts, path);
  }
  std::remove(path.c_str());
  return c;
}

namespace {

std::vector<const TermStats*> choose_terms(const std::unordered_map<TokenId, TermStats>& stats,
                                           const VocabularyOptions& options, uint64_t num_docs) {
  if (stats.empty())
    throw InputError("LSI training: the corpus has no words (all " + std::to_string(num_docs) +
                     " sentences are empty after tokenization)");
  std::vector<const TermStats*> kept;
  for (const auto& [id, s] : stats)
    if (s.frequency >= options.min_count) kept.push_back(&s);
  if (kept.empty())
    throw InputError("LSI training: no word occurs at least min_count=" + std::to_string(options.min_count) +
                     " times in the " + std::to_string(num_docs) + " sentences (" + std::to_string(stats.size()) +
                     " distinct words); lower min_count");
  if (options.max_vocab > 0 && kept.size() > options.max_vocab) {
    // Most frequent first; equal counts by word so the choice is reproducible.
    std::nth_element(kept.begin(), kept.begin() + static_cast<ptrdiff_t>(options.max_vocab), kept.end(),
                     [](const TermStats* a, const TermStats* b) {
                       return a->frequency != b->frequency ? a->frequency > b->frequency : a->word < b->word;
                     });
    kept.resize(options.max_vocab);
  }
  std::sort(kept.begin(), kept.end(), [](const TermStats* a, const TermStats* b) { return a->word < b->word; });
  return kept;
}

double global_weight(Weighting weighting, const TermStats& s, uint64_t num_docs) {
  const double n = static_cast<double>(num_docs);
  switch (weighting) {
    case Weighting::Tfidf:
      return std::log((1.0 + n) / (1.0 + static_cast<double>(s.documents))) + 1.0;
    case Weighting::LogEntropy: {
      if (num_docs < 2) return 1.0;
      const double gf = static_cast<double>(s.frequency);
      const double sum_p_log_p = s.count_log_count / gf - std::log(gf);
      return 1.0 + sum_p_log_p / std::log(n);
    }
    default:
      return 1.0;
  }
}

}  // namespace

std::unique_ptr<TermDocumentMatrix> TermDocumentBuilder::finish(const VocabularyOptions& options, Weighting weighting,
                                                                TermVocabulary& vocabulary, int workers,
                                                                const InterruptCheck& interrupted) {
  if (finished_) throw std::logic_error("TermDocumentBuilder: finish() called twice");
  if (num_docs_ == 0) throw InputError("LSI training: the corpus is empty (no sentences)");
  finished_ = true;
  flush_raw();

  const std::vector<const TermStats*> kept = choose_terms(stats_, options, num_docs_);
  std::unordered_map<TokenId, uint32_t> index;
  index.reserve(kept.size() * 2);
  vocabulary.words.clear();
  vocabulary.global_weights.clear();
  for (const TermStats* s : kept) {
    index.emplace(hash_token(s->word), static_cast<uint32_t>(vocabulary.words.size()));
    vocabulary.words.push_back(s->word);
    vocabulary.global_weights.push_back(global_weight(weighting, *s, num_docs_));
  }
  stats_ = {};

  auto matrix = std::make_unique<TermDocumentMatrix>(vocabulary.words.size(), spill_dir_);
  const size_t raw_chunks = spill_dir_.empty() ? raw_in_memory_.size() : raw_files_.size();
  for (size_t c = 0; c < raw_chunks; ++c) {
    RawChunk raw = load_raw(c);
    const size_t docs = raw.offsets.size() - 1;
    DocChunk out;
    out.first_doc = raw.first_doc;
    out.offsets.assign(docs + 1, 0);
    // Pass 1: terms kept per document; pass 2: fill rows at their final place.
    std::vector<uint32_t> kept_index(raw.ids.size());
    parallel_for(
        docs, workers,
        [&](size_t begin, size_t end) {
          for (size_t d = begin; d < end; ++d) {
            uint64_t count = 0;
            for (uint64_t e = raw.offsets[d]; e < raw.offsets[d + 1]; ++e) {
              auto it = index.find(raw.ids[e]);
              kept_index[e] = it == index.end() ? UINT32_MAX : it->second;
              count += it != index.end();
            }
            out.offsets[d + 1] = count;
          }
        },
        interrupted, 256);
    for (size_t d = 0; d < docs; ++d) out.offsets[d + 1] += out.offsets[d];
    out.terms.resize(out.offsets[docs]);
    out.values.resize(out.offsets[docs]);
    parallel_for(
        docs, workers,
        [&](size_t begin, size_t end) {
          std::vector<std::pair<uint32_t, double>> row;
          for (size_t d = begin; d < end; ++d) {
            row.clear();
            for (uint64_t e = raw.offsets[d]; e < raw.offsets[d + 1]; ++e) {
              const uint32_t t = kept_index[e];
              if (t != UINT32_MAX)
                row.emplace_back(t, local_weight(weighting, raw.counts[e]) * vocabulary.global_weights[t]);
            }
            std::sort(row.begin(), row.end());
            double scale = 1.0;
            if (normalises_documents(weighting)) {
              double norm2 = 0.0;
              for (const auto& [t, v] : row) norm2 += v * v;
              if (norm2 > 0) scale = 1.0 / std::sqrt(norm2);
            }
            uint64_t o = out.offsets[d];
            for (const auto& [t, v] : row) {
              out.terms[o] = t;
              out.values[o] = static_cast<float>(v * scale);
              ++o;
            }
          }
        },
        interrupted, 256);
    raw = RawChunk{};
    matrix->append(std::move(out));
  }
  raw_in_memory_.clear();
  raw_files_.clear();
  if (matrix->nnz() == 0)
    throw InputError("LSI training: no sentence contains a vocabulary word");
  return matrix;
}

std::unique_ptr<TermDocumentMatrix> matrix_from_csr(size_t num_docs, size_t num_terms, const int64_t* indptr,
                                                    const int64_t* indices, const double* data,
                                                    size_t chunk_bytes) {
  if (num_docs == 0 || num_terms == 0) throw InputError("matrix has no rows or no columns");
  if (num_terms > UINT32_MAX) throw InputError("matrix has more than 2^32-1 columns (terms)");
  if (indptr[0] != 0) throw InputError("CSR indptr must start at 0");
  for (size_t d = 0; d < num_docs; ++d)
    if (indptr[d + 1] < indptr[d]) throw InputError("CSR indptr is not non-decreasing at row " + std::to_string(d));
  const uint64_t nnz = static_cast<uint64_t>(indptr[num_docs]);
  for (uint64_t e = 0; e < nnz; ++e)
    if (indices[e] < 0 || static_cast<uint64_t>(indices[e]) >= num_terms)
      throw InputError("CSR column index " + std::to_string(indices[e]) + " out of range for " +
                       std::to_string(num_terms) + " columns");

  auto matrix = std::make_unique<TermDocumentMatrix>(num_terms, std::string());
  chunk_bytes = std::max<size_t>(chunk_bytes, 4096);
  size_t d = 0;
  while (d < num_docs) {
    DocChunk chunk;
    chunk.first_doc = d;
    std::vector<std::pair<uint32_t, float>> row;
    while (d < num_docs && (chunk.num_docs() == 0 || chunk.bytes() < chunk_bytes)) {
      row.clear();
      for (int64_t e = indptr[d]; e < indptr[d + 1]; ++e)
        row.emplace_back(static_cast<uint32_t>(indices[e]), static_cast<float>(data[e]));
      std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      for (size_t i = 0; i < row.size(); ++i) {
        // Duplicate (row, column) entries add up, as in scipy.
        if (i > 0 && row[i].first == row[i - 1].first) {
          chunk.values.back() += row[i].second;
          continue;
        }
        chunk.terms.push_back(row[i].first);
        chunk.values.push_back(row[i].second);
      }
      chunk.offsets.push_back(chunk.terms.size());
      ++d;
    }
    matrix->append(std::move(chunk));
  }
  return matrix;
}

}  // namespace fastamfm
