// Exception types of the core. The bindings map them to Python:
// InputError -> ValueError, FormatError -> ValueError (a corrupt or truncated file),
// Interrupted -> the pending KeyboardInterrupt, anything else -> RuntimeError.
#pragma once
#include <stdexcept>
#include <string>

namespace fastamfm {

// Bad arguments or bad text handed in by the caller (sizes, UTF-8, empty input).
class InputError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A file whose content is not what its format promises; the message names file and line.
class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A long-running call stopped because the caller asked (Ctrl-C in Python).
class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
};

}  // namespace fastamfm
