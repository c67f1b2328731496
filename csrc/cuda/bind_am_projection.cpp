#include "am_projection.cuh"
#include "cuda_bindings.hpp"

namespace fastamfm::cuda::bindings {

void register_am_projection(py::module_& m) {
  m.def(
      "am_projection",
      [](py::handle indptr, py::handle indices, py::handle data, py::handle components, py::handle out,
         Stream stream) {
        const auto ip = device_view(indptr, "<i8", 1, "indptr");
        const auto ix = device_view(indices, "<i4", 1, "indices");
        const auto w = device_view(data, "<f4", 1, "data");
        const auto u = device_view(components, "<f4", 2, "components");
        const auto o = writable_device_view(out, "<f4", 2, "out");
        if (ip.shape[0] < 1) throw py::value_error("indptr: needs at least one element");
        const int64_t rows = ip.shape[0] - 1;
        expect_extent(w.shape[0], ix.shape[0], "data length (one weight per index)");
        expect_extent(o.shape[0], rows, "out rows");
        expect_extent(o.shape[1], u.shape[1], "out columns (the components' dims)");
        py::gil_scoped_release release;
        am_projection(static_cast<const int64_t*>(ip.data), static_cast<const int32_t*>(ix.data),
                      static_cast<const float*>(w.data), rows, static_cast<const float*>(u.data), u.shape[1],
                      static_cast<float*>(o.data), stream);
      },
      py::arg("indptr"), py::arg("indices"), py::arg("data"), py::arg("components"), py::arg("out"),
      py::arg("stream") = 0,
      "out = L2-normalised CSR rows x components (device arrays; term ids must be in range).");
}

}  // namespace fastamfm::cuda::bindings
