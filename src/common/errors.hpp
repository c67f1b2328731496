// Exception types of the core. The bindings map them to Python:
// InputError -> ValueError, FormatError -> fastamfm.FormatError (a ValueError
// carrying .path, .line and .column), FileError -> the OSError of its errno
// (FileNotFoundError, PermissionError...) naming the file, Interrupted -> the pending
// KeyboardInterrupt, std::bad_alloc -> MemoryError, anything else -> RuntimeError.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace fastamfm {

// Bad arguments or bad text handed in by the caller (sizes, UTF-8, empty input).
class InputError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A file whose content is not what its format promises. The message starts with
// the place: "path: what", "path:line: what" or "path:line:column: what".
class FormatError : public std::runtime_error {
 public:
  // A message composed by the caller (the place, if any, is only in the text).
  explicit FormatError(const std::string& message) : std::runtime_error(message) {}
  // line and column are 1-based; 0 means not known (binary files have no lines).
  FormatError(const std::string& path, uint64_t line, const std::string& what, uint64_t column = 0)
      : std::runtime_error(place(path, line, column) + what), path_(path), line_(line), column_(column) {}

  const std::string& path() const { return path_; }
  uint64_t line() const { return line_; }
  uint64_t column() const { return column_; }

 private:
  // Appended piece by piece: GCC 12 at -O3 with _FORTIFY_SOURCE reports a false -Wrestrict
  // overlap in ":" + std::to_string(n), which inserts at the front (GCC bug 105329).
  static std::string place(const std::string& path, uint64_t line, uint64_t column) {
    std::string s = path;
    if (line > 0) s.append(":").append(std::to_string(line));
    if (line > 0 && column > 0) s.append(":").append(std::to_string(column));
    return s.append(": ");
  }
  std::string path_;
  uint64_t line_ = 0;
  uint64_t column_ = 0;
};

// A file the system would not let us open, stat, map or read: missing, a directory,
// no permission. Not a format problem (the bytes were never seen), so not a FormatError.
class FileError : public std::runtime_error {
 public:
  FileError(const std::string& path, const std::string& action, int error_number)
      : std::runtime_error(path + ": cannot " + action), path_(path), error_number_(error_number) {}
  const std::string& path() const { return path_; }
  int error_number() const { return error_number_; }

 private:
  std::string path_;
  int error_number_;
};

// A long-running call stopped because the caller asked (Ctrl-C in Python).
class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
};

}  // namespace fastamfm
