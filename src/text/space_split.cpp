#include "text/space_split.hpp"

#include <algorithm>
#include <string>

#include "text/tokenizer.hpp"
#include "text/utf8.hpp"

namespace fastamfm {

std::string_view strip_python_whitespace(std::string_view text) {
  size_t begin = 0;
  while (begin < text.size()) {
    size_t next = begin;
    if (!is_python_whitespace(decode_utf8(text, next))) break;
    begin = next;
  }
  size_t end = text.size();
  // Trailing ASCII is stripped byte by byte; a non-ASCII tail is decoded from the front.
  while (end > begin && static_cast<unsigned char>(text[end - 1]) < 0x80 &&
         is_python_whitespace(static_cast<unsigned char>(text[end - 1])))
    --end;
  if (end > begin && static_cast<unsigned char>(text[end - 1]) >= 0x80) {
    size_t last_kept = begin, pos = begin;
    while (pos < end) {
      if (!is_python_whitespace(decode_utf8(text, pos))) last_kept = pos;
    }
    end = last_kept;
  }
  return text.substr(begin, end - begin);
}

TokenizedBatch split_on_spaces(const TextBatch& texts, bool lowercase, int workers, const InterruptCheck& interrupted) {
  return tokenize_in_parts(texts, workers, interrupted, [&](std::string_view text, std::string& scratch, auto&& emit) {
    for_each_space_split_token(text, lowercase, scratch, emit);
  });
}

}  // namespace fastamfm
