// Tokenizer, line reader and atomic writer bindings.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "arrays.hpp"
#include "bindings.hpp"
#include "common/exact_sum.hpp"
#include "io/atomic_file.hpp"
#include "io/line_reader.hpp"
#include "io/score_rows.hpp"
#include "text/tokenized_batch.hpp"
#include "text/tokenizer.hpp"
#include "text/unicode_punctuation.hpp"

namespace fastamfm::bindings {

namespace {
py::list to_token_lists(const TokenizedBatch& batch) {
  py::list out(batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    py::list tokens(batch.num_tokens(i));
    for (size_t j = 0; j < batch.num_tokens(i); ++j) {
      const std::string_view t = batch.token(i, j);
      tokens[j] = py::str(t.data(), t.size());
    }
    out[i] = std::move(tokens);
  }
  return out;
}

py::list to_str_list(const TextBatch& batch) {
  py::list out(batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    const std::string_view t = batch[i];
    out[i] = py::str(t.data(), t.size());
  }
  return out;
}
}  // namespace

void register_text(py::module_& m) {
  py::class_<Tokenizer>(m, "Tokenizer")
      .def(py::init([](const std::string& preset, bool lowercase) {
             return Tokenizer(TokenizerOptions{parse_tokenizer_preset(preset), lowercase});
           }),
           py::arg("preset") = "whitespace", py::arg("lowercase") = false)
      .def_property_readonly("preset", [](const Tokenizer& t) { return tokenizer_preset_name(t.options().preset); })
      .def_property_readonly("lowercase", &Tokenizer::lowercases)
      .def("describe", &Tokenizer::describe)
      .def("tokenize", [](const Tokenizer& t, const std::string& text) { return t.tokenize(text); })
      .def(
          "tokenize_batch",
          [](const Tokenizer& t, py::handle texts, int workers) {
            const TextBatch batch = to_text_batch(texts, "texts");
            const auto check = python_interrupt_check();
            TokenizedBatch tokens = without_gil([&] { return tokenize_batch(batch, t, workers, check); });
            return to_token_lists(tokens);
          },
          py::arg("texts"), py::arg("workers") = -1);

  py::class_<LineReader>(m, "LineReader")
      .def(py::init<std::string, size_t, uint64_t, uint64_t>(), py::arg("path"), py::arg("max_line_bytes") = 0,
           py::arg("start_offset") = 0, py::arg("first_line") = 0,
           "max_line_bytes 0: the limit in fastamfm.limits; start_offset/first_line: read from a line start")
      .def(
          "read_chunk",
          [](LineReader& r, size_t max_lines) {
            TextBatch batch;
            without_gil([&] { return r.read_into(batch, max_lines); });
            return to_str_list(batch);
          },
          py::arg("max_lines"))
      .def_property_readonly("line_number", &LineReader::line_number)
      .def_property_readonly("bytes_read", &LineReader::bytes_read)
      .def_property_readonly("path", &LineReader::path);

  m.def(
      "count_lines", [](const std::string& path) { return without_gil([&] { return count_lines(path); }); },
      py::arg("path"));

  m.def(
      "line_start_offsets",
      [](const std::string& path, uint64_t every) {
        LineIndex index = without_gil([&] { return line_start_offsets(path, every); });
        return py::make_tuple(to_array(index.offsets), index.lines);
      },
      py::arg("path"), py::arg("every"),
      "(byte offsets where lines 0, every, 2*every, ... start, number of lines) of a file");

  m.def(
      "write_file_atomic",
      [](const std::string& path, py::bytes data) {
        const std::string bytes = data;
        without_gil([&] {
          AtomicFile file(path);
          file.write(bytes);
          file.commit();
          return 0;
        });
      },
      py::arg("path"), py::arg("data"));

  m.def(
      "format_score_rows",
      [](uint64_t first_id, const std::vector<py::array_t<double, py::array::c_style | py::array::forcecast>>& columns,
         const std::vector<std::string>& json_keys, const std::string& format, int workers) {
        const ScoreRowFormat how = parse_score_row_format(format);
        std::vector<const double*> data;
        const size_t rows = columns.empty() ? 0 : static_cast<size_t>(columns[0].size());
        for (const auto& c : columns) {
          if (c.ndim() != 1 || static_cast<size_t>(c.size()) != rows)
            throw py::value_error("format_score_rows: columns must be 1-d arrays of one length");
          data.push_back(c.data());
        }
        const auto check = python_interrupt_check();
        const std::string text =
            without_gil([&] { return format_score_rows(first_id, data, rows, json_keys, how, workers, check); });
        return py::bytes(text);
      },
      py::arg("first_id"), py::arg("columns"), py::arg("json_keys"), py::arg("format"), py::arg("workers") = -1,
      "Score lines (jsonl records or tsv rows, numbers as '%.9g') of one chunk, as UTF-8 bytes.");

  m.def(
      "exact_sum",
      [](const py::array_t<double, py::array::c_style | py::array::forcecast>& values) -> py::object {
        const ExactSum sum = without_gil([&] { return exact_sum(values.data(), static_cast<size_t>(values.size())); });
        if (!sum.finite) return py::float_(sum.fallback);
        auto as_int = [](const std::vector<uint64_t>& limbs) {
          const py::bytes bytes(reinterpret_cast<const char*>(limbs.data()), limbs.size() * sizeof(uint64_t));
          return py::module_::import("builtins").attr("int").attr("from_bytes")(bytes, "little");
        };
        return as_int(sum.positive) - as_int(sum.negative);
      },
      py::arg("values"),
      "The exact sum of the values as an int, in units of 2**-1074 (a float when one is NaN or infinite).");

  m.def("is_non_ascii_punctuation", &is_non_ascii_punctuation, py::arg("code_point"),
        "Whether the amfm preset removes this non-ASCII character as punctuation.");
  m.attr("unicode_punctuation_version") = unicode_punctuation_version();

  m.def("resolve_workers", &resolve_workers, py::arg("workers"));
}

}  // namespace fastamfm::bindings
