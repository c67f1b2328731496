// Parsers of the word-vector files people have: GloVe text (no header), fastText
// .vec / word2vec text ("count dim" header line, then text rows) and word2vec
// binary ("count dim" header line, then per word its bytes, a space and dim
// little-endian float32 values). Every defect -- a row with the wrong number of
// values, a value that is not a finite number, a file that ends early, invalid
// UTF-8 in a word -- is a FormatError "path:line: what" (binary files name the
// vector's index instead of a line).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "text/hashing.hpp"
#include "parallel/parallel.hpp"

namespace fastamfm {

enum class VectorFormat : uint32_t { Glove = 1, FastText = 2, Word2VecBinary = 3 };

// "glove", "fasttext" (also word2vec's text format) or "word2vec" (binary).
VectorFormat parse_vector_format(std::string_view name);
const char* vector_format_name(VectorFormat format);

// Looks at the head of the file: a "count dim" first line means fastText text or,
// when the bytes after the first word are not text, word2vec binary; else GloVe.
VectorFormat detect_vector_format(const std::string& path);

// Rows of one part of the file, in file order.
struct VectorChunk {
  std::string words;               // word bytes, concatenated
  std::vector<uint64_t> word_end;  // end of each word in `words`
  std::vector<TokenId> word_id;    // hash_token of each word
  std::vector<float> values;       // rows x dim, row-major

  size_t rows() const { return word_end.size(); }
  std::string_view word(size_t row) const {
    const uint64_t begin = row == 0 ? 0 : word_end[row - 1];
    return std::string_view(words).substr(begin, word_end[row] - begin);
  }
  void add_word(std::string_view word) {
    words.append(word);
    word_end.push_back(words.size());
    word_id.push_back(hash_token(word));
  }
};

struct ParsedVectors {
  VectorFormat format = VectorFormat::Glove;
  size_t dim = 0;
  size_t rows = 0;
  std::vector<VectorChunk> chunks;  // concatenated in order they are the file's rows
};

// Vectors held in memory (an LSI model's components, a user's arrays): words[r] has
// row r of the rows x dim matrix `values`. InputError for an empty vocabulary, an
// empty word or a value that is not finite, naming the row and column.
ParsedVectors parse_vector_matrix(const std::vector<std::string>& words, const float* values, size_t rows, size_t dim);

// Parses the whole file on `workers` threads; the result does not depend on workers.
ParsedVectors read_vector_file(const std::string& path, VectorFormat format, int workers,
                               const InterruptCheck& interrupted = {});

}  // namespace fastamfm
