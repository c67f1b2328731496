// sacreBLEU, chrF/chrF++, rouge-score's ROUGE, Self-BLEU, pairwise matrices and the
// token-id forms: the metrics generation and RL code reaches for. Texts are copied into
// TextBatch (ids into TokenIdBatch) while the GIL is held; the core then runs with it
// released, on core objects only.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "arrays.hpp"
#include "bindings.hpp"
#include "overlap/bleu.hpp"
#include "overlap/chrf.hpp"
#include "overlap/rouge_score.hpp"
#include "overlap/self_bleu.hpp"

namespace fastamfm::bindings {

namespace {

using IdArray = py::array_t<uint64_t, py::array::c_style | py::array::forcecast>;

TokenIdBatch to_id_batch(const IdArray& ids, const IdArray& offsets, const char* what) {
  if (ids.ndim() != 1 || offsets.ndim() != 1 || offsets.size() < 1)
    throw py::value_error(std::string(what) + ": ids and offsets must be 1-d arrays");
  std::vector<uint64_t> o = copy_elements(offsets);
  if (o.front() != 0 || o.back() != static_cast<uint64_t>(ids.size()))
    throw py::value_error(std::string(what) + ": offsets must start at 0 and end at the number of ids");
  for (size_t i = 1; i < o.size(); ++i)
    if (o[i] < o[i - 1]) throw py::value_error(std::string(what) + ": offsets must not decrease");
  return TokenIdBatch(copy_elements(ids), std::move(o));
}

py::dict bleu_statistics_dict(const BleuStatistics& stats) {
  const size_t n = stats.size(), k = static_cast<size_t>(stats.max_order);
  py::dict out;
  out["hyp_len"] = to_array(stats.hyp_len);
  out["ref_len"] = to_array(stats.ref_len);
  out["guess"] = to_matrix(stats.guess, n, k);
  out["correct"] = to_matrix(stats.correct, n, k);
  return out;
}

std::vector<double> sentence_scores(const BleuStatistics& stats, BleuSmoothing smoothing, double smooth_value,
                                    bool effective_order, bool tensorbleu) {
  const size_t k = static_cast<size_t>(stats.max_order);
  std::vector<double> out(stats.size());
  for (size_t i = 0; i < stats.size(); ++i) {
    const uint64_t* guess = &stats.guess[i * k];
    const uint64_t* correct = &stats.correct[i * k];
    out[i] = tensorbleu ? tensorbleu_bleu(stats.hyp_len[i], stats.ref_len[i], guess, correct, stats.max_order,
                                          smoothing, smooth_value)
                        : sacrebleu_bleu(stats.hyp_len[i], stats.ref_len[i], guess, correct, stats.max_order,
                                         smoothing, smooth_value, effective_order, kInterpreterSum);
  }
  return out;
}

py::tuple sacrebleu_text(py::handle hyps, py::handle flat_refs, const std::vector<uint64_t>& segment_offsets,
                         const Tokenizer& tokenizer, int max_order, const std::string& smooth, double smooth_value,
                         bool effective_order, int workers) {
  const TextBatch hyp_texts = to_text_batch(hyps, "hyps");
  const TextBatch ref_texts = to_text_batch(flat_refs, "references");
  const BleuSmoothing smoothing = parse_bleu_smoothing(smooth);
  const auto check = python_interrupt_check();
  const BleuStatistics stats = without_gil([&] {
    return bleu_statistics_from_text(hyp_texts, ref_texts, segment_offsets, tokenizer, max_order, RefLength::Closest,
                                     workers, check);
  });
  auto sentences = without_gil([&] { return sentence_scores(stats, smoothing, smooth_value, effective_order, false); });
  return py::make_tuple(to_array(sentences), bleu_statistics_dict(stats));
}

double sacrebleu_corpus(double hyp_len, double ref_len, const std::vector<uint64_t>& guess,
                        const std::vector<uint64_t>& correct, const std::string& smooth, double smooth_value,
                        bool effective_order) {
  if (guess.empty() || guess.size() != correct.size() || guess.size() > 16)
    throw py::value_error("sacrebleu: guess and correct must have one entry per order (1..16)");
  return sacrebleu_bleu(hyp_len, ref_len, guess.data(), correct.data(), static_cast<int>(guess.size()),
                        parse_bleu_smoothing(smooth), smooth_value, effective_order, kInterpreterSum);
}

py::tuple bleu_ids(const IdArray& hyp_ids, const IdArray& hyp_offsets, const IdArray& ref_ids,
                   const IdArray& ref_offsets, const std::vector<uint64_t>& segment_offsets, int max_order,
                   const std::string& smooth, double smooth_value, bool effective_order, const std::string& convention,
                   int workers) {
  const bool tensorbleu = convention == "tensorbleu";
  if (!tensorbleu && convention != "sacrebleu")
    throw py::value_error("convention must be 'sacrebleu' or 'tensorbleu', got '" + convention + "'");
  const BleuSmoothing smoothing = parse_bleu_smoothing(smooth);
  const TokenIdBatch hyps = to_id_batch(hyp_ids, hyp_offsets, "hyps");
  const TokenIdBatch refs = to_id_batch(ref_ids, ref_offsets, "refs");
  const auto check = python_interrupt_check();
  const BleuStatistics stats = without_gil([&] {
    return bleu_statistics_from_ids(hyps, refs, segment_offsets, max_order,
                                    tensorbleu ? RefLength::ClosestFirst : RefLength::Closest, workers, check);
  });
  auto sentences =
      without_gil([&] { return sentence_scores(stats, smoothing, smooth_value, effective_order, tensorbleu); });
  return py::make_tuple(to_array(sentences), bleu_statistics_dict(stats));
}

ChrfOptions chrf_options(int char_order, int word_order, double beta, bool whitespace, bool eps_smoothing,
                         bool lowercase) {
  ChrfOptions o{char_order, word_order, beta, whitespace, eps_smoothing, lowercase};
  check_chrf_options(o);
  return o;
}

py::tuple chrf_text(py::handle hyps, py::handle flat_refs, const std::vector<uint64_t>& segment_offsets, int char_order,
                    int word_order, double beta, bool whitespace, bool eps_smoothing, bool lowercase, int workers) {
  const ChrfOptions options = chrf_options(char_order, word_order, beta, whitespace, eps_smoothing, lowercase);
  const TextBatch hyp_texts = to_text_batch(hyps, "hyps");
  const TextBatch ref_texts = to_text_batch(flat_refs, "references");
  const auto check = python_interrupt_check();
  const ChrfSegments segments = without_gil([&] {
    const ChrfTexts h = chrf_texts(hyp_texts, options, workers, check);
    const ChrfTexts r = chrf_texts(ref_texts, options, workers, check);
    return chrf_segments(h, r, segment_offsets, options, workers, check);
  });
  return py::make_tuple(to_array(segments.scores),
                        to_matrix(segments.statistics, hyp_texts.size(), 3 * static_cast<size_t>(options.orders())));
}

double chrf_corpus(const std::vector<uint64_t>& statistics, int char_order, int word_order, double beta,
                   bool eps_smoothing) {
  const ChrfOptions options = chrf_options(char_order, word_order, beta, false, eps_smoothing, false);
  if (statistics.size() != 3 * static_cast<size_t>(options.orders()))
    throw py::value_error("chrf: statistics must hold 3 values per order");
  return chrf_score(statistics.data(), options);
}

py::array_t<float> chrf_pairwise_text(py::handle candidates, py::handle refs, int char_order, int word_order,
                                      double beta, bool whitespace, bool eps_smoothing, bool lowercase, int workers) {
  const ChrfOptions options = chrf_options(char_order, word_order, beta, whitespace, eps_smoothing, lowercase);
  const TextBatch c = to_text_batch(candidates, "candidates");
  const TextBatch r = to_text_batch(refs, "references");
  const auto check = python_interrupt_check();
  auto matrix = without_gil([&] {
    const ChrfTexts cn = chrf_texts(c, options, workers, check);
    const ChrfTexts rn = chrf_texts(r, options, workers, check);
    return chrf_pairwise(cn, rn, options, workers, check);
  });
  return adopt_matrix(std::move(matrix), c.size(), r.size());
}

py::array_t<double> rouge_text(py::handle hyps, py::handle flat_refs, const std::vector<uint64_t>& segment_offsets,
                               const Tokenizer& tokenizer, const std::vector<int>& types, int workers) {
  const TextBatch hyp_texts = to_text_batch(hyps, "hyps");
  const TextBatch ref_texts = to_text_batch(flat_refs, "references");
  const auto check = python_interrupt_check();
  auto scores = without_gil([&] {
    const RougeDocuments h = rouge_documents(hyp_texts, tokenizer, workers, check);
    const RougeDocuments r = rouge_documents(ref_texts, tokenizer, workers, check);
    return rouge_score_segments(h, r, segment_offsets, types, workers, check);
  });
  py::array_t<double> out({hyp_texts.size(), types.size(), size_t{3}});
  if (!scores.empty()) std::memcpy(out.mutable_data(), scores.data(), scores.size() * sizeof(double));
  return out;
}

py::array_t<double> rouge_ids(const IdArray& hyp_ids, const IdArray& hyp_offsets, const IdArray& ref_ids,
                              const IdArray& ref_offsets, const std::vector<uint64_t>& segment_offsets,
                              const std::vector<int>& types, int workers) {
  for (int t : types)
    if (t == kRougeLsum) throw py::value_error("rouge: token ids have no lines; use rougeL");
  RougeDocuments hyps = rouge_documents(to_id_batch(hyp_ids, hyp_offsets, "hyps"));
  RougeDocuments refs = rouge_documents(to_id_batch(ref_ids, ref_offsets, "refs"));
  const auto check = python_interrupt_check();
  auto scores = without_gil([&] { return rouge_score_segments(hyps, refs, segment_offsets, types, workers, check); });
  py::array_t<double> out({hyps.size(), types.size(), size_t{3}});
  if (!scores.empty()) std::memcpy(out.mutable_data(), scores.data(), scores.size() * sizeof(double));
  return out;
}

py::array_t<float> rouge_pairwise_text(py::handle candidates, py::handle refs, const Tokenizer& tokenizer, int type,
                                       int workers) {
  const TextBatch c = to_text_batch(candidates, "candidates");
  const TextBatch r = to_text_batch(refs, "references");
  const auto check = python_interrupt_check();
  auto matrix = without_gil([&] {
    const RougeDocuments cd = rouge_documents(c, tokenizer, workers, check);
    const RougeDocuments rd = rouge_documents(r, tokenizer, workers, check);
    return rouge_score_pairwise(cd, rd, type, workers, check);
  });
  return adopt_matrix(std::move(matrix), c.size(), r.size());
}

py::array_t<float> sacrebleu_pairwise_text(py::handle candidates, py::handle refs, const Tokenizer& tokenizer,
                                           int max_order, const std::string& smooth, double smooth_value,
                                           bool effective_order, int workers) {
  const BleuSmoothing smoothing = parse_bleu_smoothing(smooth);
  if (max_order < 1 || max_order > 16) throw py::value_error("sacrebleu: max_order must be in 1..16");
  const TextBatch c = to_text_batch(candidates, "candidates");
  const TextBatch r = to_text_batch(refs, "references");
  const auto check = python_interrupt_check();
  auto matrix = without_gil([&] {
    const TokenizedBatch ct = tokenize_batch(c, tokenizer, workers, check);
    const TokenizedBatch rt = tokenize_batch(r, tokenizer, workers, check);
    const NgramTable cn(ct, max_order, workers, check), rn(rt, max_order, workers, check);
    return sacrebleu_pairwise(ct, cn, rt, rn, max_order, smoothing, smooth_value, effective_order, kInterpreterSum,
                              workers, check);
  });
  return adopt_matrix(std::move(matrix), c.size(), r.size());
}

py::array_t<double> self_bleu_text(py::handle texts, const Tokenizer& tokenizer, int max_order, double epsilon,
                                   int workers) {
  const TextBatch batch = to_text_batch(texts, "hyps");
  const auto check = python_interrupt_check();
  return to_array(without_gil([&] {
    return self_bleu_scores(TokenIdBatch::of(tokenize_batch(batch, tokenizer, workers, check)), max_order, epsilon,
                            workers, check);
  }));
}

// References prepared once and kept on a fastamfm.References for every later system.
struct PreparedChrf {
  ChrfOptions options;
  ChrfTexts texts;
};

TokenIdBatch tokenized_ids(py::handle texts, const Tokenizer& tokenizer, int workers, const char* what) {
  const TextBatch batch = to_text_batch(texts, what);
  const auto check = python_interrupt_check();
  return without_gil([&] { return TokenIdBatch::of(tokenize_batch(batch, tokenizer, workers, check)); });
}

py::tuple sacrebleu_prepared(py::handle hyps, const TokenIdBatch& refs, const std::vector<uint64_t>& segment_offsets,
                             const Tokenizer& tokenizer, int max_order, const std::string& smooth, double smooth_value,
                             bool effective_order, int workers) {
  const BleuSmoothing smoothing = parse_bleu_smoothing(smooth);
  const TokenIdBatch hyp_ids = tokenized_ids(hyps, tokenizer, workers, "hyps");
  const auto check = python_interrupt_check();
  const BleuStatistics stats = without_gil([&] {
    return bleu_statistics_from_ids(hyp_ids, refs, segment_offsets, max_order, RefLength::Closest, workers, check);
  });
  auto sentences = without_gil([&] { return sentence_scores(stats, smoothing, smooth_value, effective_order, false); });
  return py::make_tuple(to_array(sentences), bleu_statistics_dict(stats));
}

py::tuple chrf_prepared(py::handle hyps, const PreparedChrf& refs, const std::vector<uint64_t>& segment_offsets,
                        double beta, bool eps_smoothing, int workers) {
  ChrfOptions options = refs.options;
  options.beta = beta;
  options.eps_smoothing = eps_smoothing;
  check_chrf_options(options);
  const TextBatch hyp_texts = to_text_batch(hyps, "hyps");
  const auto check = python_interrupt_check();
  const ChrfSegments segments = without_gil([&] {
    const ChrfTexts h = chrf_texts(hyp_texts, options, workers, check);
    return chrf_segments(h, refs.texts, segment_offsets, options, workers, check);
  });
  return py::make_tuple(to_array(segments.scores),
                        to_matrix(segments.statistics, hyp_texts.size(), 3 * static_cast<size_t>(options.orders())));
}

py::array_t<double> rouge_prepared(py::handle hyps, const RougeDocuments& refs,
                                   const std::vector<uint64_t>& segment_offsets, const Tokenizer& tokenizer,
                                   const std::vector<int>& types, int workers) {
  const TextBatch hyp_texts = to_text_batch(hyps, "hyps");
  const auto check = python_interrupt_check();
  auto scores = without_gil([&] {
    const RougeDocuments h = rouge_documents(hyp_texts, tokenizer, workers, check);
    return rouge_score_segments(h, refs, segment_offsets, types, workers, check);
  });
  py::array_t<double> out({hyp_texts.size(), types.size(), size_t{3}});
  if (!scores.empty()) std::memcpy(out.mutable_data(), scores.data(), scores.size() * sizeof(double));
  return out;
}

}  // namespace

void register_generation_metrics(py::module_& m) {
  py::class_<TokenIdBatch, std::shared_ptr<TokenIdBatch>>(m, "TokenIdBatch")
      .def(py::init([](py::handle texts, const Tokenizer& tokenizer, int workers) {
             return std::make_shared<TokenIdBatch>(tokenized_ids(texts, tokenizer, workers, "references"));
           }),
           py::arg("texts"), py::arg("tokenizer"), py::arg("workers") = -1,
           "Token ids of texts under a tokenizer (references prepared once for sacreBLEU).")
      .def_property_readonly("size", &TokenIdBatch::size);
  py::class_<PreparedChrf, std::shared_ptr<PreparedChrf>>(m, "ChrfTexts")
      .def(py::init([](py::handle texts, int char_order, int word_order, bool whitespace, bool lowercase, int workers) {
             const ChrfOptions options = chrf_options(char_order, word_order, 2.0, whitespace, false, lowercase);
             const TextBatch batch = to_text_batch(texts, "references");
             const auto check = python_interrupt_check();
             return without_gil([&] {
               return std::make_shared<PreparedChrf>(PreparedChrf{options, chrf_texts(batch, options, workers, check)});
             });
           }),
           py::arg("texts"), py::arg("char_order"), py::arg("word_order"), py::arg("whitespace"), py::arg("lowercase"),
           py::arg("workers") = -1, "Characters and words of texts as chrF compares them (references prepared once).");
  py::class_<RougeDocuments, std::shared_ptr<RougeDocuments>>(m, "RougeDocuments")
      .def(py::init([](py::handle texts, const Tokenizer& tokenizer, int workers) {
             const TextBatch batch = to_text_batch(texts, "references");
             const auto check = python_interrupt_check();
             return without_gil(
                 [&] { return std::make_shared<RougeDocuments>(rouge_documents(batch, tokenizer, workers, check)); });
           }),
           py::arg("texts"), py::arg("tokenizer"), py::arg("workers") = -1,
           "Tokens and lines of texts as rouge-score reads them (references prepared once).");
  m.def("sacrebleu", &sacrebleu_prepared, py::arg("hyps"), py::arg("refs"), py::arg("segment_offsets"),
        py::arg("tokenizer"), py::arg("max_order"), py::arg("smooth"), py::arg("smooth_value"),
        py::arg("effective_order"), py::arg("workers"), "sacrebleu's BLEU against prepared references.");
  m.def("chrf", &chrf_prepared, py::arg("hyps"), py::arg("refs"), py::arg("segment_offsets"), py::arg("beta"),
        py::arg("eps_smoothing"), py::arg("workers"), "sacrebleu's chrF against prepared references.");
  m.def("rouge_score", &rouge_prepared, py::arg("hyps"), py::arg("refs"), py::arg("segment_offsets"),
        py::arg("tokenizer"), py::arg("types"), py::arg("workers"), "rouge-score's ROUGE against prepared references.");
  m.def("sacrebleu", &sacrebleu_text, py::arg("hyps"), py::arg("flat_refs"), py::arg("segment_offsets"),
        py::arg("tokenizer"), py::arg("max_order"), py::arg("smooth"), py::arg("smooth_value"),
        py::arg("effective_order"), py::arg("workers"),
        "sacrebleu's BLEU: (sentence scores [n] on 0..100, per-segment statistics).");
  m.def("sacrebleu_corpus", &sacrebleu_corpus, py::arg("hyp_len"), py::arg("ref_len"), py::arg("guess"),
        py::arg("correct"), py::arg("smooth"), py::arg("smooth_value"), py::arg("effective_order"));
  m.def("bleu_ids", &bleu_ids, py::arg("hyp_ids"), py::arg("hyp_offsets"), py::arg("ref_ids"), py::arg("ref_offsets"),
        py::arg("segment_offsets"), py::arg("max_order"), py::arg("smooth"), py::arg("smooth_value"),
        py::arg("effective_order"), py::arg("convention"), py::arg("workers"),
        "Sentence BLEU of token-id sequences: (scores [n] on 0..100 (sacrebleu) or 0..1 (tensorbleu), statistics).");
  m.def("chrf", &chrf_text, py::arg("hyps"), py::arg("flat_refs"), py::arg("segment_offsets"), py::arg("char_order"),
        py::arg("word_order"), py::arg("beta"), py::arg("whitespace"), py::arg("eps_smoothing"), py::arg("lowercase"),
        py::arg("workers"), "sacrebleu's chrF: (sentence scores [n], statistics [n, 3 * orders]).");
  m.def("chrf_corpus", &chrf_corpus, py::arg("statistics"), py::arg("char_order"), py::arg("word_order"),
        py::arg("beta"), py::arg("eps_smoothing"));
  m.def("chrf_pairwise", &chrf_pairwise_text, py::arg("candidates"), py::arg("references"), py::arg("char_order"),
        py::arg("word_order"), py::arg("beta"), py::arg("whitespace"), py::arg("eps_smoothing"), py::arg("lowercase"),
        py::arg("workers"));
  m.def("rouge_score", &rouge_text, py::arg("hyps"), py::arg("flat_refs"), py::arg("segment_offsets"),
        py::arg("tokenizer"), py::arg("types"), py::arg("workers"),
        "rouge-score's ROUGE: [n, types, 3] precision, recall, F1 of the best reference per type.");
  m.def("rouge_ids", &rouge_ids, py::arg("hyp_ids"), py::arg("hyp_offsets"), py::arg("ref_ids"),
        py::arg("ref_offsets"), py::arg("segment_offsets"), py::arg("types"), py::arg("workers"));
  m.def("rouge_pairwise", &rouge_pairwise_text, py::arg("candidates"), py::arg("references"), py::arg("tokenizer"),
        py::arg("type"), py::arg("workers"));
  m.def("sacrebleu_pairwise", &sacrebleu_pairwise_text, py::arg("candidates"), py::arg("references"),
        py::arg("tokenizer"), py::arg("max_order"), py::arg("smooth"), py::arg("smooth_value"),
        py::arg("effective_order"), py::arg("workers"));
  m.def("self_bleu", &self_bleu_text, py::arg("texts"), py::arg("tokenizer"), py::arg("max_order"),
        py::arg("epsilon"), py::arg("workers"), "Self-BLEU of each text against the others (NLTK method1).");
}

}  // namespace fastamfm::bindings
