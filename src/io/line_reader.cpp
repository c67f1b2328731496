#include "io/line_reader.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "common/errors.hpp"
#include "common/limits.hpp"
#include "text/utf8.hpp"

namespace fastamfm {

namespace {
constexpr size_t kBlock = size_t{1} << 20;

std::FILE* open_or_throw(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw FileError(path, "open", errno);
  struct stat st {};
  if (::fstat(::fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {  // fopen opens a directory; reading it fails
    std::fclose(f);
    throw FileError(path, "read a directory", EISDIR);
  }
  return f;
}
}  // namespace

std::string line_too_long(size_t max_line_bytes) {
  return "line longer than " + std::to_string(max_line_bytes) +
         " bytes (the limit is fastamfm.limits max_line_bytes; raise it for files with longer lines)";
}

LineReader::LineReader(std::string path, size_t max_line_bytes, uint64_t start_offset, uint64_t first_line)
    : path_(std::move(path)),
      max_line_bytes_(max_line_bytes > 0 ? max_line_bytes : limits().max_line_bytes),
      file_(open_or_throw(path_)),
      buffer_(kBlock),
      line_number_(first_line) {
  if (start_offset > 0 && fseeko(file_, static_cast<off_t>(start_offset), SEEK_SET) != 0) {
    const std::string reason = std::strerror(errno);
    std::fclose(file_);
    throw std::runtime_error(path_ + ": cannot seek to byte " + std::to_string(start_offset) + ": " + reason);
  }
}

LineReader::~LineReader() {
  if (file_) std::fclose(file_);
}

bool LineReader::refill() {
  if (eof_) return false;
  if (begin_ > 0) {  // keep the unfinished line at the front
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buffer_.size()) buffer_.resize(buffer_.size() * 2);
  const size_t got = std::fread(buffer_.data() + end_, 1, buffer_.size() - end_, file_);
  if (got == 0) {
    if (std::ferror(file_)) throw std::runtime_error(path_ + ": read error: " + std::strerror(errno));
    eof_ = true;
    return false;
  }
  end_ += got;
  return true;
}

bool LineReader::next(std::string& line) {
  size_t scanned = begin_;
  for (;;) {
    const char* nl = static_cast<const char*>(std::memchr(buffer_.data() + scanned, '\n', end_ - scanned));
    size_t line_end;
    size_t consumed;
    if (nl) {
      line_end = static_cast<size_t>(nl - buffer_.data());
      consumed = line_end + 1;
    } else {
      if (end_ - begin_ > max_line_bytes_ + 1) throw FormatError(path_, line_number_ + 1, line_too_long(max_line_bytes_));
      const size_t offset_in_line = end_ - begin_;
      if (refill()) {
        scanned = begin_ + offset_in_line;
        continue;
      }
      if (end_ == begin_) return false;  // clean end of file
      line_end = end_;
      consumed = end_;
    }
    size_t length = line_end - begin_;
    if (length > 0 && buffer_[begin_ + length - 1] == '\r') --length;
    ++line_number_;
    if (length > max_line_bytes_) throw FormatError(path_, line_number_, line_too_long(max_line_bytes_));
    line.assign(buffer_.data() + begin_, length);
    bytes_consumed_ += consumed - begin_;
    begin_ = consumed;
    const size_t bad = find_invalid_utf8(line);
    if (bad != SIZE_MAX)
      throw FormatError(path_, line_number_, "invalid UTF-8 at byte " + std::to_string(bad) + " of the line",
                        bad + 1);
    return true;
  }
}

size_t LineReader::read_into(TextBatch& out, size_t max_lines) {
  std::string line;
  size_t n = 0;
  while (n < max_lines && next(line)) {
    out.push_back(line);
    ++n;
  }
  return n;
}

uint64_t count_lines(const std::string& path) {
  std::FILE* f = open_or_throw(path);
  std::vector<char> block(kBlock);
  uint64_t lines = 0;
  char last = '\n';
  size_t got;
  while ((got = std::fread(block.data(), 1, block.size(), f)) > 0) {
    for (const char* p = block.data(); (p = static_cast<const char*>(std::memchr(p, '\n', got - static_cast<size_t>(p - block.data())))); ++p)
      ++lines;
    last = block[got - 1];
  }
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) throw std::runtime_error(path + ": read error");
  return lines + (last != '\n' ? 1 : 0);
}

LineIndex line_start_offsets(const std::string& path, uint64_t every) {
  if (every == 0) throw InputError("line_start_offsets: every must be >= 1");
  std::FILE* f = open_or_throw(path);
  std::vector<char> block(kBlock);
  LineIndex index;
  uint64_t position = 0;  // bytes before the current block
  char last = '\n';
  size_t got;
  while ((got = std::fread(block.data(), 1, block.size(), f)) > 0) {
    if (position == 0) index.offsets.push_back(0);
    for (const char* p = block.data();
         (p = static_cast<const char*>(std::memchr(p, '\n', got - static_cast<size_t>(p - block.data())))); ++p) {
      if (++index.lines % every == 0) index.offsets.push_back(position + static_cast<uint64_t>(p - block.data()) + 1);
    }
    position += got;
    last = block[got - 1];
  }
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) throw std::runtime_error(path + ": read error");
  // A boundary recorded after the final newline starts no line.
  if (!index.offsets.empty() && index.offsets.back() == position && position > 0) index.offsets.pop_back();
  if (last != '\n') ++index.lines;
  return index;
}

}  // namespace fastamfm
