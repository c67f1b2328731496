// Streaming reader of one-sentence-per-line UTF-8 text files. Lines are checked as
// they are read: invalid UTF-8 and over-long lines raise FormatError naming the
// file and the 1-based line number. A trailing "\r" is dropped (Windows files).
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "text/text_batch.hpp"

namespace fastamfm {

class LineReader {
 public:
  // max_line_bytes 0: the process-wide limit (common/limits.hpp). start_offset: the
  // byte where reading begins (the start of a line, e.g. from line_start_offsets);
  // first_line: how many lines precede it, so that errors name the true line number.
  explicit LineReader(std::string path, size_t max_line_bytes = 0, uint64_t start_offset = 0,
                      uint64_t first_line = 0);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // Reads the next line into `line`; false at end of file.
  bool next(std::string& line);
  // Appends up to max_lines lines to out; returns how many were read.
  size_t read_into(TextBatch& out, size_t max_lines);
  // Lines returned so far (the number of the last line read).
  uint64_t line_number() const { return line_number_; }
  const std::string& path() const { return path_; }
  // Bytes consumed so far, for progress bars.
  uint64_t bytes_read() const { return bytes_consumed_; }

 private:
  bool refill();

  std::string path_;
  size_t max_line_bytes_;
  std::FILE* file_ = nullptr;
  std::vector<char> buffer_;
  size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  uint64_t line_number_ = 0;
  uint64_t bytes_consumed_ = 0;
};

// The FormatError message for a line over the limit, saying how to raise it.
std::string line_too_long(size_t max_line_bytes);

// Number of lines in a file (a last line without "\n" counts), without decoding.
uint64_t count_lines(const std::string& path);

// Where the lines 0, every, 2*every, ... of a file start (byte offsets), and the
// number of lines (as count_lines counts them), in one pass without decoding: the
// boundaries of line-aligned slices of a file, read by LineReader(start_offset).
struct LineIndex {
  std::vector<uint64_t> offsets;
  uint64_t lines = 0;
};
LineIndex line_start_offsets(const std::string& path, uint64_t every);

}  // namespace fastamfm
