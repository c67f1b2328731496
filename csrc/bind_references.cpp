// ReferenceSet: references encoded once, shared by every metric.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "arrays.hpp"
#include "bindings.hpp"
#include "overlap/reference_set.hpp"

namespace fastamfm::bindings {

void register_references(py::module_& m) {
  py::class_<ReferenceSet, std::shared_ptr<ReferenceSet>>(m, "ReferenceSet")
      .def(py::init([](py::handle flat_refs, std::vector<uint64_t> segment_offsets, const Tokenizer& tokenizer,
                       int max_order, int workers) {
             TextBatch texts = to_text_batch(flat_refs, "references");
             const auto check = python_interrupt_check();
             return without_gil([&] {
               return std::make_shared<ReferenceSet>(texts, std::move(segment_offsets), tokenizer, max_order,
                                                     workers, check);
             });
           }),
           py::arg("flat_refs"), py::arg("segment_offsets"), py::arg("tokenizer"), py::arg("max_order") = 4,
           py::arg("workers") = -1)
      .def_property_readonly("num_segments", &ReferenceSet::num_segments)
      .def_property_readonly("num_references", &ReferenceSet::num_references)
      .def_property_readonly("max_order", &ReferenceSet::max_order)
      .def_property_readonly("tokenizer", &ReferenceSet::tokenizer)
      .def_property_readonly("segment_offsets",
                             [](const ReferenceSet& r) {
                               const auto& o = r.segment_offsets();
                               return to_array(o);
                             })
      .def_property_readonly("lengths",
                             [](const ReferenceSet& r) {
                               py::array_t<uint32_t> out(r.num_references());
                               auto v = out.mutable_unchecked<1>();
                               for (size_t i = 0; i < r.num_references(); ++i)
                                 v(i) = static_cast<uint32_t>(r.tokens().num_tokens(i));
                               return out;
                             })
      .def("tokens", [](const ReferenceSet& r, size_t ref) {
        if (ref >= r.num_references()) throw py::index_error("reference index out of range");
        return r.tokens().tokens(ref);
      })
      .def("ngram_counts",
           [](const ReferenceSet& r, size_t ref, int order) {
             if (ref >= r.num_references()) throw py::index_error("reference index out of range");
             if (order < 1 || order > r.max_order()) throw py::value_error("order out of range");
             py::dict out;
             for (const auto& e : r.ngrams().at(ref, order)) out[py::int_(e.key)] = e.count;
             return out;
           })
      .def_static("ngram_key", [](const std::vector<std::string>& tokens) {
        std::vector<TokenId> ids;
        for (const auto& t : tokens) ids.push_back(hash_token(t));
        return ngram_key(ids.data(), ids.size());
      });
}

}  // namespace fastamfm::bindings
