// Writes a model as an ARPA file (atomically): what kenlm, SRILM and IRSTLM load.
// Numbers are written as the shortest decimal that reads back to the same float,
// so reading the file back gives the identical model.
#pragma once
#include <string>

#include "lm/lm_model.hpp"

namespace fastamfm {

void write_arpa(const NgramModel& model, const std::string& path, const InterruptCheck& interrupted = {});

}  // namespace fastamfm
