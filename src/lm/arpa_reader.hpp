// Reader of ARPA back-off language models (as written by KenLM's lmplz, SRILM,
// IRSTLM and fastamfm). Every problem is a FormatError "path:line: what":
// a missing \data\ header, sections out of order, a line with the wrong number of
// words for its section, an unparsable number, a word missing from the unigrams,
// a section with fewer or more entries than the data header declared, a file
// that stops before its end marker (truncated).
#pragma once
#include <string>

#include "lm/lm_content.hpp"
#include "parallel/parallel.hpp"

namespace fastamfm {

LmContent read_arpa(const std::string& path, const InterruptCheck& interrupted = {});

}  // namespace fastamfm
