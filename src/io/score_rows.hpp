// Per-response score lines as `fastamfm score` writes them: jsonl records
// {"id": 12, "AM": 0.5, ...} or tsv rows "12\t0.5...". Numbers are printed as C's and
// Python's "%.9g" print them, so outputs do not depend on who formatted them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "parallel/parallel.hpp"

namespace fastamfm {

enum class ScoreRowFormat { Jsonl, Tsv };
ScoreRowFormat parse_score_row_format(const std::string& name);

// Row i holds id first_id + i and columns[c][i] for every column. `json_keys` are the
// column names already quoted and escaped as JSON strings (used by jsonl only).
// Each line ends with '\n'.
std::string format_score_rows(uint64_t first_id, const std::vector<const double*>& columns, size_t rows,
                              const std::vector<std::string>& json_keys, ScoreRowFormat format, int workers,
                              const InterruptCheck& interrupted = {});

}  // namespace fastamfm
