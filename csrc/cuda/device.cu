#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "device.cuh"

namespace fastamfm::cuda {

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error so later calls start clean
    return 0;
  }
  return count;
}

void check(int status, const char* what) {
  const auto err = static_cast<cudaError_t>(status);
  if (err != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(err));
}

void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

void set_device(int device) { check(cudaSetDevice(device), "cudaSetDevice"); }

std::string device_description(int device) {
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  return std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ", " +
         std::to_string(prop.totalGlobalMem >> 30) + " GiB)";
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  // cudaMalloc of 0 bytes is legal but gives no pointer; keep one byte so data() is usable.
  check(cudaMalloc(&ptr_, bytes == 0 ? 1 : bytes), "cudaMalloc");
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ != nullptr) cudaFree(ptr_);  // cannot throw from a destructor; cudaFree only fails on a dead context
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (ptr_ != nullptr) cudaFree(ptr_);
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void copy_to_device(void* device_dst, const void* host_src, std::size_t bytes) {
  if (bytes > 0) check(cudaMemcpy(device_dst, host_src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to device");
}

void copy_to_host(void* host_dst, const void* device_src, std::size_t bytes) {
  if (bytes > 0) check(cudaMemcpy(host_dst, device_src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy to host");
}

void fill_nan_bytes(void* device_dst, std::size_t bytes, Stream stream) {
  if (bytes > 0)
    check(cudaMemsetAsync(device_dst, 0xFF, bytes, reinterpret_cast<cudaStream_t>(stream)), "cudaMemsetAsync");
}

void synchronize(Stream stream) {
  check(cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(stream)), "cudaStreamSynchronize");
}

double copy_bandwidth_gbps(std::size_t bytes, int repeats) {
  if (bytes == 0 || repeats < 1) throw std::invalid_argument("copy_bandwidth_gbps: bytes and repeats must be positive");
  DeviceBuffer source(bytes);
  DeviceBuffer target(bytes);
  check(cudaMemset(source.data(), 1, bytes), "cudaMemset");
  // Events destroyed on every path, including a failed copy.
  struct Event {
    cudaEvent_t handle = nullptr;
    Event() { check(cudaEventCreate(&handle), "cudaEventCreate"); }
    ~Event() { cudaEventDestroy(handle); }
  };
  const Event start_event;
  const Event stop_event;
  cudaEvent_t start = start_event.handle;
  cudaEvent_t stop = stop_event.handle;
  std::vector<float> millis;
  for (int r = 0; r <= repeats; ++r) {  // the first copy warms up and is not counted
    check(cudaEventRecord(start), "cudaEventRecord");
    check(cudaMemcpy(target.data(), source.data(), bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy");
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0.f;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    if (r > 0) millis.push_back(ms);
  }
  std::nth_element(millis.begin(), millis.begin() + millis.size() / 2, millis.end());
  return 2.0 * static_cast<double>(bytes) / (millis[millis.size() / 2] * 1e-3) / 1e9;
}

}  // namespace fastamfm::cuda
