// Typed arrays stored back to back in one byte buffer: the container format of the
// METEOR resource cache. Each array is written as (count, element size, data padded
// to 8 bytes); a reader checks every header against the buffer size, so a truncated
// or foreign file is a FormatError, never an out-of-bounds read.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace fastamfm {

// A read-only view of `size()` elements inside a buffer owned elsewhere.
template <class T>
class FlatArray {
 public:
  FlatArray() = default;
  FlatArray(const T* data, size_t n) : data_(data), size_(n) {}
  const T& operator[](size_t i) const { return data_[i]; }
  size_t size() const { return size_; }
  const T* data() const { return data_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};

class FlatArrayWriter {
 public:
  template <class T>
  void add(const T* data, size_t n) {
    const uint64_t header[2] = {n, sizeof(T)};
    bytes_.append(reinterpret_cast<const char*>(header), sizeof(header));
    bytes_.append(reinterpret_cast<const char*>(data), n * sizeof(T));
    bytes_.append((8 - bytes_.size() % 8) % 8, '\0');
  }
  template <class T>
  void add(const std::vector<T>& v) {
    add(v.data(), v.size());
  }
  void add(const std::string& s) { add(s.data(), s.size()); }
  std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
};

class FlatArrayReader {
 public:
  // `where` names the buffer (a file path) in FormatError messages.
  FlatArrayReader(const char* data, size_t size, std::string where)
      : data_(data), size_(size), where_(std::move(where)) {}

  template <class T>
  FlatArray<T> next() {
    uint64_t header[2];
    need(sizeof(header));
    std::memcpy(header, data_ + pos_, sizeof(header));
    pos_ += sizeof(header);
    if (header[1] != sizeof(T)) fail("unexpected element size");
    if (header[0] > (size_ - pos_) / sizeof(T)) fail("array runs past the end");
    const size_t bytes = header[0] * sizeof(T);
    const size_t padded = bytes + (8 - bytes % 8) % 8;
    if (padded > size_ - pos_) fail("array padding runs past the end");
    FlatArray<T> out(reinterpret_cast<const T*>(data_ + pos_), header[0]);
    pos_ += padded;
    return out;
  }
  size_t position() const { return pos_; }
  [[noreturn]] void fail(const char* what) const;

 private:
  void need(size_t n) const {
    if (n > size_ - pos_) fail("truncated");
  }
  const char* data_;
  size_t size_;
  size_t pos_ = 0;
  std::string where_;
};

}  // namespace fastamfm
