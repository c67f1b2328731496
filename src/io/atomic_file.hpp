// Writing a file so that readers see either the old content or the complete new
// one, never a truncated file: write to a temporary file beside the target, fsync,
// then rename over it. If commit() is never reached the temporary file is removed.
#pragma once
#include <cstdio>
#include <string>
#include <string_view>

namespace fastamfm {

class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, size_t bytes);
  void write(std::string_view text) { write(text.data(), text.size()); }
  std::FILE* handle() { return file_; }
  // Flushes, syncs and renames the temporary file onto the target path.
  void commit();

 private:
  std::string path_;
  std::string temp_path_;
  std::FILE* file_ = nullptr;
  bool committed_ = false;
};

}  // namespace fastamfm
