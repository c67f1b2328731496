#include "io/atomic_file.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace fastamfm {

namespace {
std::string temp_name_for(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
}
}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), temp_path_(temp_name_for(path_)) {
  file_ = std::fopen(temp_path_.c_str(), "wb");
  if (!file_) throw std::runtime_error(path_ + ": cannot create " + temp_path_ + ": " + std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (file_) std::fclose(file_);
  if (!committed_) std::remove(temp_path_.c_str());
}

void AtomicFile::write(const void* data, size_t bytes) {
  if (bytes && std::fwrite(data, 1, bytes, file_) != bytes)
    throw std::runtime_error(temp_path_ + ": write failed: " + std::strerror(errno));
}

void AtomicFile::commit() {
  if (std::fflush(file_) != 0 || ::fsync(::fileno(file_)) != 0)
    throw std::runtime_error(temp_path_ + ": flush failed: " + std::strerror(errno));
  const int closed = std::fclose(file_);
  file_ = nullptr;
  if (closed != 0) throw std::runtime_error(temp_path_ + ": close failed: " + std::strerror(errno));
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0)
    throw std::runtime_error(path_ + ": rename failed: " + std::strerror(errno));
  committed_ = true;
}

}  // namespace fastamfm
