#include "space_split.hpp"

#include <algorithm>
#include <string>

#include "tokenizer.hpp"
#include "utf8.hpp"

namespace fastamfm {

namespace {

// text without the leading and trailing characters Python's str.strip() removes.
std::string_view strip_python_whitespace(std::string_view text) {
  size_t begin = text.size(), end = 0, pos = 0;
  while (pos < text.size()) {
    const size_t start = pos;
    if (!is_python_whitespace(decode_utf8(text, pos))) {
      begin = std::min(begin, start);
      end = pos;
    }
  }
  return begin >= end ? std::string_view() : text.substr(begin, end - begin);
}

}  // namespace

TokenizedBatch split_on_spaces(const TextBatch& texts, bool lowercase, int workers, const InterruptCheck& interrupted) {
  constexpr size_t kPartSize = 4096;
  const size_t n = texts.size();
  const size_t parts = part_count(n, kPartSize);
  std::vector<TokenizedBatch> partial(parts);
  parallel_parts(
      parts, workers,
      [&](size_t p) {
        std::string lowered;
        for (size_t i = p * kPartSize; i < std::min(n, (p + 1) * kPartSize); ++i) {
          std::string_view text = strip_python_whitespace(texts[i]);
          if (lowercase) {
            lowered.assign(text.data(), text.size());
            for (char& c : lowered)
              if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + ('a' - 'A'));
            text = lowered;
          }
          size_t start = 0;
          for (size_t j = 0; j <= text.size(); ++j) {
            if (j == text.size() || text[j] == ' ') {
              partial[p].add_token(text.substr(start, j - start));
              start = j + 1;
            }
          }
          partial[p].end_sentence();
        }
      },
      interrupted);
  TokenizedBatch out;
  for (const auto& part : partial) out.append(part);
  return out;
}

}  // namespace fastamfm
