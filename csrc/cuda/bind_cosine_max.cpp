#include "cosine_max.cuh"
#include "cuda_bindings.hpp"

namespace fastamfm::cuda::bindings {

void register_cosine_max(py::module_& m) {
  m.def(
      "cosine_over_references",
      [](py::handle queries, py::handle refs, py::handle ref_offsets, py::handle scores, const std::string& combine,
         bool clip, Stream stream) {
        const auto q = device_view(queries, "<f4", 2, "queries");
        const auto r = device_view(refs, "<f4", 2, "refs");
        const auto off = device_view(ref_offsets, "<i8", 1, "ref_offsets");
        const auto s = writable_device_view(scores, "<f4", 1, "scores");
        if (combine != "max" && combine != "mean")
          throw py::value_error("combine must be 'max' or 'mean', got '" + combine + "'");
        expect_extent(off.shape[0], q.shape[0] + 1, "ref_offsets length (queries + 1)");
        expect_extent(r.shape[1], q.shape[1], "refs dims");
        expect_extent(s.shape[0], q.shape[0], "scores length");
        py::gil_scoped_release release;
        cosine_over_references(static_cast<const float*>(q.data), q.shape[0], static_cast<const float*>(r.data),
                               static_cast<const int64_t*>(off.data), q.shape[1],
                               combine == "max" ? Combine::max : Combine::mean, clip, static_cast<float*>(s.data),
                               stream);
      },
      py::arg("queries"), py::arg("refs"), py::arg("ref_offsets"), py::arg("scores"), py::arg("combine") = "max",
      py::arg("clip") = true, py::arg("stream") = 0,
      "scores[i] = combine over refs[ref_offsets[i]:ref_offsets[i+1]] of cos(queries[i], ref) (device arrays; "
      "offsets must be valid).");
}

}  // namespace fastamfm::cuda::bindings
