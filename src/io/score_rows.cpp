#include "io/score_rows.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "common/errors.hpp"

namespace fastamfm {

ScoreRowFormat parse_score_row_format(const std::string& name) {
  if (name == "jsonl") return ScoreRowFormat::Jsonl;
  if (name == "tsv") return ScoreRowFormat::Tsv;
  throw InputError("format must be 'jsonl' or 'tsv', got '" + name + "'");
}

namespace {

// "%.9g": std::to_chars with a precision is specified as printf's conversion. The
// non-finite spellings are Python's ("nan", "inf", "-inf").
void append_number(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "nan";
    return;
  }
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::general, 9);
  out.append(buffer, result.ptr);
}

void append_id(std::string& out, uint64_t id) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, id);
  out.append(buffer, result.ptr);
}

}  // namespace

std::string format_score_rows(uint64_t first_id, const std::vector<const double*>& columns, size_t rows,
                              const std::vector<std::string>& json_keys, ScoreRowFormat format, int workers,
                              const InterruptCheck& interrupted) {
  if (format == ScoreRowFormat::Jsonl && json_keys.size() != columns.size())
    throw InputError("format_score_rows: " + std::to_string(columns.size()) + " columns but " +
                     std::to_string(json_keys.size()) + " keys");
  constexpr size_t kPartRows = 8192;
  const size_t parts = part_count(rows, kPartRows);
  std::vector<std::string> texts(parts);
  parallel_parts(
      parts, workers,
      [&](size_t p) {
        std::string& out = texts[p];
        const size_t begin = p * kPartRows, end = std::min(rows, begin + kPartRows);
        out.reserve((end - begin) * (16 + 24 * columns.size()));
        for (size_t i = begin; i < end; ++i) {
          if (format == ScoreRowFormat::Jsonl) {
            out += "{\"id\": ";
            append_id(out, first_id + i);
            for (size_t c = 0; c < columns.size(); ++c) {
              out += ", ";
              out += json_keys[c];
              out += ": ";
              append_number(out, columns[c][i]);
            }
            out += "}\n";
          } else {
            append_id(out, first_id + i);
            for (const double* column : columns) {
              out += '\t';
              append_number(out, column[i]);
            }
            out += '\n';
          }
        }
      },
      interrupted);
  size_t total = 0;
  for (const auto& t : texts) total += t.size();
  std::string joined;
  joined.reserve(total);
  for (const auto& t : texts) joined += t;
  return joined;
}

}  // namespace fastamfm
