// LSI: term-document building, the randomized-SVD passes, the model and AM scoring.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "lsi/adequacy.hpp"
#include "arrays.hpp"
#include "bindings.hpp"
#include "lsi/lsi_model.hpp"
#include "overlap/encoded_hypotheses.hpp"
#include "overlap/reference_set.hpp"
#include "lsi/sparse_products.hpp"
#include "lsi/term_document.hpp"

namespace fastamfm::bindings {

namespace {

using Progress = std::function<void(size_t, size_t)>;
using F64Array = py::array_t<double, py::array::c_style | py::array::forcecast>;
using F32Array = py::array_t<float, py::array::c_style | py::array::forcecast>;

// Calls the Python progress callback (if any) with the GIL; runs between chunks,
// when no worker thread is active.
ChunkProgress with_gil(const Progress& progress) {
  if (!progress) return {};
  return [progress](size_t done, size_t total) {
    py::gil_scoped_acquire acquire;
    progress(done, total);
  };
}


size_t checked_dims(const LsiModel& model, size_t dims) {
  if (dims == 0 || dims > model.dims())
    throw py::value_error("dims must be in 1.." + std::to_string(model.dims()) + " (the model's dimensions), got " +
                          std::to_string(dims));
  return dims;
}

}  // namespace

void register_lsi(py::module_& m) {
  py::class_<TermDocumentMatrix>(m, "TermDocumentMatrix")
      .def_static(
          "from_csr",
          [](size_t num_docs, size_t num_terms, py::array_t<int64_t, py::array::c_style | py::array::forcecast> indptr,
             py::array_t<int64_t, py::array::c_style | py::array::forcecast> indices, F64Array data,
             size_t chunk_bytes) {
            if (static_cast<size_t>(indptr.size()) != num_docs + 1)
              throw py::value_error("indptr must have rows + 1 = " + std::to_string(num_docs + 1) + " entries, got " +
                                    std::to_string(indptr.size()));
            const int64_t nnz = indptr.at(num_docs);
            if (nnz < 0 || indices.size() < nnz || data.size() < nnz)
              throw py::value_error("indices/data hold fewer entries than indptr promises");
            return without_gil([&] {
              return matrix_from_csr(num_docs, num_terms, indptr.data(), indices.data(), data.data(), chunk_bytes);
            });
          },
          py::arg("num_docs"), py::arg("num_terms"), py::arg("indptr"), py::arg("indices"), py::arg("data"),
          py::arg("chunk_bytes") = size_t{256} << 20)
      .def_property_readonly("num_terms", &TermDocumentMatrix::num_terms)
      .def_property_readonly("num_docs", &TermDocumentMatrix::num_docs)
      .def_property_readonly("nnz", &TermDocumentMatrix::nnz)
      .def_property_readonly("num_chunks", &TermDocumentMatrix::num_chunks)
      .def_property_readonly("on_disk", &TermDocumentMatrix::on_disk)
      .def(
          "multiply_gaussian",
          [](const TermDocumentMatrix& a, uint64_t seed, size_t l, int workers, const Progress& progress) {
            if (l == 0) throw py::value_error("l must be >= 1");
            resolve_workers(workers);
            py::array_t<double> y({a.num_terms(), l});
            double* out = y.mutable_data();
            const auto check = python_interrupt_check();
            without_gil([&] {
              multiply_gaussian(a, seed, l, out, workers, check, with_gil(progress));
              return 0;
            });
            return y;
          },
          py::arg("seed"), py::arg("l"), py::arg("workers") = -1, py::arg("progress") = nullptr)
      .def(
          "multiply_a_at",
          [](const TermDocumentMatrix& a, F64Array x, int workers, const Progress& progress) {
            if (x.ndim() != 2 || static_cast<size_t>(x.shape(0)) != a.num_terms() || x.shape(1) == 0)
              throw py::value_error("x must be terms x l = " + std::to_string(a.num_terms()) + " x l");
            resolve_workers(workers);
            const size_t l = static_cast<size_t>(x.shape(1));
            py::array_t<double> y({a.num_terms(), l});
            double* out = y.mutable_data();
            const double* in = x.data();
            const auto check = python_interrupt_check();
            without_gil([&] {
              multiply_a_at(a, in, l, out, workers, check, with_gil(progress));
              return 0;
            });
            return y;
          },
          py::arg("x"), py::arg("workers") = -1, py::arg("progress") = nullptr);

  py::class_<CountedDocuments>(m, "CountedDocuments",
                               "Documents tokenized and counted by count_documents, to be added to a "
                               "TermDocumentBuilder (picklable: sent between processes)")
      .def_property_readonly("num_docs", &CountedDocuments::num_docs)
      .def_property_readonly("nnz", [](const CountedDocuments& d) { return d.ids.size(); })
      .def(py::pickle(
          [](const CountedDocuments& d) {
            return py::make_tuple(to_array(d.offsets), to_array(d.ids), to_array(d.counts), to_array(d.type_ids),
                                  d.type_words);
          },
          [](py::tuple state) {
            if (state.size() != 5) throw py::value_error("CountedDocuments: invalid pickled state");
            CountedDocuments d;
            d.offsets = to_vector<uint64_t>(state[0]);
            d.ids = to_vector<TokenId>(state[1]);
            d.counts = to_vector<uint32_t>(state[2]);
            d.type_ids = to_vector<TokenId>(state[3]);
            d.type_words = state[4].cast<std::vector<std::string>>();
            d.validate();
            return d;
          }));

  m.def(
      "count_documents",
      [](py::handle texts, const Tokenizer& tokenizer, int workers) {
        const TextBatch batch = to_text_batch(texts, "corpus");
        resolve_workers(workers);
        const auto check = python_interrupt_check();
        return without_gil([&] { return count_documents(batch, tokenizer, workers, check); });
      },
      py::arg("texts"), py::arg("tokenizer"), py::arg("workers") = -1,
      "One document per text, tokenized and counted for TermDocumentBuilder.add_counted");

  py::class_<TermDocumentBuilder>(m, "TermDocumentBuilder")
      .def(py::init<Tokenizer, size_t, std::string>(), py::arg("tokenizer"), py::arg("chunk_bytes"),
           py::arg("spill_dir") = "")
      .def(
          "add",
          [](TermDocumentBuilder& b, py::handle texts, int workers) {
            const TextBatch batch = to_text_batch(texts, "corpus");
            resolve_workers(workers);
            const auto check = python_interrupt_check();
            without_gil([&] {
              b.add(batch, workers, check);
              return 0;
            });
          },
          py::arg("texts"), py::arg("workers") = -1)
      .def(
          "add_counted",
          [](TermDocumentBuilder& b, const CountedDocuments& documents) {
            without_gil([&] {
              b.add_counted(documents);
              return 0;
            });
          },
          py::arg("documents"))
      .def_property_readonly("num_docs", &TermDocumentBuilder::num_docs)
      .def_property_readonly("num_types", &TermDocumentBuilder::num_types)
      .def(
          "finish",
          [](TermDocumentBuilder& b, uint64_t min_count, uint64_t max_vocab, const std::string& weighting,
             int workers) {
            const Weighting w = parse_weighting(weighting);
            resolve_workers(workers);
            const auto check = python_interrupt_check();
            TermVocabulary vocabulary;
            std::unique_ptr<TermDocumentMatrix> matrix = without_gil([&] {
              return b.finish(VocabularyOptions{min_count, max_vocab}, w, vocabulary, workers, check);
            });
            py::array_t<double> weights = to_array(vocabulary.global_weights);
            return py::make_tuple(std::move(matrix), vocabulary.words, weights);
          },
          py::arg("min_count"), py::arg("max_vocab"), py::arg("weighting"), py::arg("workers") = -1);

  py::class_<LsiModel, std::shared_ptr<LsiModel>>(m, "LsiModel")
      .def(py::init([](std::vector<std::string> words, F64Array global_weights, F32Array components,
                       F64Array singular_values, const std::string& weighting, const Tokenizer& tokenizer,
                       uint64_t documents, uint64_t seed, uint64_t oversampling, uint64_t power_iterations,
                       uint64_t min_count, uint64_t max_vocab) {
             LsiSettings s;
             s.weighting = parse_weighting(weighting);
             s.tokenizer = tokenizer.options();
             s.documents = documents;
             s.seed = seed;
             s.oversampling = oversampling;
             s.power_iterations = power_iterations;
             s.min_count = min_count;
             s.max_vocab = max_vocab;
             if (components.ndim() != 2) throw py::value_error("components must be a 2-d array (terms x dims)");
             std::vector<double> w = copy_elements(global_weights);
             std::vector<float> c = copy_elements(components);
             std::vector<double> sv = copy_elements(singular_values);
             return std::make_shared<LsiModel>(std::move(words), std::move(w), std::move(c), std::move(sv), s);
           }),
           py::arg("words"), py::arg("global_weights"), py::arg("components"), py::arg("singular_values"),
           py::arg("weighting"), py::arg("tokenizer"), py::arg("documents"), py::arg("seed"),
           py::arg("oversampling"), py::arg("power_iterations"), py::arg("min_count"), py::arg("max_vocab"))
      .def_static(
          "load",
          [](const std::string& path, bool use_mmap) {
            return without_gil([&] { return LsiModel::load(path, use_mmap); });
          },
          py::arg("path"), py::arg("mmap") = true)
      .def(
          "save",
          [](const LsiModel& model, const std::string& path) {
            without_gil([&] {
              model.save(path);
              return 0;
            });
          },
          py::arg("path"))
      .def_property_readonly("vocabulary", [](const LsiModel& model) { return model.vocabulary().words(); })
      .def_property_readonly("components",
                             [](py::object self) {
                               const auto& model = self.cast<const LsiModel&>();
                               // A read-only view that keeps the model (and a mapped file) alive.
                               py::array_t<float> view({model.num_terms(), model.dims()}, model.components(), self);
                               py::detail::array_proxy(view.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
                               return view;
                             })
      .def_property_readonly("singular_values",
                             [](const LsiModel& model) {
                               const auto& s = model.singular_values();
                               return to_array(s);
                             })
      .def_property_readonly("global_weights",
                             [](const LsiModel& model) {
                               const auto& w = model.global_weights();
                               return to_array(w);
                             })
      .def_property_readonly("dims", &LsiModel::dims)
      .def_property_readonly("num_terms", &LsiModel::num_terms)
      .def_property_readonly("weighting", [](const LsiModel& model) { return weighting_name(model.settings().weighting); })
      .def_property_readonly("tokenizer", &LsiModel::tokenizer)
      .def_property_readonly("settings",
                             [](const LsiModel& model) {
                               const LsiSettings& s = model.settings();
                               py::dict d;
                               d["weighting"] = weighting_name(s.weighting);
                               d["documents"] = s.documents;
                               d["seed"] = s.seed;
                               d["oversampling"] = s.oversampling;
                               d["power_iterations"] = s.power_iterations;
                               d["min_count"] = s.min_count;
                               d["max_vocab"] = s.max_vocab;
                               return d;
                             })
      .def(
          "transform",
          [](const LsiModel& model, py::handle texts, size_t dims, int workers) {
            checked_dims(model, dims);
            const TextBatch batch = to_text_batch(texts, "sentences");
            resolve_workers(workers);
            const auto check = python_interrupt_check();
            py::array_t<double> out({batch.size(), dims});
            double* data = out.mutable_data();
            without_gil([&] {
              project_sentences(model, tokenize_batch(batch, model.tokenizer(), workers, check), dims, data, workers,
                                check);
              return 0;
            });
            return out;
          },
          py::arg("texts"), py::arg("dims"), py::arg("workers") = -1)
      .def(
          "unit_vectors",
          [](const LsiModel& model, py::handle texts, size_t dims, int workers) {
            checked_dims(model, dims);
            const TextBatch batch = to_text_batch(texts, "hyps");
            resolve_workers(workers);
            const auto check = python_interrupt_check();
            std::vector<float> v =
                without_gil([&] { return project_unit_vectors(model, batch, dims, workers, check); });
            return adopt_matrix(std::move(v), batch.size(), dims);
          },
          py::arg("texts"), py::arg("dims"), py::arg("workers") = -1)
      .def(
          "encoded_unit_vectors",
          [](const LsiModel& model, const EncodedHypotheses& hyps, size_t dims, int workers) {
            checked_dims(model, dims);
            check_same_tokenizer(hyps.tokenizer, model.tokenizer(), "adequacy");
            resolve_workers(workers);
            const auto check = python_interrupt_check();
            std::vector<float> v =
                without_gil([&] { return project_unit_vectors(model, hyps.tokens, dims, workers, check); });
            return adopt_matrix(std::move(v), hyps.size(), dims);
          },
          py::arg("hyps"), py::arg("dims"), py::arg("workers") = -1,
          "Unit vectors of hypotheses already tokenized with the model's tokenizer.")
      .def(
          "reference_unit_vectors",
          [](const LsiModel& model, const ReferenceSet& refs, size_t dims, int workers) {
            checked_dims(model, dims);
            resolve_workers(workers);
            const auto check = python_interrupt_check();
            std::vector<float> v =
                without_gil([&] { return project_unit_vectors(model, refs.tokens(), dims, workers, check); });
            return adopt_matrix(std::move(v), refs.num_references(), dims);
          },
          py::arg("references"), py::arg("dims"), py::arg("workers") = -1);

  m.def(
      "adequacy_scores",
      [](F32Array hyps, F32Array refs, py::array_t<uint64_t, py::array::c_style | py::array::forcecast> ref_offsets,
         const std::string& combine, int workers, bool clip) {
        const AdequacyCombine how = parse_adequacy_combine(combine);
        if (hyps.ndim() != 2 || refs.ndim() != 2 || hyps.shape(1) != refs.shape(1))
          throw py::value_error("hyps and refs must be 2-d arrays with the same number of columns");
        const size_t n = static_cast<size_t>(hyps.shape(0)), dims = static_cast<size_t>(hyps.shape(1));
        if (static_cast<size_t>(ref_offsets.size()) != n + 1 || ref_offsets.at(0) != 0 ||
            ref_offsets.at(n) != static_cast<uint64_t>(refs.shape(0)))
          throw py::value_error("ref_offsets must have n + 1 entries from 0 to the number of reference rows");
        resolve_workers(workers);
        py::array_t<double> out(n);
        double* data = out.mutable_data();
        const auto check = python_interrupt_check();
        without_gil([&] {
          adequacy_scores(hyps.data(), n, refs.data(), ref_offsets.data(), dims, how, clip, data, workers, check);
          return 0;
        });
        return out;
      },
      py::arg("hyps"), py::arg("refs"), py::arg("ref_offsets"), py::arg("combine") = "max", py::arg("workers") = -1,
      py::arg("clip") = true);
}

}  // namespace fastamfm::bindings
