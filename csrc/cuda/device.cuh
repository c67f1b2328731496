// Device discovery, error checking and owned device memory for the kernels.
// Plain C++ types only, so the pybind11 sources (compiled by the host compiler)
// can include it without the CUDA headers.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace fastamfm::cuda {

// A cudaStream_t carried as an integer: 0 is the legacy default stream, and CuPy's
// `Stream.ptr` can be passed as is, so kernels run in order with the caller's work.
using Stream = std::uintptr_t;

// Number of usable CUDA devices; 0 when there is no driver or no device.
int device_count();
// Makes `device` the current device of the calling thread (cudaSetDevice); throws on a bad index.
void set_device(int device);
// "NVIDIA H100 80GB HBM3 (sm_90, 79 GiB)" or throws std::runtime_error.
std::string device_description(int device);
// Throws std::runtime_error with the CUDA error string when status is an error.
void check(int status, const char* what);
// Throws when the last kernel launch failed (bad configuration, no device...).
void check_launch(const char* kernel);

// Device memory owned by one object, freed on destruction; moved, never copied.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// Synchronous copies between host and device memory (pageable host memory).
void copy_to_device(void* device_dst, const void* host_src, std::size_t bytes);
void copy_to_host(void* host_dst, const void* device_src, std::size_t bytes);
// Sets every byte to 0xFF: a float32 buffer then reads as NaN everywhere, so an
// element a kernel forgot to write cannot pass for a plausible score.
void fill_nan_bytes(void* device_dst, std::size_t bytes, Stream stream);
void synchronize(Stream stream);

// Device-to-device copy bandwidth in GB/s (bytes read + bytes written per second),
// the median of `repeats` timed copies of `bytes`: the ceiling a memory-bound
// kernel is measured against.
double copy_bandwidth_gbps(std::size_t bytes, int repeats);

}  // namespace fastamfm::cuda
