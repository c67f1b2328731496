// Tokens exactly as pycocoevalcap's ROUGE-L sees nlg-eval's text: the line stripped of
// surrounding whitespace (nlg-eval's strip()), then split on single spaces
// (str.split(" ")). A run of k spaces therefore leaves k-1 empty tokens, a tab does
// not separate, and an empty text is one empty token. These empty tokens change
// the lengths ROUGE-L divides by (they occur in the DSTC-6 references).
#pragma once
#include <string>
#include <string_view>

#include "parallel/parallel.hpp"
#include "text/text_batch.hpp"
#include "text/tokenized_batch.hpp"

namespace fastamfm {

// text without the leading and trailing characters Python's str.strip() removes.
std::string_view strip_python_whitespace(std::string_view text);

// Calls emit(std::string_view token) for each token of one text, split as above.
// lowercase: ASCII letters only (the Python layer lowercases non-ASCII text first);
// `scratch` holds the lowercased text, so tokens stay valid until its next use.
template <class Emit>
void for_each_space_split_token(std::string_view text, bool lowercase, std::string& scratch, Emit&& emit) {
  text = strip_python_whitespace(text);
  if (lowercase) {
    scratch.assign(text.data(), text.size());
    for (char& c : scratch)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + ('a' - 'A'));
    text = scratch;
  }
  size_t start = 0;
  for (size_t j = 0; j <= text.size(); ++j) {
    if (j == text.size() || text[j] == ' ') {
      emit(text.substr(start, j - start));
      start = j + 1;
    }
  }
}

TokenizedBatch split_on_spaces(const TextBatch& texts, bool lowercase, int workers,
                               const InterruptCheck& interrupted = {});

}  // namespace fastamfm
