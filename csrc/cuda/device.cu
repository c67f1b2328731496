#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

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

std::string device_description(int device) {
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  return std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ", " +
         std::to_string(prop.totalGlobalMem >> 30) + " GiB)";
}

}  // namespace fastamfm::cuda
