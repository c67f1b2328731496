// A whole file's bytes in memory, the one way the core's binary loaders (LSI and LM
// models, word-vector caches, METEOR resource caches) read a file: mapped read-only --
// several processes mapping the same file share its pages through the page cache -- or
// copied into private memory, so that a file changed or truncated later cannot reach a
// loaded model. Every failure to open, stat, map or read is a FileError naming the file.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace fastamfm {

class MappedFile {
 public:
  enum class Access {
    kShared,   // MAP_SHARED: pages shared with every process mapping the file
    kPrivate,  // MAP_PRIVATE: pages shared until written (never, here), file changes may show
    kCopy,     // read into private page-aligned memory: later file changes cannot show
  };

  MappedFile() = default;
  explicit MappedFile(std::string path, Access access = Access::kShared);
  ~MappedFile();
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  std::string_view text() const { return {reinterpret_cast<const char*>(data_), size_}; }
  const std::string& path() const { return path_; }
  // Tells the kernel the bytes will be read front to back (parsing a source file).
  void advise_sequential() const;
  // Tells the kernel the bytes will be read at random, soon (hash tables of a model):
  // read ahead now, and back the mapping with huge pages where the kernel offers them.
  void advise_random() const;

 private:
  void release();

  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace fastamfm
