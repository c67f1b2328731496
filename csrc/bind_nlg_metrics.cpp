// BLEU, ROUGE-L, CIDEr-D and Distinct-n: the nlg-eval overlap metrics.
// Hypotheses are copied into a TextBatch while the GIL is held; tokenizing, n-gram
// counting (overlap/encoded_hypotheses) and scoring then run on core objects only,
// with the GIL released.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <optional>

#include "arrays.hpp"
#include "bindings.hpp"
#include "overlap/bleu.hpp"
#include "overlap/cider.hpp"
#include "overlap/distinct.hpp"
#include "overlap/document_frequency.hpp"
#include "overlap/encoded_hypotheses.hpp"
#include "overlap/rouge_l.hpp"
#include "text/space_split.hpp"

namespace fastamfm::bindings {

namespace {

std::shared_ptr<EncodedHypotheses> encode(py::handle hyps, const Tokenizer& tokenizer, int max_order, int workers) {
  const TextBatch texts = to_text_batch(hyps, "hyps");
  const auto check = python_interrupt_check();
  return without_gil(
      [&] { return std::make_shared<EncodedHypotheses>(encode_hypotheses(texts, tokenizer, max_order, workers, check)); });
}


py::tuple bleu_result(const BleuStatistics& stats, std::optional<std::string> smooth, double smooth_value) {
  std::vector<double> sentences;
  if (smooth) {
    const BleuSmoothing smoothing = parse_bleu_smoothing(*smooth);
    sentences = without_gil([&] { return bleu_smoothed_segment_scores(stats, smoothing, smooth_value, kInterpreterSum); });
  } else {
    sentences = without_gil([&] { return bleu_segment_scores(stats); });
  }
  const size_t n = stats.size(), k = static_cast<size_t>(stats.max_order);
  py::dict statistics;
  statistics["hyp_len"] = to_array(stats.hyp_len);
  statistics["ref_len"] = to_array(stats.ref_len);
  statistics["guess"] = to_matrix(stats.guess, n, k);
  statistics["correct"] = to_matrix(stats.correct, n, k);
  return py::make_tuple(to_matrix(sentences, n, k), statistics);
}

py::tuple bleu_once(const EncodedHypotheses& hyps, const ReferenceSet& refs, int max_order,
                    const std::string& ref_length, std::optional<std::string> smooth, double smooth_value,
                    int workers) {
  check_same_tokenizer(hyps.tokenizer, refs.tokenizer(), "bleu");
  const RefLength length_mode = parse_ref_length(ref_length);
  if (smooth) parse_bleu_smoothing(*smooth);
  const auto check = python_interrupt_check();
  const BleuStatistics stats = without_gil(
      [&] { return bleu_statistics(hyps.tokens, hyps.ngrams, refs, max_order, length_mode, workers, check); });
  return bleu_result(stats, smooth, smooth_value);
}

py::tuple bleu_with_maxima(const EncodedHypotheses& hyps, const BleuReferenceCounts& ref_counts, int max_order,
                           const std::string& ref_length, std::optional<std::string> smooth, double smooth_value,
                           int workers) {
  check_same_tokenizer(hyps.tokenizer, ref_counts.references().tokenizer(), "bleu");
  const RefLength length_mode = parse_ref_length(ref_length);
  if (smooth) parse_bleu_smoothing(*smooth);
  const auto check = python_interrupt_check();
  const BleuStatistics stats = without_gil(
      [&] { return bleu_statistics(hyps.tokens, hyps.ngrams, ref_counts, max_order, length_mode, workers, check); });
  return bleu_result(stats, smooth, smooth_value);
}

py::tuple bleu_text(py::handle hyps, py::handle flat_refs, const std::vector<uint64_t>& segment_offsets,
                    const Tokenizer& tokenizer, int max_order, const std::string& ref_length,
                    std::optional<std::string> smooth, double smooth_value, int workers) {
  const TextBatch hyp_texts = to_text_batch(hyps, "hyps");
  const TextBatch ref_texts = to_text_batch(flat_refs, "references");
  const RefLength length_mode = parse_ref_length(ref_length);
  if (smooth) parse_bleu_smoothing(*smooth);
  const auto check = python_interrupt_check();
  const BleuStatistics stats = without_gil([&] {
    return bleu_statistics_from_text(hyp_texts, ref_texts, segment_offsets, tokenizer, max_order, length_mode, workers,
                                     check);
  });
  return bleu_result(stats, smooth, smooth_value);
}

py::array_t<double> bleu_corpus(double hyp_len, double ref_len, const std::vector<uint64_t>& guess,
                                const std::vector<uint64_t>& correct) {
  if (guess.empty() || guess.size() != correct.size())
    throw py::value_error("bleu: guess and correct must have one entry per order");
  std::vector<double> out(guess.size());
  bleu_from_totals(hyp_len, ref_len, guess.data(), correct.data(), static_cast<int>(guess.size()), out.data());
  return to_array(out);
}

// Tokens as the reference tool splits them, for scoring many systems against the
// same references (ROUGE-L's pycocoevalcap split_on_spaces).
struct TokenSequences {
  TokenizedBatch tokens;
};

TokenSequences split_texts(py::handle texts, bool lowercase, int workers) {
  const TextBatch batch = to_text_batch(texts, "references");
  const auto check = python_interrupt_check();
  return without_gil([&] { return TokenSequences{split_on_spaces(batch, lowercase, workers, check)}; });
}

py::array_t<double> rouge_l(const EncodedHypotheses& hyps, const ReferenceSet& refs, double beta,
                            const std::string& multi_ref, int workers) {
  check_same_tokenizer(hyps.tokenizer, refs.tokenizer(), "rouge_l");
  const RougeMultiRef mode = parse_rouge_multi_ref(multi_ref);
  const auto check = python_interrupt_check();
  return to_array(without_gil(
      [&] { return rouge_l_scores(hyps.tokens, refs.tokens(), refs.segment_offsets(), beta, mode, workers, check); }));
}

py::array_t<double> rouge_l_split_on_spaces(const TokenSequences& hyps, const TokenSequences& refs,
                                            const std::vector<uint64_t>& segment_offsets, double beta,
                                            const std::string& multi_ref, int workers) {
  const RougeMultiRef mode = parse_rouge_multi_ref(multi_ref);
  const auto check = python_interrupt_check();
  return to_array(without_gil(
      [&] { return rouge_l_scores(hyps.tokens, refs.tokens, segment_offsets, beta, mode, workers, check); }));
}

py::array_t<double> rouge_l_text(py::handle hyps, py::handle flat_refs, const std::vector<uint64_t>& segment_offsets,
                                 const Tokenizer& tokenizer, bool split_like_pycoco, double beta,
                                 const std::string& multi_ref, int workers) {
  const TextBatch hyp_texts = to_text_batch(hyps, "hyps");
  const TextBatch ref_texts = to_text_batch(flat_refs, "references");
  const RougeMultiRef mode = parse_rouge_multi_ref(multi_ref);
  const auto check = python_interrupt_check();
  return to_array(without_gil([&] {
    return rouge_l_scores_from_text(hyp_texts, ref_texts, segment_offsets, tokenizer, split_like_pycoco, beta, mode,
                                    workers, check);
  }));
}

py::array_t<double> cider(const EncodedHypotheses& hyps, const CiderReferenceModel& model, double sigma, int workers) {
  check_same_tokenizer(hyps.tokenizer, model.references().tokenizer(), "cider");
  const auto check = python_interrupt_check();
  return to_array(without_gil([&] { return cider_d_scores(hyps.tokens, hyps.ngrams, model, sigma, workers, check); }));
}

py::dict distinct(const EncodedHypotheses& hyps, const std::vector<int>& orders, int workers) {
  const auto check = python_interrupt_check();
  const DistinctCounts counts = without_gil([&] { return distinct_ngrams(hyps.tokens, orders, workers, check); });
  const size_t n = hyps.tokens.size();
  py::dict out;
  out["unique"] = to_matrix(counts.unique, n, orders.size());
  out["total"] = to_matrix(counts.total, n, orders.size());
  out["corpus_unique"] = to_array(counts.corpus_unique);
  out["corpus_total"] = to_array(counts.corpus_total);
  py::list keys;
  for (const auto& order_keys : counts.corpus_keys) keys.append(to_array(order_keys));
  out["corpus_keys"] = keys;
  return out;
}

}  // namespace

void register_nlg_metrics(py::module_& m) {
  m.attr("MAX_NGRAM_ORDER") = kMaxNgramOrder;
  py::class_<EncodedHypotheses, std::shared_ptr<EncodedHypotheses>>(m, "EncodedHypotheses")
      .def(py::init(&encode), py::arg("hyps"), py::arg("tokenizer"), py::arg("max_order"), py::arg("workers") = -1)
      .def_property_readonly("size", [](const EncodedHypotheses& h) { return h.tokens.size(); })
      .def_property_readonly("max_order", &EncodedHypotheses::max_order)
      .def_property_readonly("tokenizer", [](const EncodedHypotheses& h) { return h.tokenizer; })
      .def("tokens", [](const EncodedHypotheses& h, size_t i) {
        if (i >= h.tokens.size()) throw py::index_error("hypothesis index out of range");
        return h.tokens.tokens(i);
      });
  py::class_<BleuReferenceCounts, std::shared_ptr<BleuReferenceCounts>>(m, "BleuReferenceCounts")
      .def(py::init([](std::shared_ptr<ReferenceSet> refs, int max_order, int workers) {
             const auto check = python_interrupt_check();
             return without_gil([&] { return std::make_shared<BleuReferenceCounts>(refs, max_order, workers, check); });
           }),
           py::arg("refs"), py::arg("max_order"), py::arg("workers") = -1)
      .def_property_readonly("max_order", &BleuReferenceCounts::max_order);
  m.def("bleu", &bleu_once, py::arg("hyps"), py::arg("refs"), py::arg("max_order"), py::arg("ref_length"),
        py::arg("smooth"), py::arg("smooth_value"), py::arg("workers"),
        "BLEU against encoded references, clipping against each reference in turn.");
  m.def("bleu", &bleu_with_maxima, py::arg("hyps"), py::arg("ref_counts"), py::arg("max_order"),
        py::arg("ref_length"), py::arg("smooth"), py::arg("smooth_value"), py::arg("workers"),
        "BLEU against the per-segment maxima of references scored before. Both overloads return "
        "(sentence scores [n, max_order], per-segment statistics).");
  m.def("bleu_text", &bleu_text, py::arg("hyps"), py::arg("flat_refs"), py::arg("segment_offsets"),
        py::arg("tokenizer"), py::arg("max_order"), py::arg("ref_length"), py::arg("smooth"), py::arg("smooth_value"),
        py::arg("workers"), "BLEU straight from text (one-shot: no reference tables kept).");
  m.def("bleu_corpus", &bleu_corpus, py::arg("hyp_len"), py::arg("ref_len"), py::arg("guess"), py::arg("correct"),
        "Corpus BLEU-1..k from summed statistics (pycocoevalcap's formula).");
  py::class_<TokenSequences>(m, "TokenSequences")
      .def_property_readonly("size", [](const TokenSequences& t) { return t.tokens.size(); })
      .def("tokens", [](const TokenSequences& t, size_t i) {
        if (i >= t.tokens.size()) throw py::index_error("text index out of range");
        return t.tokens.tokens(i);
      });
  m.def("split_on_spaces", &split_texts, py::arg("texts"), py::arg("lowercase"), py::arg("workers"),
        "Texts stripped, then split on single spaces (pycocoevalcap's ROUGE-L view of nlg-eval's lines).");
  m.def("rouge_l", &rouge_l, py::arg("hyps"), py::arg("refs"), py::arg("beta"), py::arg("multi_ref"),
        py::arg("workers"));
  m.def("rouge_l_split_on_spaces", &rouge_l_split_on_spaces, py::arg("hyp_tokens"), py::arg("ref_tokens"),
        py::arg("segment_offsets"), py::arg("beta"), py::arg("multi_ref"), py::arg("workers"));
  m.def("rouge_l_text", &rouge_l_text, py::arg("hyps"), py::arg("flat_refs"), py::arg("segment_offsets"),
        py::arg("tokenizer"), py::arg("split_like_pycoco"), py::arg("beta"), py::arg("multi_ref"), py::arg("workers"),
        "ROUGE-L straight from text (one-shot: no reference tables kept).");
  m.def("distinct", &distinct, py::arg("hyps"), py::arg("orders"), py::arg("workers"));

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
      .def(
          "entries",
          [](const DocumentFrequency& df) {
            const std::vector<NgramCount> entries = df.entries();
            py::array_t<uint64_t> keys(static_cast<py::ssize_t>(entries.size()));
            py::array_t<uint32_t> counts(static_cast<py::ssize_t>(entries.size()));
            for (size_t i = 0; i < entries.size(); ++i) {
              keys.mutable_data()[i] = entries[i].key;
              counts.mutable_data()[i] = entries[i].count;
            }
            return py::make_tuple(keys, counts);
          },
          "(n-gram keys sorted, segment counts): the table's content, to merge or store it.")
      .def(
          "add_entries",
          [](DocumentFrequency& df, const py::array_t<uint64_t, py::array::c_style | py::array::forcecast>& keys,
             const py::array_t<uint32_t, py::array::c_style | py::array::forcecast>& counts, uint64_t segments) {
            if (keys.ndim() != 1 || counts.ndim() != 1 || keys.size() != counts.size())
              throw py::value_error("add_entries: keys and counts must be 1-d arrays of one length");
            const std::vector<uint64_t> key_values = copy_elements(keys);
            const std::vector<uint32_t> count_values = copy_elements(counts);
            std::vector<NgramCount> entries(key_values.size());
            for (size_t i = 0; i < entries.size(); ++i) entries[i] = NgramCount{key_values[i], count_values[i]};
            without_gil([&] {
              df.add_entries(entries, segments);
              return 0;
            });
          },
          py::arg("keys"), py::arg("counts"), py::arg("segments"),
          "Adds the entries of a table counted over `segments` other segments.")
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
  // After its model's class: a signature names only types registered before it.
  m.def("cider", &cider, py::arg("hyps"), py::arg("model"), py::arg("sigma"), py::arg("workers"));
}

}  // namespace fastamfm::bindings
