// METEOR 1.5: resources (build from the jar's texts, cache, load) and batch scoring.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "arrays.hpp"
#include "bindings.hpp"
#include "meteor/meteor_normalizer.hpp"
#include "meteor/meteor_scorer.hpp"
#include "meteor/meteor_stemmer.hpp"

namespace fastamfm::bindings {

namespace {

// The jar's 23 statistics in its own order (MeteorStats.toString): 21 counts, then
// the two match totals derived from them.
constexpr size_t kRawStats = 4 + 4 * kMeteorStages + 1;
constexpr size_t kStatColumns = kRawStats + 2;

void write_stats(const MeteorStats& s, double* row) {
  size_t c = 0;
  row[c++] = s.test_length;
  row[c++] = s.reference_length;
  row[c++] = s.test_function_words;
  row[c++] = s.reference_function_words;
  for (size_t k = 0; k < kMeteorStages; ++k) {
    row[c++] = s.test_content[k];
    row[c++] = s.reference_content[k];
    row[c++] = s.test_function[k];
    row[c++] = s.reference_function[k];
  }
  row[c++] = s.chunks;
  row[c++] = s.test_matches();
  row[c++] = s.reference_matches();
}

MeteorStats read_stats(const double* row) {
  MeteorStats s;
  size_t c = 0;
  s.test_length = row[c++];
  s.reference_length = row[c++];
  s.test_function_words = row[c++];
  s.reference_function_words = row[c++];
  for (size_t k = 0; k < kMeteorStages; ++k) {
    s.test_content[k] = row[c++];
    s.reference_content[k] = row[c++];
    s.test_function[k] = row[c++];
    s.reference_function[k] = row[c++];
  }
  s.chunks = row[c++];
  return s;
}

py::array_t<double> stats_matrix(const std::vector<MeteorStats>& stats) {
  py::array_t<double> out({stats.size(), kStatColumns});
  for (size_t i = 0; i < stats.size(); ++i) write_stats(stats[i], out.mutable_data(static_cast<py::ssize_t>(i)));
  return out;
}

py::array_t<double> stats_row(const MeteorStats& stats) {
  py::array_t<double> out(static_cast<py::ssize_t>(kStatColumns));
  write_stats(stats, out.mutable_data());
  return out;
}

MeteorStageSet to_stage_set(const std::vector<bool>& stages) {
  if (stages.size() != kMeteorStages) throw InputError("meteor: stages must hold 4 flags (exact, stem, synonym, paraphrase)");
  MeteorStageSet set{};
  for (size_t i = 0; i < kMeteorStages; ++i) set[i] = stages[i];
  return set;
}

std::string bytes_of(const py::handle& h) { return h.is_none() ? std::string() : std::string(py::bytes(h.cast<py::bytes>())); }

}  // namespace

void register_meteor(py::module_& m) {
  py::class_<MeteorResources, std::shared_ptr<MeteorResources>>(m, "MeteorResources")
      .def_static(
          "build",
          [](py::bytes function_words, py::bytes synsets, py::bytes exceptions, py::bytes nonbreaking_prefixes,
             py::object paraphrases) {
            MeteorResourceTexts texts;
            texts.nonbreaking_prefixes = nonbreaking_prefixes;
            texts.function_words = function_words;
            texts.synsets = synsets;
            texts.exceptions = exceptions;
            texts.has_paraphrases = !paraphrases.is_none();
            texts.paraphrases = bytes_of(paraphrases);
            return std::const_pointer_cast<MeteorResources>(without_gil([&] { return MeteorResources::build(texts); }));
          },
          py::arg("function_words"), py::arg("synsets"), py::arg("exceptions"),
          py::arg("nonbreaking_prefixes"), py::arg("paraphrases") = py::none())
      .def_static(
          "load",
          [](const std::string& path, bool mmap) {
            return std::const_pointer_cast<MeteorResources>(
                without_gil([&] { return MeteorResources::load(path, mmap); }));
          },
          py::arg("path"), py::arg("mmap") = true)
      .def(
          "save", [](const MeteorResources& r, const std::string& path) { without_gil([&] { r.save(path); }); },
          py::arg("path"))
      .def_property_readonly("has_paraphrases", &MeteorResources::has_paraphrases)
      .def_property_readonly("num_paraphrases", &MeteorResources::num_paraphrases)
      .def_property_readonly("num_synonym_words", &MeteorResources::num_synonym_words)
      .def("is_function_word", &MeteorResources::is_function_word, py::arg("word"))
      .def("synonym_sets", &MeteorResources::synonym_sets, py::arg("word"));

  py::class_<MeteorReferences, std::shared_ptr<MeteorReferences>>(m, "MeteorReferences")
      .def(py::init([](py::handle flat_refs, std::vector<uint64_t> segment_offsets,
                       std::shared_ptr<MeteorResources> resources, std::vector<bool> stages, int workers) {
             const TextBatch refs = to_text_batch(flat_refs, "refs");
             const MeteorStageSet set = to_stage_set(stages);
             const auto check = python_interrupt_check();
             return without_gil([&] {
               return std::make_shared<MeteorReferences>(refs, std::move(segment_offsets), std::move(resources), set,
                                                         workers, check);
             });
           }),
           py::arg("flat_refs"), py::arg("segment_offsets"), py::arg("resources"), py::arg("stages"),
           py::arg("workers") = -1)
      .def_property_readonly("num_segments", &MeteorReferences::num_segments)
      .def_property_readonly("num_references", &MeteorReferences::num_references)
      .def(
          "score",
          [](const MeteorReferences& refs, py::handle hyps, int workers) {
            const TextBatch h = to_text_batch(hyps, "hyps");
            const auto check = python_interrupt_check();
            MeteorReferences::Result res = without_gil([&] { return refs.score(h, workers, check); });
            py::array_t<double> sentences = to_array(res.sentences);
            return py::make_tuple(res.corpus, sentences, stats_matrix(res.stats), stats_row(res.total));
          },
          py::arg("hyps"), py::arg("workers") = -1,
          "(corpus score, sentence scores, the jar's 23 statistics per segment, their corpus sum)");

  m.def(
      "meteor_corpus_score",
      [](const py::array_t<double, py::array::c_style | py::array::forcecast>& totals) {
        if (totals.ndim() != 1 || static_cast<size_t>(totals.size()) != kStatColumns)
          throw py::value_error("meteor_corpus_score: expected the " + std::to_string(kStatColumns) +
                                " corpus statistics");
        return meteor_score(read_stats(totals.data()));
      },
      py::arg("totals"), "METEOR of summed corpus statistics (the jar's 23, as MeteorReferences.score returns).");

  m.def(
      "meteor_normalize",
      [](const std::string& line, std::shared_ptr<MeteorResources> resources) {
        return meteor_normalize_words(line, resources.get());
      },
      py::arg("line"), py::arg("resources") = nullptr, "The words METEOR 1.5 (-norm, English) aligns for one line.");
  m.def("meteor_stem", &snowball_english_stem, py::arg("word"), "Snowball English stem of one word.");
}

}  // namespace fastamfm::bindings
