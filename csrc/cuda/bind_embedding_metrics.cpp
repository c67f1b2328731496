#include "cuda_bindings.hpp"
#include "embedding_metrics.cuh"

namespace fastamfm::cuda::bindings {

void register_embedding_metrics(py::module_& m) {
  m.def(
      "pool_token_vectors",
      [](py::handle token_ids, py::handle token_offsets, py::handle vectors, py::handle out,
         const std::string& pooling, Stream stream) {
        const auto ids = device_view(token_ids, "<i4", 1, "token_ids");
        const auto off = device_view(token_offsets, "<i8", 1, "token_offsets");
        const auto vec = device_view(vectors, "<f4", 2, "vectors");
        const auto o = writable_device_view(out, "<f4", 2, "out");
        if (pooling != "sum" && pooling != "extrema")
          throw py::value_error("pooling must be 'sum' or 'extrema', got '" + pooling + "'");
        if (off.shape[0] < 1) throw py::value_error("token_offsets: needs at least one element");
        expect_extent(o.shape[0], off.shape[0] - 1, "out rows (sentences)");
        expect_extent(o.shape[1], vec.shape[1], "out columns (the vectors' dims)");
        py::gil_scoped_release release;
        pool_token_vectors(static_cast<const int32_t*>(ids.data), static_cast<const int64_t*>(off.data),
                           off.shape[0] - 1, static_cast<const float*>(vec.data), vec.shape[1],
                           pooling == "sum" ? Pooling::sum : Pooling::extrema, static_cast<float*>(o.data), stream);
      },
      py::arg("token_ids"), py::arg("token_offsets"), py::arg("vectors"), py::arg("out"), py::arg("pooling"),
      py::arg("stream") = 0, "out[s] = sum or nlg-eval extrema of the token vectors of sentence s (device arrays).");

  m.def(
      "greedy_matching",
      [](py::handle hyp_ids, py::handle hyp_offsets, py::handle ref_ids, py::handle ref_token_offsets,
         py::handle ref_offsets, py::handle vectors, py::handle scores, Stream stream) {
        const auto h_ids = device_view(hyp_ids, "<i4", 1, "hyp_ids");
        const auto h_off = device_view(hyp_offsets, "<i8", 1, "hyp_offsets");
        const auto r_ids = device_view(ref_ids, "<i4", 1, "ref_ids");
        const auto r_tok = device_view(ref_token_offsets, "<i8", 1, "ref_token_offsets");
        const auto r_off = device_view(ref_offsets, "<i8", 1, "ref_offsets");
        const auto vec = device_view(vectors, "<f4", 2, "vectors");
        const auto s = writable_device_view(scores, "<f4", 1, "scores");
        if (h_off.shape[0] < 1 || r_tok.shape[0] < 1)
          throw py::value_error("hyp_offsets and ref_token_offsets need at least one element");
        const int64_t n = h_off.shape[0] - 1;
        expect_extent(r_off.shape[0], n + 1, "ref_offsets length (hypotheses + 1)");
        expect_extent(s.shape[0], n, "scores length");
        py::gil_scoped_release release;
        greedy_matching(static_cast<const int32_t*>(h_ids.data), static_cast<const int64_t*>(h_off.data), n,
                        static_cast<const int32_t*>(r_ids.data), static_cast<const int64_t*>(r_tok.data),
                        static_cast<const int64_t*>(r_off.data), static_cast<const float*>(vec.data), vec.shape[1],
                        static_cast<float*>(s.data), stream);
      },
      py::arg("hyp_ids"), py::arg("hyp_offsets"), py::arg("ref_ids"), py::arg("ref_token_offsets"),
      py::arg("ref_offsets"), py::arg("vectors"), py::arg("scores"), py::arg("stream") = 0,
      "scores[i] = max over the references of hypothesis i of Greedy Matching (device arrays).");
}

}  // namespace fastamfm::cuda::bindings
