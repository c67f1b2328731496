// Shared helpers of the fastamfm._cuda bindings: reading device arrays handed in
// from Python (__cuda_array_interface__), and one register_* function per area.
#pragma once
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fastamfm::cuda::bindings {

namespace py = pybind11;

// A C-contiguous device array seen through its __cuda_array_interface__
// (CuPy, PyTorch, Numba and fastamfm._cuda.DeviceArray all provide one).
struct DeviceView {
  void* data = nullptr;
  std::vector<int64_t> shape;
  bool readonly = false;
  int64_t size() const;
};

// Reads `obj`'s interface and checks it: typestr must equal `typestr` ("<f4",
// "<i4", "<i8"), ndim must be `ndim`, the layout C-contiguous. Errors name `what`:
// TypeError "queries: expected float32 (<f4) device array, got <f8".
DeviceView device_view(py::handle obj, const char* typestr, int ndim, const char* what);
// As device_view, and the array must be writable.
DeviceView writable_device_view(py::handle obj, const char* typestr, int ndim, const char* what);
// ValueError "what: expected N rows, got M" unless actual == expected.
void expect_extent(int64_t actual, int64_t expected, const std::string& what);

void register_device(py::module_& m);
void register_am_projection(py::module_& m);
void register_cosine_max(py::module_& m);
void register_embedding_metrics(py::module_& m);

}  // namespace fastamfm::cuda::bindings
