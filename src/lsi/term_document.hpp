// The term-document matrix of LSI training, built from a stream of sentences.
//
// A is terms x documents (M x N). It is stored document-major (CSR over
// documents: per document its sorted term indices and weighted values) in chunks
// of consecutive documents. Chunks live in memory, or on disk when a memory
// budget is set, so a corpus of any size is read back one chunk at a time.
//
// Building reads the corpus once: each document becomes (token id, count) pairs
// while per-term statistics are summed; after the last sentence the vocabulary
// is chosen from those statistics and every chunk is rewritten once with
// vocabulary indices and weights. This works for one-shot iterables (generators)
// as well as files.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "text/hashing.hpp"
#include "parallel/parallel.hpp"
#include "text/text_batch.hpp"
#include "text/tokenizer.hpp"

namespace fastamfm {

// Term weighting of the matrix (and of every sentence projected later):
//   counts       a = tf                                   (the AM-FM toolkit's default)
//   tfidf        a = tf * (ln((1+N)/(1+df)) + 1), each document then L2-normalised
//                (scikit-learn's TfidfVectorizer defaults)
//   log-entropy  a = ln(1+tf) * (1 + sum_j p_tj ln p_tj / ln N), p_tj = tf_tj / gf_t
//                (Dumais' log-entropy; no document normalisation; the global weight is 1 when N = 1)
enum class Weighting : uint32_t { Counts = 0, Tfidf = 1, LogEntropy = 2 };

Weighting parse_weighting(const std::string& name);
const char* weighting_name(Weighting weighting);
// Local weight of a term that occurs `count` times in one document.
double local_weight(Weighting weighting, uint32_t count);
// Whether each document's weighted vector is scaled to unit length.
inline bool normalises_documents(Weighting weighting) { return weighting == Weighting::Tfidf; }

// Document-major block of consecutive documents [first_doc, first_doc + num_docs()).
struct DocChunk {
  uint64_t first_doc = 0;
  std::vector<uint64_t> offsets{0};  // num_docs + 1 entries into terms/values
  std::vector<uint32_t> terms;       // ascending within a document
  std::vector<float> values;

  size_t num_docs() const { return offsets.size() - 1; }
  size_t nnz() const { return terms.size(); }
  size_t bytes() const { return offsets.size() * 8 + terms.size() * 8; }
};

class TermDocumentMatrix {
 public:
  // spill_dir empty: chunks are kept in memory; otherwise each chunk is a file in spill_dir.
  TermDocumentMatrix(size_t num_terms, std::string spill_dir);
  ~TermDocumentMatrix();
  TermDocumentMatrix(const TermDocumentMatrix&) = delete;
  TermDocumentMatrix& operator=(const TermDocumentMatrix&) = delete;

  // Appends the next chunk; its first_doc must follow the previous chunk.
  void append(DocChunk chunk);
  size_t num_chunks() const { return chunk_docs_.size(); }
  // Chunk i, from memory or read back from disk (shared, so a memory chunk is not copied).
  std::shared_ptr<const DocChunk> chunk(size_t i) const;

  size_t num_terms() const { return num_terms_; }
  uint64_t num_docs() const { return num_docs_; }
  uint64_t nnz() const { return nnz_; }
  // Non-zeros per term (row); the product kernels balance threads with it.
  const std::vector<uint64_t>& term_nnz() const { return term_nnz_; }
  bool on_disk() const { return !spill_dir_.empty(); }

 private:
  size_t num_terms_;
  std::string spill_dir_;
  uint64_t num_docs_ = 0, nnz_ = 0;
  std::vector<uint64_t> term_nnz_;
  std::vector<uint64_t> chunk_docs_;
  std::vector<std::shared_ptr<const DocChunk>> in_memory_;
  std::vector<std::string> files_;
};

// Sums of one term over the corpus: what every weighting needs.
struct TermStats {
  std::string word;
  uint64_t frequency = 0;        // total occurrences (gf)
  uint64_t documents = 0;        // documents containing it (df)
  double count_log_count = 0.0;  // sum over documents of tf * ln(tf), for log-entropy
};

struct VocabularyOptions {
  uint64_t min_count = 1;  // keep terms occurring at least this often in the corpus
  uint64_t max_vocab = 0;  // keep at most this many of the most frequent terms; 0 = all
};

// The chosen vocabulary (sorted by UTF-8 bytes, as scikit-learn sorts it) and the
// global weight of each of its terms.
struct TermVocabulary {
  std::vector<std::string> words;
  std::vector<double> global_weights;
};

// A batch of documents tokenized and counted, not yet added to a builder: the part
// of building that needs no corpus-wide state, so it may run anywhere (other
// threads, other processes or machines) and be added to a builder later, in corpus
// order, with the same result as adding the texts themselves.
struct CountedDocuments {
  std::vector<uint64_t> offsets{0};     // num_docs + 1 entries into ids/counts
  std::vector<TokenId> ids;             // per document its distinct token ids, ascending
  std::vector<uint32_t> counts;         // occurrences of each in the document
  std::vector<TokenId> type_ids;        // every distinct id of the batch, ascending
  std::vector<std::string> type_words;  // the text of each (its first occurrence)

  size_t num_docs() const { return offsets.size() - 1; }
  // Checks the arrays describe documents (sizes, offsets, order); throws InputError.
  void validate() const;
};

CountedDocuments count_documents(const TextBatch& texts, const Tokenizer& tokenizer, int workers,
                                 const InterruptCheck& interrupted = {});

class TermDocumentBuilder {
 public:
  // chunk_bytes: approximate size of one chunk; spill_dir as for TermDocumentMatrix.
  TermDocumentBuilder(Tokenizer tokenizer, size_t chunk_bytes, std::string spill_dir);
  ~TermDocumentBuilder();
  TermDocumentBuilder(const TermDocumentBuilder&) = delete;
  TermDocumentBuilder& operator=(const TermDocumentBuilder&) = delete;

  // Adds one document per text.
  void add(const TextBatch& texts, int workers, const InterruptCheck& interrupted = {});
  // Adds documents counted by count_documents (with this builder's tokenizer).
  void add_counted(const CountedDocuments& documents);
  uint64_t num_docs() const { return num_docs_; }
  size_t num_types() const { return stats_.size(); }

  // Chooses the vocabulary and writes the weighted matrix; the builder is spent afterwards.
  // Throws InputError for an empty corpus or when no term survives the vocabulary options.
  std::unique_ptr<TermDocumentMatrix> finish(const VocabularyOptions& options, Weighting weighting,
                                             TermVocabulary& vocabulary, int workers,
                                             const InterruptCheck& interrupted = {});

 private:
  // Documents as (token id, count) pairs, before the vocabulary exists.
  struct RawChunk {
    uint64_t first_doc = 0;
    std::vector<uint64_t> offsets{0};
    std::vector<TokenId> ids;
    std::vector<uint32_t> counts;
    size_t bytes() const { return offsets.size() * 8 + ids.size() * 12; }
  };
  // One token of the current document (word_of() gives its text, asked only for a new
  // token), then the end of the document.
  template <class WordOf>
  void add_entry(TokenId id, uint32_t count, const WordOf& word_of);
  void end_document();
  void flush_raw();
  RawChunk load_raw(size_t i);

  Tokenizer tokenizer_;
  size_t chunk_bytes_;
  std::string spill_dir_;
  uint64_t num_docs_ = 0;
  bool finished_ = false;
  std::unordered_map<TokenId, TermStats> stats_;
  RawChunk current_;
  std::vector<RawChunk> raw_in_memory_;
  std::vector<std::string> raw_files_;
};

// A document-major matrix from a CSR array of documents x terms (scikit-learn's
// orientation), copied into chunks of about chunk_bytes. Checks every index.
std::unique_ptr<TermDocumentMatrix> matrix_from_csr(size_t num_docs, size_t num_terms, const int64_t* indptr,
                                                    const int64_t* indices, const double* data,
                                                    size_t chunk_bytes);

}  // namespace fastamfm
