// Device discovery for the backend choice: fastamfm.HAS_CUDA is true only when
// a device answers, not merely when this module imports.
#pragma once
#include <string>

namespace fastamfm::cuda {

// Number of usable CUDA devices; 0 when there is no driver or no device.
int device_count();
// "NVIDIA H100 80GB HBM3 (sm_90, 79 GiB)" or throws std::runtime_error.
std::string device_description(int device);
// Throws std::runtime_error with the CUDA error string when status is an error.
void check(int status, const char* what);

}  // namespace fastamfm::cuda
