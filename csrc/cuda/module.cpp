// fastamfm._cuda: bindings of the CUDA kernels; the kernels live in *.cu beside this file.
#include <pybind11/pybind11.h>

#include "cuda_bindings.hpp"
#include "device.cuh"

namespace py = pybind11;

PYBIND11_MODULE(_cuda, m) {
  m.doc() = "fastamfm CUDA kernels";
  m.def("device_count", &fastamfm::cuda::device_count);
  m.def("set_device", &fastamfm::cuda::set_device, py::arg("device"));
  m.def("device_description", &fastamfm::cuda::device_description, py::arg("device") = 0);
  using namespace fastamfm::cuda::bindings;
  register_device(m);
  register_am_projection(m);
  register_cosine_max(m);
  register_embedding_metrics(m);
}
