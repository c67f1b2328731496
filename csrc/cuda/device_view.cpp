#include <string>

#include "cuda_bindings.hpp"

namespace fastamfm::cuda::bindings {

int64_t DeviceView::size() const {
  int64_t total = 1;
  for (const int64_t extent : shape) total *= extent;
  return total;
}

namespace {

int64_t itemsize_of(const std::string& typestr) { return std::stoll(typestr.substr(2)); }

}  // namespace

DeviceView device_view(py::handle obj, const char* typestr, int ndim, const char* what) {
  if (!py::hasattr(obj, "__cuda_array_interface__"))
    throw py::type_error(std::string(what) + ": expected a CUDA device array (with __cuda_array_interface__), got " +
                         std::string(py::str(py::type::of(obj).attr("__name__"))));
  const py::dict interface = obj.attr("__cuda_array_interface__");
  const auto got_type = interface["typestr"].cast<std::string>();
  if (got_type != typestr)
    throw py::type_error(std::string(what) + ": expected a " + typestr + " device array, got " + got_type);
  DeviceView view;
  for (const py::handle extent : interface["shape"].cast<py::tuple>()) view.shape.push_back(extent.cast<int64_t>());
  if (static_cast<int>(view.shape.size()) != ndim)
    throw py::value_error(std::string(what) + ": expected " + std::to_string(ndim) + " dimension(s), got " +
                          std::to_string(view.shape.size()));
  if (interface.contains("strides") && !interface["strides"].is_none()) {
    // Explicit strides are allowed when they describe the C-contiguous layout anyway.
    const auto strides = interface["strides"].cast<py::tuple>();
    int64_t expected = itemsize_of(typestr);
    for (int axis = ndim - 1; axis >= 0; --axis) {
      if (view.shape[axis] > 1 && strides[axis].cast<int64_t>() != expected)
        throw py::value_error(std::string(what) + ": device array must be C-contiguous");
      expected *= view.shape[axis];
    }
  }
  const auto data = interface["data"].cast<py::tuple>();
  view.data = reinterpret_cast<void*>(data[0].cast<std::uintptr_t>());
  view.readonly = data[1].cast<bool>();
  if (view.data == nullptr && view.size() > 0)
    throw py::value_error(std::string(what) + ": device array has a null data pointer");
  return view;
}

DeviceView writable_device_view(py::handle obj, const char* typestr, int ndim, const char* what) {
  DeviceView view = device_view(obj, typestr, ndim, what);
  if (view.readonly) throw py::value_error(std::string(what) + ": device array is read-only");
  return view;
}

void expect_extent(int64_t actual, int64_t expected, const std::string& what) {
  if (actual != expected)
    throw py::value_error(what + ": expected " + std::to_string(expected) + ", got " + std::to_string(actual));
}

}  // namespace fastamfm::cuda::bindings
