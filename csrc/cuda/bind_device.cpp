// fastamfm._cuda.DeviceArray: device memory owned by fastamfm, so numpy inputs can
// be uploaded once and fed to several kernels; exposes __cuda_array_interface__,
// hence CuPy/PyTorch can also view it without a copy.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "cuda_bindings.hpp"
#include "device.cuh"

namespace fastamfm::cuda::bindings {
namespace {

const std::vector<std::string>& supported_typestrs() {
  static const std::vector<std::string> types = {"<f4", "<i4", "<i8"};
  return types;
}

class DeviceArray {
 public:
  DeviceArray(std::vector<int64_t> shape, std::string typestr) : shape_(std::move(shape)), typestr_(std::move(typestr)) {
    bool known = false;
    for (const auto& t : supported_typestrs()) known = known || t == typestr_;
    if (!known) throw py::type_error("DeviceArray: unsupported dtype " + typestr_ + " (use float32, int32 or int64)");
    for (const int64_t extent : shape_)
      if (extent < 0) throw py::value_error("DeviceArray: negative extent in shape");
    buffer_ = DeviceBuffer(static_cast<std::size_t>(size() * itemsize()));
  }

  int64_t size() const {
    int64_t total = 1;
    for (const int64_t extent : shape_) total *= extent;
    return total;
  }
  int64_t itemsize() const { return std::stoll(typestr_.substr(2)); }
  std::size_t bytes() const { return static_cast<std::size_t>(size() * itemsize()); }
  const std::vector<int64_t>& shape() const { return shape_; }
  const std::string& typestr() const { return typestr_; }
  void* data() const { return buffer_.data(); }

 private:
  std::vector<int64_t> shape_;
  std::string typestr_;
  DeviceBuffer buffer_;
};

std::vector<int64_t> shape_of(const py::array& array) {
  return std::vector<int64_t>(array.shape(), array.shape() + array.ndim());
}

DeviceArray from_host(const py::array& array) {
  if (!(array.flags() & py::array::c_style)) throw py::value_error("DeviceArray.from_host: array must be C-contiguous");
  DeviceArray device(shape_of(array), py::str(array.dtype().attr("str")).cast<std::string>());
  const void* host = array.data();
  py::gil_scoped_release release;  // the caller's array stays referenced by `array` meanwhile
  copy_to_device(device.data(), host, device.bytes());
  return device;
}

DeviceArray empty_poisoned(const std::vector<int64_t>& shape, const std::string& typestr) {
  DeviceArray device(shape, typestr);
  fill_nan_bytes(device.data(), device.bytes(), 0);
  return device;
}

py::array to_host(const DeviceArray& device) {
  py::array host(py::dtype(device.typestr()), device.shape());
  void* dst = host.mutable_data();
  py::gil_scoped_release release;
  copy_to_host(dst, device.data(), device.bytes());  // on the legacy stream: waits for the kernels before it
  return host;
}

py::dict cuda_array_interface(const DeviceArray& device) {
  py::dict interface;
  interface["shape"] = py::tuple(py::cast(device.shape()));
  interface["typestr"] = device.typestr();
  interface["data"] = py::make_tuple(reinterpret_cast<std::uintptr_t>(device.data()), false);
  interface["strides"] = py::none();
  interface["version"] = 3;
  return interface;
}

}  // namespace

void register_device(py::module_& m) {
  py::class_<DeviceArray>(m, "DeviceArray", "C-contiguous device memory owned by fastamfm (float32, int32 or int64).")
      .def_static("from_host", &from_host, py::arg("array"), "Upload a C-contiguous numpy array.")
      .def_static("empty", &empty_poisoned, py::arg("shape"), py::arg("typestr"),
                  "Allocate; every byte is 0xFF, so float32 elements read NaN until written.")
      .def("to_host", &to_host, "Copy back into a new numpy array (waits for pending kernels).")
      .def_property_readonly("shape", [](const DeviceArray& a) { return py::tuple(py::cast(a.shape())); })
      .def_property_readonly("typestr", &DeviceArray::typestr)
      .def_property_readonly("__cuda_array_interface__", &cuda_array_interface);
  m.def("synchronize", &synchronize, py::arg("stream") = 0, "Wait for the work queued on a stream.");
  m.def("copy_bandwidth_gbps", &copy_bandwidth_gbps, py::arg("bytes") = std::size_t{1} << 30, py::arg("repeats") = 20,
        py::call_guard<py::gil_scoped_release>(),
        "Device-to-device copy bandwidth (GB/s, read + write), median of timed copies.");
}

}  // namespace fastamfm::cuda::bindings
