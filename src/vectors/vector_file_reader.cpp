#include "vectors/vector_file_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include "common/errors.hpp"
#include "common/limits.hpp"
#include "io/line_reader.hpp"
#include "io/mapped_file.hpp"
#include "text/utf8.hpp"

namespace fastamfm {

VectorFormat parse_vector_format(std::string_view name) {
  if (name == "glove") return VectorFormat::Glove;
  if (name == "fasttext") return VectorFormat::FastText;
  if (name == "word2vec") return VectorFormat::Word2VecBinary;
  throw InputError("unknown word-vector format '" + std::string(name) +
                   "' (expected 'auto', 'glove', 'fasttext' or 'word2vec')");
}

const char* vector_format_name(VectorFormat format) {
  switch (format) {
    case VectorFormat::Glove: return "glove";
    case VectorFormat::FastText: return "fasttext";
    case VectorFormat::Word2VecBinary: return "word2vec";
  }
  return "unknown";
}

namespace {

constexpr size_t kPartBytes = size_t{4} << 20;
constexpr size_t kMaxWordBytes = 4096;

// Appended, not "'" + word (GCC 12's false -Wrestrict; see errors.hpp's place()).
std::string quoted(std::string_view word) {
  std::string out = "'";
  out.append(word.substr(0, 40));
  return out.append(word.size() > 40 ? "...'" : "'");
}

std::string_view first_line(std::string_view text) {
  const size_t nl = text.find('\n');
  std::string_view line = text.substr(0, nl);
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
  return line;
}

std::string_view trim_row(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
  return line;
}

size_t count_fields(std::string_view row) {
  size_t fields = 0;
  for (size_t i = 0; i < row.size();) {
    while (i < row.size() && row[i] == ' ') ++i;
    if (i < row.size()) ++fields;
    while (i < row.size() && row[i] != ' ') ++i;
  }
  return fields;
}

bool parse_count(std::string_view field, uint64_t& out) {
  if (field.empty()) return false;
  const auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), out);
  return ec == std::errc() && ptr == field.data() + field.size();
}

// The "count dim" header of fastText and word2vec files, if `line` is one.
bool parse_header(std::string_view line, uint64_t& count, uint64_t& dim) {
  const size_t space = line.find_first_of(" \t");
  if (space == std::string_view::npos) return false;
  std::string_view rest = line.substr(space);
  rest.remove_prefix(std::min(rest.find_first_not_of(" \t"), rest.size()));
  return parse_count(line.substr(0, space), count) && parse_count(rest, dim);
}

bool looks_like_text(std::string_view bytes) {
  for (char c : bytes) {
    if (!std::strchr("0123456789.-+eE \t\r\n", c) || c == '\0') return false;
  }
  return true;
}

// Parses one text row "word v1 ... vdim" (trailing whitespace already removed).
// Returns an empty string on success, else what is wrong with the row.
std::string parse_text_row(std::string_view line, size_t dim, VectorChunk& out) {
  const size_t space = line.find(' ');
  const std::string_view word = line.substr(0, space);
  if (word.empty()) return "the row starts with a space (empty word)";
  if (word.size() > kMaxWordBytes) return "word longer than " + std::to_string(kMaxWordBytes) + " bytes";
  const size_t bad = find_invalid_utf8(word);
  if (bad != SIZE_MAX) return "invalid UTF-8 at byte " + std::to_string(bad) + " of the word";
  const size_t first_value = out.values.size();
  out.values.resize(first_value + dim);
  float* row = out.values.data() + first_value;
  size_t found = 0;
  const char* p = space == std::string_view::npos ? line.data() + line.size() : line.data() + space;
  const char* end = line.data() + line.size();
  std::string problem;
  while (p < end) {
    while (p < end && *p == ' ') ++p;
    if (p == end) break;
    if (found == dim) {
      size_t extra = 0;
      for (const char* q = p; q < end;) {
        ++extra;
        while (q < end && *q != ' ') ++q;
        while (q < end && *q == ' ') ++q;
      }
      problem = "expected " + std::to_string(dim) + " values after the word, found " + std::to_string(dim + extra) +
                " (rows of differing length)";
      break;
    }
    const char* start = p;
    if (*p == '+') ++p;  // from_chars refuses the sign Python's float() accepts
    float value = 0;
    const auto [next, ec] = std::from_chars(p, end, value);
    const char* token_end = start;
    while (token_end < end && *token_end != ' ') ++token_end;
    if (next != token_end || (ec != std::errc() && ec != std::errc::result_out_of_range)) {
      problem = "value " + std::to_string(found + 1) + " " + quoted(std::string_view(start, token_end - start)) +
                " is not a number";
      break;
    }
    if (ec == std::errc::result_out_of_range || !std::isfinite(value)) {
      problem = "value " + std::to_string(found + 1) + " " + quoted(std::string_view(start, token_end - start)) +
                " is not finite (NaN or infinity)";
      break;
    }
    row[found++] = value;
    p = token_end;
  }
  if (problem.empty() && found != dim) {
    problem = "expected " + std::to_string(dim) + " values after the word, found " + std::to_string(found) +
              " (rows of differing length, or a truncated file)";
  }
  if (!problem.empty()) {
    out.values.resize(first_value);
    return "word " + quoted(word) + ": " + problem;
  }
  out.add_word(word);
  return {};
}

struct TextPart {
  size_t begin = 0, end = 0;  // byte range, whole lines
  VectorChunk chunk;
  uint64_t error_line = 0;  // 1-based line within the part, 0 when none
  std::string error;
};

void parse_text_part(std::string_view text, size_t dim, size_t max_line_bytes, TextPart& part) {
  size_t pos = part.begin;
  uint64_t line_no = 0;
  part.chunk.values.reserve((part.end - part.begin) / 8);
  while (pos < part.end) {
    const char* nl = static_cast<const char*>(std::memchr(text.data() + pos, '\n', part.end - pos));
    const size_t line_end = nl ? static_cast<size_t>(nl - text.data()) : part.end;
    ++line_no;
    if (line_end - pos > max_line_bytes) {
      part.error_line = line_no;
      part.error = line_too_long(max_line_bytes);
      return;
    }
    const std::string_view line = trim_row(text.substr(pos, line_end - pos));
    pos = line_end + 1;
    if (line.empty()) continue;  // blank lines carry nothing
    std::string problem = parse_text_row(line, dim, part.chunk);
    if (!problem.empty()) {
      part.error_line = line_no;
      part.error = std::move(problem);
      return;
    }
  }
}

uint64_t count_newlines(std::string_view text, size_t begin, size_t end) {
  uint64_t n = 0;
  for (const char* p = text.data() + begin, *e = text.data() + end;
       (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(e - p)))); ++p)
    ++n;
  return n;
}

ParsedVectors read_text(const MappedFile& file, VectorFormat format, int workers, const InterruptCheck& interrupted) {
  const std::string& path = file.path();
  const std::string_view text = file.text();
  ParsedVectors out;
  out.format = format;
  size_t body = 0;
  uint64_t header_lines = 0;
  uint64_t declared = 0;
  const size_t max_line_bytes = limits().max_line_bytes;
  if (first_line(text).size() > max_line_bytes) throw FormatError(path, 1, line_too_long(max_line_bytes));
  if (format == VectorFormat::FastText) {
    uint64_t count = 0, dim = 0;
    if (!parse_header(first_line(text), count, dim))
      throw FormatError(path, 1, "expected a 'count dim' header line (fastText .vec format)");
    if (dim == 0) throw FormatError(path, 1, "the header declares 0 dimensions");
    // A row holds dim values of at least 2 bytes each, within one line.
    if (dim > max_line_bytes / 2)
      throw FormatError(path, 1,
                        "the header declares " + std::to_string(dim) + " dimensions: rows that long exceed the " +
                            std::to_string(max_line_bytes) +
                            "-byte line limit (fastamfm.limits max_line_bytes; raise it for such files)");
    declared = count;
    out.dim = dim;
    const size_t nl = text.find('\n');
    body = nl == std::string_view::npos ? text.size() : nl + 1;
    header_lines = 1;
  } else {
    // GloVe has no header: the first row fixes the dimension.
    const std::string_view row = trim_row(first_line(text));
    const size_t fields = count_fields(row);
    if (fields < 2) throw FormatError(path, 1, "expected 'word v1 v2 ...' (GloVe text format)");
    out.dim = fields - 1;
    uint64_t count = 0, dim = 0;
    if (fields == 2 && parse_header(row, count, dim))
      throw FormatError(path, 1, "looks like a 'count dim' header: load it with format='fasttext'");
  }

  // Parts of whole lines, parsed in parallel; joined in file order.
  std::vector<TextPart> parts;
  for (size_t begin = body; begin < text.size();) {
    size_t end = std::min(text.size(), begin + kPartBytes);
    if (end < text.size()) {
      const char* nl = static_cast<const char*>(std::memchr(text.data() + end, '\n', text.size() - end));
      end = nl ? static_cast<size_t>(nl - text.data()) + 1 : text.size();
    }
    parts.emplace_back();
    parts.back().begin = begin;
    parts.back().end = end;
    begin = end;
  }
  parallel_parts(
      parts.size(), workers, [&](size_t p) { parse_text_part(text, out.dim, max_line_bytes, parts[p]); }, interrupted);

  uint64_t line_base = header_lines;
  for (auto& part : parts) {
    if (!part.error.empty()) throw FormatError(path, line_base + part.error_line, part.error);
    line_base += count_newlines(text, part.begin, part.end);
    out.rows += part.chunk.rows();
    out.chunks.push_back(std::move(part.chunk));
  }
  if (out.rows == 0) throw FormatError(path, 0, "no word vectors in the file");
  if (format == VectorFormat::FastText && out.rows != declared) {
    const uint64_t last_line = line_base + (text.empty() || text.back() == '\n' ? 0 : 1);
    throw FormatError(path, last_line, "the header declares " + std::to_string(declared) +
                      " vectors but the file holds " + std::to_string(out.rows) +
                      (out.rows < declared ? " (truncated file?)" : ""));
  }
  return out;
}

ParsedVectors read_word2vec_binary(const MappedFile& file) {
  const std::string& path = file.path();
  const std::string_view data = file.text();
  uint64_t count = 0, dim = 0;
  if (!parse_header(first_line(data), count, dim))
    throw FormatError(path, 1, "expected a 'count dim' header line (word2vec binary format)");
  if (dim == 0) throw FormatError(path, 1, "the header declares 0 dimensions");
  const size_t max_line_bytes = limits().max_line_bytes;
  if (dim > max_line_bytes / sizeof(float))
    throw FormatError(path, 1,
                      "the header declares " + std::to_string(dim) + " dimensions: rows that long exceed the " +
                          std::to_string(max_line_bytes) +
                          "-byte line limit (fastamfm.limits max_line_bytes; raise it for such files)");
  const size_t row_bytes = dim * sizeof(float);
  if (count > data.size() / (row_bytes + 1))
    throw FormatError(path, 1, "the header declares " + std::to_string(count) + " vectors of " +
                      std::to_string(dim) + " dimensions, more than the file's " + std::to_string(data.size()) +
                      " bytes can hold (truncated file?)");
  ParsedVectors out;
  out.format = VectorFormat::Word2VecBinary;
  out.dim = dim;
  out.chunks.emplace_back();
  VectorChunk& chunk = out.chunks.back();
  chunk.values.resize(count * dim);
  if (data.find('\n') == std::string_view::npos) throw FormatError(path, 0, "the file ends after the header line");
  size_t pos = data.find('\n') + 1;
  auto fail = [&](uint64_t index, std::string_view word, const std::string& what) {
    std::string msg = "vector " + std::to_string(index + 1) + " of " + std::to_string(count);
    if (!word.empty()) msg += " (word " + quoted(word) + ")";
    throw FormatError(path, 0, msg + " at byte " + std::to_string(pos) + ": " + what);
  };
  for (uint64_t i = 0; i < count; ++i) {
    while (pos < data.size() && (data[pos] == '\n' || data[pos] == '\r')) ++pos;  // row separators
    const size_t space = data.find(' ', pos);
    if (space == std::string_view::npos || space - pos > kMaxWordBytes) {
      if (data.size() - pos <= kMaxWordBytes) fail(i, {}, "the file ends before the word's separator (truncated file?)");
      fail(i, {}, "no space after the word within " + std::to_string(kMaxWordBytes) + " bytes");
    }
    const std::string_view word = data.substr(pos, space - pos);
    if (word.empty()) fail(i, {}, "empty word");
    const size_t bad = find_invalid_utf8(word);
    if (bad != SIZE_MAX) fail(i, {}, "invalid UTF-8 at byte " + std::to_string(bad) + " of the word");
    pos = space + 1;
    if (data.size() - pos < row_bytes)
      fail(i, word, "the file ends " + std::to_string(row_bytes - (data.size() - pos)) +
                        " bytes before the vector does (truncated file?)");
    float* row = chunk.values.data() + i * dim;
    std::memcpy(row, data.data() + pos, row_bytes);  // little-endian float32, as word2vec writes them
    for (size_t j = 0; j < dim; ++j) {
      if (!std::isfinite(row[j])) fail(i, word, "value " + std::to_string(j + 1) + " is not finite (NaN or infinity)");
    }
    chunk.add_word(word);
    pos += row_bytes;
  }
  while (pos < data.size() && std::strchr(" \t\r\n", data[pos]) && data[pos] != '\0') ++pos;
  if (pos != data.size())
    throw FormatError(path, 0,
                      std::to_string(data.size() - pos) + " bytes after the " + std::to_string(count) +
                          " vectors the header declares");
  if (count == 0) throw FormatError(path, 0, "no word vectors in the file");
  out.rows = count;
  return out;
}

}  // namespace

VectorFormat detect_vector_format(const std::string& path) {
  const MappedFile file(path);
  const std::string_view text = file.text();
  if (text.empty()) throw FormatError(path, 0, "empty file (expected word vectors)");
  uint64_t count = 0, dim = 0;
  if (!parse_header(first_line(text), count, dim)) return VectorFormat::Glove;
  // After the header: "word" then either text values or raw float32 bytes.
  const size_t nl = text.find('\n');
  if (nl == std::string_view::npos) return VectorFormat::FastText;
  size_t pos = nl + 1;
  while (pos < text.size() && text[pos] == '\n') ++pos;
  const size_t space = text.find(' ', pos);
  if (space == std::string_view::npos) return VectorFormat::FastText;
  // Text when the rest of the first row is `dim` decimal fields; raw float32 bytes
  // practically never are.
  const std::string_view row = trim_row(first_line(text.substr(space + 1)));
  return looks_like_text(row) && count_fields(row) == dim ? VectorFormat::FastText : VectorFormat::Word2VecBinary;
}

ParsedVectors read_vector_file(const std::string& path, VectorFormat format, int workers,
                               const InterruptCheck& interrupted) {
  const MappedFile file(path);
  if (file.size() == 0) throw FormatError(path, 0, "empty file (expected word vectors)");
  file.advise_sequential();
  if (format == VectorFormat::Word2VecBinary) return read_word2vec_binary(file);
  return read_text(file, format, workers, interrupted);
}

ParsedVectors parse_vector_matrix(const std::vector<std::string>& words, const float* values, size_t rows,
                                  size_t dim) {
  if (rows != words.size())
    throw InputError(std::to_string(words.size()) + " words but " + std::to_string(rows) + " vector rows");
  if (rows == 0 || dim == 0) throw InputError("no word vectors (empty vocabulary or 0 dimensions)");
  ParsedVectors parsed;
  parsed.dim = dim;
  parsed.rows = rows;
  parsed.chunks.emplace_back();
  VectorChunk& chunk = parsed.chunks.back();
  chunk.values.assign(values, values + rows * dim);
  for (size_t r = 0; r < rows; ++r) {
    if (words[r].empty()) throw InputError("vocabulary[" + std::to_string(r) + "] is an empty word");
    for (size_t j = 0; j < dim; ++j)
      if (!std::isfinite(chunk.values[r * dim + j]))
        throw InputError("vectors[" + std::to_string(r) + ", " + std::to_string(j) + "] (word '" + words[r] +
                         "') is not finite");
    chunk.add_word(words[r]);
  }
  return parsed;
}

}  // namespace fastamfm
