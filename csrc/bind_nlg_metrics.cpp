// BLEU, ROUGE-L, CIDEr-D and Distinct-n: the nlg-eval overlap metrics.
// Hypotheses are copied into a TextBatch while the GIL is held; tokenizing, n-gram
// counting and scoring then run on core objects only, with the GIL released.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <optional>

#include "bindings.hpp"
#include "bleu.hpp"
#include "cider.hpp"
#include "distinct.hpp"
#include "document_frequency.hpp"
#include "rouge_l.hpp"

namespace fastamfm::bindings {

namespace {

struct EncodedHypotheses {
  TokenizedBatch tokens;
  NgramTable ngrams;
};

EncodedHypotheses encode(const TextBatch& texts, const Tokenizer& tokenizer, int max_order, int workers,
                         const InterruptCheck& check) {
  EncodedHypotheses out;
  out.tokens = tokenize_batch(texts, tokenizer, workers, check);
  if (max_order > 0) out.ngrams = NgramTable(out.tokens, max_order, workers, check);
  return out;
}

template <class T>
py::array_t<T> to_array(const std::vector<T>& values) {
  py::array_t<T> out(static_cast<py::ssize_t>(values.size()));
  if (!values.empty()) std::memcpy(out.mutable_data(), values.data(), values.size() * sizeof(T));
  return out;
}

template <class T>
py::array_t<T> to_matrix(const std::vector<T>& values, size_t rows, size_t cols) {
  py::array_t<T> out({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(cols)});
  if (!values.empty()) std::memcpy(out.mutable_data(), values.data(), values.size() * sizeof(T));
  return out;
}

py::tuple bleu(py::handle hyps, const ReferenceSet& refs, int max_order, const std::string& ref_length,
               std::optional<std::string> smooth, double smooth_value, int workers) {
  const TextBatch texts = to_text_batch(hyps, "hyps");
  const RefLength length_mode = parse_ref_length(ref_length);
  const std::optional<BleuSmoothing> smoothing =
      smooth ? std::optional<BleuSmoothing>(parse_bleu_smoothing(*smooth)) : std::nullopt;
  const auto check = python_interrupt_check();
  BleuStatistics stats;
  std::vector<double> sentences;
  without_gil([&] {
    const EncodedHypotheses h = encode(texts, refs.tokenizer(), max_order, workers, check);
    stats = bleu_statistics(h.tokens, h.ngrams, refs, max_order, length_mode, workers, check);
    sentences = smoothing ? bleu_smoothed_segment_scores(stats, *smoothing, smooth_value) : bleu_segment_scores(stats);
    return 0;
  });
  const size_t n = stats.size(), k = static_cast<size_t>(max_order);
  py::dict statistics;
  statistics["hyp_len"] = to_array(stats.hyp_len);
  statistics["ref_len"] = to_array(stats.ref_len);
  statistics["guess"] = to_matrix(stats.guess, n, k);
  statistics["correct"] = to_matrix(stats.correct, n, k);
  return py::make_tuple(to_matrix(sentences, n, k), statistics);
}

py::array_t<double> bleu_corpus(double hyp_len, double ref_len, const std::vector<uint64_t>& guess,
                                const std::vector<uint64_t>& correct) {
  if (guess.empty() || guess.size() != correct.size())
    throw py::value_error("bleu: guess and correct must have one entry per order");
  std::vector<double> out(guess.size());
  bleu_from_totals(hyp_len, ref_len, guess.data(), correct.data(), static_cast<int>(guess.size()), out.data());
  return to_array(out);
}

py::array_t<double> rouge_l(py::handle hyps, const ReferenceSet& refs, double beta, const std::string& multi_ref,
                            int workers) {
  const TextBatch texts = to_text_batch(hyps, "hyps");
  const RougeMultiRef mode = parse_rouge_multi_ref(multi_ref);
  const auto check = python_interrupt_check();
  const std::vector<double> scores = without_gil([&] {
    const EncodedHypotheses h = encode(texts, refs.tokenizer(), 0, workers, check);
    return rouge_l_scores(h.tokens, refs, beta, mode, workers, check);
  });
  return to_array(scores);
}

py::array_t<double> cider(py::handle hyps, const CiderReferenceModel& model, double sigma, int workers) {
  const TextBatch texts = to_text_batch(hyps, "hyps");
  const auto check = python_interrupt_check();
  const std::vector<double> scores = without_gil([&] {
    const EncodedHypotheses h = encode(texts, model.references().tokenizer(), model.max_order(), workers, check);
    return cider_d_scores(h.tokens, h.ngrams, model, sigma, workers, check);
  });
  return to_array(scores);
}

py::dict distinct(py::handle texts, const std::vector<int>& orders, const Tokenizer& tokenizer, int workers) {
  const TextBatch batch = to_text_batch(texts, "hyps");
  const auto check = python_interrupt_check();
  const DistinctCounts counts = without_gil([&] {
    const TokenizedBatch tokens = tokenize_batch(batch, tokenizer, workers, check);
    return distinct_ngrams(tokens, orders, workers, check);
  });
  py::dict out;
  out["unique"] = to_matrix(counts.unique, batch.size(), orders.size());
  out["total"] = to_matrix(counts.total, batch.size(), orders.size());
  out["corpus_unique"] = to_array(counts.corpus_unique);
  out["corpus_total"] = to_array(counts.corpus_total);
  return out;
}

}  // namespace

void register_nlg_metrics(py::module_& m) {
  m.def("bleu", &bleu, py::arg("hyps"), py::arg("refs"), py::arg("max_order"), py::arg("ref_length"),
        py::arg("smooth"), py::arg("smooth_value"), py::arg("workers"),
        "(sentence scores [n, max_order], per-segment statistics) of BLEU.");
  m.def("bleu_corpus", &bleu_corpus, py::arg("hyp_len"), py::arg("ref_len"), py::arg("guess"), py::arg("correct"),
        "Corpus BLEU-1..k from summed statistics (pycocoevalcap's formula).");
  m.def("rouge_l", &rouge_l, py::arg("hyps"), py::arg("refs"), py::arg("beta"), py::arg("multi_ref"),
        py::arg("workers"));
  m.def("cider", &cider, py::arg("hyps"), py::arg("model"), py::arg("sigma"), py::arg("workers"));
  m.def("distinct", &distinct, py::arg("texts"), py::arg("orders"), py::arg("tokenizer"), py::arg("workers"));

  py::class_<DocumentFrequency, std::shared_ptr<DocumentFrequency>>(m, "DocumentFrequency")
      .def(py::init<int>(), py::arg("max_order") = 4)
      .def(
          "add",
          [](DocumentFrequency& df, const ReferenceSet& refs, int workers) {
            const auto check = python_interrupt_check();
            without_gil([&] {
              df.add(refs, workers, check);
              return 0;
            });
          },
          py::arg("refs"), py::arg("workers") = -1)
      .def_property_readonly("max_order", &DocumentFrequency::max_order)
      .def_property_readonly("num_segments", &DocumentFrequency::num_segments)
      .def_property_readonly("num_ngrams", &DocumentFrequency::num_ngrams)
      .def(
          "count",
          [](const DocumentFrequency& df, const std::vector<std::string>& ngram) {
            std::vector<TokenId> ids;
            for (const auto& t : ngram) ids.push_back(hash_token(t));
            return df.count(ngram_key(ids.data(), ids.size()));
          },
          py::arg("ngram"), "Segments whose references contain the n-gram given as a list of tokens.");

  py::class_<CiderReferenceModel, std::shared_ptr<CiderReferenceModel>>(m, "CiderReferenceModel")
      .def(py::init([](std::shared_ptr<ReferenceSet> refs, std::shared_ptr<DocumentFrequency> df, int workers) {
             const auto check = python_interrupt_check();
             return without_gil([&] { return std::make_shared<CiderReferenceModel>(refs, df, workers, check); });
           }),
           py::arg("refs"), py::arg("document_frequency"), py::arg("workers") = -1);
}

}  // namespace fastamfm::bindings
