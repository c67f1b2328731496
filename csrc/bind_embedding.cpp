// Word vectors and the embedding metrics (Embedding Average, Vector Extrema, Greedy Matching).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "arrays.hpp"
#include "bindings.hpp"
#include "vectors/embedding_metrics.hpp"
#include "overlap/reference_set.hpp"
#include "text/tokenized_batch.hpp"
#include "vectors/vector_file_reader.hpp"
#include "vectors/word_vectors.hpp"

namespace fastamfm::bindings {

namespace {

VectorFormat format_arg(const std::string& name) { return parse_vector_format(name); }

// An in-memory image from a vocabulary and a [V, k] matrix (LSI components).
std::shared_ptr<WordVectors> from_arrays(const std::vector<std::string>& words,
                                         const py::array_t<float, py::array::c_style | py::array::forcecast>& matrix,
                                         int workers) {
  if (matrix.ndim() != 2)
    throw py::value_error("vectors must be a 2-D array [words, dims], got " + std::to_string(matrix.ndim()) + " dims");
  const ParsedVectors parsed = parse_vector_matrix(words, matrix.data(), static_cast<size_t>(matrix.shape(0)),
                                                   static_cast<size_t>(matrix.shape(1)));
  return without_gil([&] { return WordVectors::from_parsed(parsed, SourceKey{}, workers); });
}

py::tuple embedding_scores(const EmbeddedReferences& refs, py::handle hyps, const Tokenizer& tokenizer, bool average,
                           bool extrema, bool greedy, const std::string& empty, const std::string& what, int workers) {
  const EmptyPolicy empty_policy = parse_empty_policy(empty);
  const TextBatch texts = to_text_batch(hyps, "hyps");
  const auto check = python_interrupt_check();
  EmbeddingScores scores = without_gil([&] {
    const TokenizedBatch tokens = tokenize_batch(texts, tokenizer, workers, check);
    return score_embedding_metrics(refs, tokens, EmbeddingMetricSelection{average, extrema, greedy},
                                   empty_policy, what, workers, check);
  });
  // A metric that was not asked for comes back as None.
  auto column = [](const std::vector<double>& v) -> py::object {
    if (v.empty()) return py::none();
    return to_array(v);
  };
  return py::make_tuple(column(scores.average), column(scores.extrema), column(scores.greedy));
}

}  // namespace

void register_embedding(py::module_& m) {
  py::class_<WordVectors, std::shared_ptr<WordVectors>>(m, "WordVectors")
      .def_static(
          "open",
          [](const std::string& cache_path, bool mmap) {
            return without_gil([&] { return WordVectors::open(cache_path, mmap); });
          },
          py::arg("cache_path"), py::arg("mmap") = true)
      .def_static(
          "load_uncached",
          [](const std::string& path, const std::string& format, int workers) {
            const VectorFormat f = format_arg(format);
            const auto check = python_interrupt_check();
            return without_gil([&] {
              const SourceKey key = source_key(path, f);
              return WordVectors::from_parsed(read_vector_file(path, f, workers, check), key, workers);
            });
          },
          py::arg("path"), py::arg("format"), py::arg("workers") = -1)
      .def_static("from_arrays", &from_arrays, py::arg("words"), py::arg("matrix"), py::arg("workers") = -1)
      .def_property_readonly("size", &WordVectors::size)
      .def_property_readonly("dim", &WordVectors::dim)
      .def_property_readonly("origin", &WordVectors::origin)
      .def_property_readonly("duplicates_dropped", [](const WordVectors& v) { return v.header().duplicates_dropped; })
      .def_property_readonly("source_head_hash", [](const WordVectors& v) { return v.header().source_head_hash; })
      .def_property_readonly("vectors",
                             [](std::shared_ptr<WordVectors> v) {
                               // A read-only view of the mapped (or owned) image; it keeps the image alive.
                               py::array_t<float> view({v->size(), v->dim()}, {v->dim() * sizeof(float), sizeof(float)},
                                                       v->data(), py::cast(v));
                               view.attr("setflags")(py::arg("write") = false);
                               return view;
                             })
      .def_property_readonly("mean",
                             [](const WordVectors& v) { return py::array_t<double>(v.dim(), v.mean()); })
      .def("words",
           [](const WordVectors& v) {
             py::list out(v.size());
             for (size_t r = 0; r < v.size(); ++r) {
               const std::string_view w = v.word(r);
               out[r] = py::str(w.data(), w.size());
             }
             return out;
           })
      .def(
          "find",
          [](const WordVectors& v, const std::string& word) {
            const uint32_t r = v.find(word);
            return r == WordVectors::kNotFound ? py::object(py::none()) : py::object(py::int_(r));
          },
          py::arg("word"));

  m.def(
      "detect_vector_format",
      [](const std::string& path) { return std::string(vector_format_name(without_gil([&] { return detect_vector_format(path); }))); },
      py::arg("path"));
  m.def(
      "vector_cache_is_current",
      [](const std::string& cache_path, const std::string& source, const std::string& format) {
        const VectorFormat f = format_arg(format);
        return without_gil([&] { return cache_is_current(cache_path, source_key(source, f)); });
      },
      py::arg("cache_path"), py::arg("source"), py::arg("format"));
  m.def(
      "build_vector_cache",
      [](const std::string& source, const std::string& format, const std::string& cache_path, int workers) {
        const VectorFormat f = format_arg(format);
        const auto check = python_interrupt_check();
        without_gil([&] {
          build_word_vectors_cache(source, f, cache_path, workers, check);
          return 0;
        });
      },
      py::arg("source"), py::arg("format"), py::arg("cache_path"), py::arg("workers") = -1);
  py::class_<EmbeddedReferences, std::shared_ptr<EmbeddedReferences>>(m, "EmbeddedReferences")
      .def(py::init([](std::shared_ptr<WordVectors> vectors, std::shared_ptr<ReferenceSet> refs, const std::string& oov,
                       bool keep_sentence_vectors, int workers) {
             const OovPolicy policy = parse_oov_policy(oov);
             const size_t budget = keep_sentence_vectors ? EmbeddedReferences::kFeatureBudgetBytes : 0;
             const auto check = python_interrupt_check();
             return without_gil(
                 [&] { return std::make_shared<EmbeddedReferences>(vectors, refs, policy, budget, workers, check); });
           }),
           py::arg("vectors"), py::arg("refs"), py::arg("oov"), py::arg("keep_sentence_vectors"),
           py::arg("workers") = -1);
  m.def("embedding_scores", &embedding_scores, py::arg("refs"), py::arg("hyps"), py::arg("tokenizer"), py::arg("average"), py::arg("extrema"), py::arg("greedy"), py::arg("empty"),
        py::arg("what"), py::arg("workers") = -1);
}

}  // namespace fastamfm::bindings
