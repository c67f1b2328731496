// Language model: counting, estimation, ARPA/binary files, queries and FM.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <functional>

#include "lm/arpa_reader.hpp"
#include "lm/arpa_writer.hpp"
#include "arrays.hpp"
#include "bindings.hpp"
#include "lm/lm_count_merge.hpp"
#include "lm/lm_counter.hpp"
#include "lm/lm_fluency.hpp"
#include "lm/lm_model.hpp"
#include "lm/lm_training.hpp"
#include "overlap/encoded_hypotheses.hpp"
#include "overlap/reference_set.hpp"

namespace fastamfm::bindings {

namespace {
using F64Array = py::array_t<double, py::array::c_style | py::array::forcecast>;
using U64Array = py::array_t<uint64_t, py::array::c_style | py::array::forcecast>;


TokenizedBatch tokenize_texts(py::handle texts, const Tokenizer& tokenizer, int workers, const char* what) {
  const TextBatch batch = to_text_batch(texts, what);
  const auto check = python_interrupt_check();
  return without_gil([&] { return tokenize_batch(batch, tokenizer, workers, check); });
}

// Estimates a model from counts (taken over: `counts` is left empty) -> (model, discount lines).
py::tuple train_model(const std::function<NgramCounts()>& take_counts, const std::string& smoothing,
                      std::array<double, 3> fallback, std::vector<uint64_t> gtmin, std::vector<uint64_t> gtmax,
                      double prune, const std::string& tokenizer, int workers) {
  LmTrainOptions options;
  options.smoothing = parse_lm_smoothing(smoothing);
  options.discount_fallback = fallback;
  options.gtmin = std::move(gtmin);
  options.gtmax = std::move(gtmax);
  options.prune = prune;
  options.tokenizer = tokenizer;
  options.workers = resolve_workers(workers);
  std::vector<std::string> discounts;
  auto model = without_gil([&] { return std::make_shared<NgramModel>(train_lm(take_counts(), options, discounts)); });
  return py::make_tuple(model, discounts);
}

py::tuple counts_state(const NgramCounts& counts) {
  py::list orders;
  for (const GramArray& grams : counts.orders) orders.append(py::make_tuple(to_array(grams.ids), to_array(grams.counts)));
  return py::make_tuple(counts.words, orders, counts.sentences, counts.tokens, counts.spilled_runs,
                        counts.closed_vocabulary);
}

NgramCounts counts_from_state(const py::tuple& state) {
  if (state.size() != 6) throw py::value_error("NgramCounts: invalid pickled state");
  NgramCounts counts;
  counts.words = state[0].cast<std::vector<std::string>>();
  int n = 0;
  for (py::handle order : state[1].cast<py::list>()) {
    const auto pair = order.cast<py::tuple>();
    GramArray grams;
    grams.n = ++n;
    grams.ids = to_vector<uint32_t>(pair[0]);
    grams.counts = to_vector<uint64_t>(pair[1]);
    counts.orders.push_back(std::move(grams));
  }
  counts.sentences = state[2].cast<uint64_t>();
  counts.tokens = state[3].cast<uint64_t>();
  counts.spilled_runs = state[4].cast<uint64_t>();
  counts.closed_vocabulary = state[5].cast<bool>();
  validate_ngram_counts(counts);
  return counts;
}
}  // namespace

void register_lm(py::module_& m) {
  // NgramCounts first: NgramCounter.finish returns it, and a signature names only types
  // registered before it.
  py::class_<NgramCounts>(m, "NgramCounts",
                          "The n-gram counts of (a part of) a corpus: picklable, merged with merge_ngram_counts")
      .def_property_readonly("order", [](const NgramCounts& c) { return c.orders.size(); })
      .def_property_readonly("vocabulary_size", [](const NgramCounts& c) { return c.words.size(); })
      .def_property_readonly("sentences", [](const NgramCounts& c) { return c.sentences; })
      .def_property_readonly("tokens", [](const NgramCounts& c) { return c.tokens; })
      .def_property_readonly("spilled_runs", [](const NgramCounts& c) { return c.spilled_runs; })
      .def("counts",
           [](const NgramCounts& c) {
             std::vector<size_t> sizes;
             for (const GramArray& grams : c.orders) sizes.push_back(grams.size());
             return sizes;
           },
           "Number of distinct n-grams of each order")
      .def(py::pickle(&counts_state, &counts_from_state));

  py::class_<NgramCounter>(m, "NgramCounter")
      .def(py::init([](int order, size_t memory_budget, std::string temp_dir, int workers, const Tokenizer& tokenizer,
                       const std::vector<std::string>& vocabulary) {
             return new NgramCounter(CounterOptions{order, memory_budget, std::move(temp_dir), workers}, tokenizer,
                                     vocabulary);
           }),
           py::arg("order"), py::arg("memory_budget"), py::arg("temp_dir"), py::arg("workers"), py::arg("tokenizer"),
           py::arg("vocabulary"))
      .def(
          "add",
          [](NgramCounter& counter, py::handle texts) {
            const TextBatch batch = to_text_batch(texts, "corpus");
            const auto check = python_interrupt_check();
            without_gil([&] {
              counter.add(batch, check);
              return 0;
            });
          },
          py::arg("texts"))
      .def(
          "add_file",
          [](NgramCounter& counter, const std::string& path) {
            const auto check = python_interrupt_check();
            without_gil([&] {
              counter.add_file(path, check);
              return 0;
            });
          },
          py::arg("path"))
      .def(
          "finish",
          [](NgramCounter& counter) {
            const auto check = python_interrupt_check();
            return without_gil([&] { return counter.finish(check); });
          },
          "The sorted counts (NgramCounts), handed over: the counter cannot be used afterwards")
      .def_property_readonly("sentences", &NgramCounter::sentences)
      .def_property_readonly("tokens", &NgramCounter::tokens)
      .def_property_readonly("spilled_runs", &NgramCounter::spilled_runs);


  m.def(
      "merge_ngram_counts",
      [](const NgramCounts& first, const NgramCounts& second, int workers) {
        resolve_workers(workers);
        return without_gil([&] { return merge_ngram_counts(first, second, workers); });
      },
      py::arg("first"), py::arg("second"), py::arg("workers") = -1,
      "The counts of first's sentences followed by second's (see lm_count_merge.hpp)");

  py::class_<NgramModel, std::shared_ptr<NgramModel>>(m, "NgramModel")
      .def_static(
          "train",
          [](NgramCounter& counter, const std::string& smoothing, std::array<double, 3> fallback,
             std::vector<uint64_t> gtmin, std::vector<uint64_t> gtmax, double prune, const std::string& tokenizer,
             int workers) {
            const auto check = python_interrupt_check();
            return train_model([&] { return counter.finish(check); }, smoothing, fallback, std::move(gtmin),
                               std::move(gtmax), prune, tokenizer, workers);
          },
          py::arg("counter"), py::arg("smoothing"), py::arg("discount_fallback"), py::arg("gtmin"),
          py::arg("gtmax"), py::arg("prune"), py::arg("tokenizer"), py::arg("workers"))
      .def_static(
          "train",
          [](NgramCounts& counts, const std::string& smoothing, std::array<double, 3> fallback,
             std::vector<uint64_t> gtmin, std::vector<uint64_t> gtmax, double prune, const std::string& tokenizer,
             int workers) {
            require_counts_not_taken(counts);
            return train_model([&] { return std::move(counts); }, smoothing, fallback, std::move(gtmin),
                               std::move(gtmax), prune, tokenizer, workers);
          },
          py::arg("counts"), py::arg("smoothing"), py::arg("discount_fallback"), py::arg("gtmin"),
          py::arg("gtmax"), py::arg("prune"), py::arg("tokenizer"), py::arg("workers"),
          "The same from counts (which are taken over: empty afterwards)")
      .def_static(
          "load",
          [](const std::string& path, bool mmap) {
            const auto check = python_interrupt_check();
            return without_gil([&] {
              if (NgramModel::is_binary_file(path)) return std::make_shared<NgramModel>(NgramModel::load(path, mmap));
              return std::make_shared<NgramModel>(NgramModel::build(read_arpa(path, check)));
            });
          },
          py::arg("path"), py::arg("mmap") = true)
      .def_static("is_binary_file", &NgramModel::is_binary_file, py::arg("path"))
      .def(
          "save",
          [](const NgramModel& model, const std::string& path) {
            without_gil([&] {
              model.save(path);
              return 0;
            });
          },
          py::arg("path"))
      .def(
          "save_arpa",
          [](const NgramModel& model, const std::string& path) {
            const auto check = python_interrupt_check();
            without_gil([&] {
              write_arpa(model, path, check);
              return 0;
            });
          },
          py::arg("path"))
      .def_property_readonly("order", &NgramModel::order)
      .def_property_readonly("vocabulary_size", &NgramModel::vocab_size)
      .def_property_readonly("checksum", &NgramModel::checksum)
      .def_property_readonly("metadata", [](const NgramModel& model) { return std::string(model.metadata()); })
      .def("counts", [](const NgramModel& model) {
        std::vector<size_t> counts;
        for (int n = 1; n <= model.order(); ++n) counts.push_back(model.count(n));
        return counts;
      })
      .def("words", [](const NgramModel& model) {
        py::list out(model.vocab_size());
        for (size_t i = 0; i < model.vocab_size(); ++i) {
          const std::string_view w = model.word(i);
          out[i] = py::str(w.data(), w.size());
        }
        return out;
      })
      .def(
          "score",
          [](const NgramModel& model, py::handle texts, const Tokenizer& tokenizer, bool bos, bool eos, int workers) {
            const TextBatch batch = to_text_batch(texts, "sentences");
            resolve_workers(workers);
            const auto check = python_interrupt_check();
            return to_array(
                without_gil([&] { return score_texts(model, batch, tokenizer, bos, eos, workers, check); }));
          },
          py::arg("sentences"), py::arg("tokenizer"), py::arg("bos"), py::arg("eos"), py::arg("workers"))
      .def(
          "token_scores",
          [](const NgramModel& model, py::handle texts, const Tokenizer& tokenizer, bool bos, bool eos, int workers) {
            const TokenizedBatch batch = tokenize_texts(texts, tokenizer, workers, "sentences");
            const auto check = python_interrupt_check();
            std::vector<TokenScore> scores;
            std::vector<uint64_t> offsets;
            without_gil([&] {
              token_scores_batch(model, batch, bos, eos, workers, scores, offsets, check);
              return 0;
            });
            py::array_t<float> log10(scores.size());
            py::array_t<uint8_t> length(scores.size());
            py::array_t<bool> oov(scores.size());
            auto l = log10.mutable_unchecked<1>();
            auto n = length.mutable_unchecked<1>();
            auto o = oov.mutable_unchecked<1>();
            for (size_t i = 0; i < scores.size(); ++i) {
              l(i) = scores[i].log10_prob;
              n(i) = scores[i].ngram_length;
              o(i) = scores[i].oov;
            }
            return py::make_tuple(log10, length, oov, to_array(offsets));
          },
          py::arg("sentences"), py::arg("tokenizer"), py::arg("bos"), py::arg("eos"), py::arg("workers"))
      .def(
          "hypothesis_probabilities",
          [](const NgramModel& model, const EncodedHypotheses& hyps, const std::string& normalization,
             const std::string& oov, int workers) {
            const FluencyNormalization norm = parse_fluency_normalization(normalization);
            const FluencyOov unknown = parse_fluency_oov(oov);
            const auto check = python_interrupt_check();
            return to_array(
                without_gil([&] { return sentence_probabilities(model, hyps.tokens, norm, unknown, workers, check); }));
          },
          py::arg("hyps"), py::arg("normalization"), py::arg("oov"), py::arg("workers"),
          "FM's normalised sentence probability of each hypothesis.")
      .def(
          "reference_probabilities",
          [](const NgramModel& model, const ReferenceSet& refs, const std::string& normalization, const std::string& oov,
             int workers) {
            const FluencyNormalization norm = parse_fluency_normalization(normalization);
            const FluencyOov unknown = parse_fluency_oov(oov);
            const auto check = python_interrupt_check();
            return to_array(
                without_gil([&] { return sentence_probabilities(model, refs.tokens(), norm, unknown, workers, check); }));
          },
          py::arg("refs"), py::arg("normalization"), py::arg("oov"), py::arg("workers"),
          "FM's normalised sentence probability of each reference (flattened).");
  m.def(
      "fluency_from_probabilities",
      [](const F64Array& hyp_prob, const F64Array& ref_prob, const U64Array& segment_offsets,
         const std::string& combine) {
        const FluencyCombine comb = parse_fluency_combine(combine);
        // Copied out of the arrays while the GIL is held (one memcpy each).
        const std::vector<double> hyps = copy_elements(hyp_prob);
        const std::vector<double> refs = copy_elements(ref_prob);
        const std::vector<uint64_t> offsets = copy_elements(segment_offsets);
        return to_array(without_gil([&] { return fluency_from_probabilities(hyps, refs, offsets, comb); }));
      },
      py::arg("hyp_prob"), py::arg("ref_prob"), py::arg("segment_offsets"), py::arg("combine"),
      "FM per hypothesis: min/max ratio of its probability and each reference's, combined.");
}

}  // namespace fastamfm::bindings
