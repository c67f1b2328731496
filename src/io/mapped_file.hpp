// A whole file mapped read-only into memory. Several processes mapping the same
// file share its pages through the page cache, which is what makes a word-vector
// cache cheap to open a second time.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace fastamfm {

class MappedFile {
 public:
  MappedFile() = default;
  // Maps `path`; throws std::runtime_error naming the path when it cannot.
  explicit MappedFile(std::string path);
  ~MappedFile();
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  std::string_view text() const { return {reinterpret_cast<const char*>(data_), size_}; }
  const std::string& path() const { return path_; }
  // Tells the kernel the mapping will be read front to back (parsing a source file).
  void advise_sequential() const;

 private:
  void release();

  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace fastamfm
