#include "io/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <new>
#include <utility>

#include "common/errors.hpp"

namespace fastamfm {

namespace {

// Closes the descriptor however the constructor leaves.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

MappedFile::MappedFile(std::string path, Access access) : path_(std::move(path)) {
  const Descriptor file{::open(path_.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) throw FileError(path_, "open", errno);
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) throw FileError(path_, "stat", errno);
  if (S_ISDIR(st.st_mode)) throw FileError(path_, "read a directory", EISDIR);
  const auto size = static_cast<size_t>(st.st_size);
  if (size == 0) return;
  if (access != Access::kCopy) {
    void* p = ::mmap(nullptr, size, PROT_READ, access == Access::kShared ? MAP_SHARED : MAP_PRIVATE, file.fd, 0);
    if (p == MAP_FAILED) throw FileError(path_, "map", errno);
    data_ = static_cast<const uint8_t*>(p);
    size_ = size;
    return;  // the mapping stays valid without the descriptor
  }
  // Anonymous memory: page-aligned (every section of a model image is usable in place, as
  // when mapped), and eligible for huge pages.
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  data_ = static_cast<const uint8_t*>(p);
  size_ = size;
  ::madvise(p, size, MADV_HUGEPAGE);  // honoured only where transparent huge pages exist
  auto* to = static_cast<uint8_t*>(p);
  for (size_t got = 0; got < size;) {
    const ssize_t r = ::read(file.fd, to + got, size - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      const int err = r == 0 ? EIO : errno;   // 0: the file shrank while being read
      release();
      throw FileError(path_, r == 0 ? "read it whole (it shrank while being read)" : "read", err);
    }
    got += static_cast<size_t>(r);
  }
}

MappedFile::~MappedFile() { release(); }

MappedFile::MappedFile(MappedFile&& other) noexcept
    : path_(std::move(other.path_)), data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void MappedFile::release() {
  if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
}

void MappedFile::advise_sequential() const {
  if (data_) ::madvise(const_cast<uint8_t*>(data_), size_, MADV_SEQUENTIAL);
}

void MappedFile::advise_random() const {
  if (!data_) return;
  ::madvise(const_cast<uint8_t*>(data_), size_, MADV_WILLNEED);
  ::madvise(const_cast<uint8_t*>(data_), size_, MADV_HUGEPAGE);
}

}  // namespace fastamfm
