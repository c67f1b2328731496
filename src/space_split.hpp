// Tokens exactly as pycocoevalcap's ROUGE-L sees nlg-eval's text: the line stripped of
// surrounding whitespace (nlg-eval's strip()), then split on single spaces
// (str.split(" ")). A run of k spaces therefore leaves k-1 empty tokens, a tab does
// not separate, and an empty text is one empty token. These empty tokens change
// the lengths ROUGE-L divides by (they occur in the DSTC-6 references).
#pragma once
#include "parallel.hpp"
#include "text_batch.hpp"
#include "tokenized_batch.hpp"

namespace fastamfm {

// lowercase: ASCII letters only (the Python layer lowercases non-ASCII text first).
TokenizedBatch split_on_spaces(const TextBatch& texts, bool lowercase, int workers,
                               const InterruptCheck& interrupted = {});

}  // namespace fastamfm
