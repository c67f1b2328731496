// The one tokenizer every metric shares.
//
// Presets:
//   whitespace  split on the characters Python's str.split() treats as whitespace,
//               which is what nlg-eval / pycocoevalcap do; nothing else changes.
//   amfm        the AM-FM toolkit's normalisation: NFKC, lowercase, punctuation
//               removed except apostrophe, hyphen and '%', which become tokens of
//               their own; then whitespace split.
// The core handles ASCII text completely. For text with non-ASCII characters the
// Unicode-database steps (NFKC, full lowercasing, non-ASCII punctuation) are applied
// by the Python layer before the text reaches the core (fastamfm/tokenize.py says why).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "utf8.hpp"

namespace fastamfm {

enum class TokenizerPreset { Whitespace, Amfm };

struct TokenizerOptions {
  TokenizerPreset preset = TokenizerPreset::Whitespace;
  bool lowercase = false;  // the amfm preset always lowercases
};

TokenizerPreset parse_tokenizer_preset(std::string_view name);
const char* tokenizer_preset_name(TokenizerPreset preset);

// True for the code points Python's str.isspace() accepts.
bool is_python_whitespace(uint32_t cp);

class Tokenizer {
 public:
  explicit Tokenizer(TokenizerOptions options = {});

  const TokenizerOptions& options() const { return options_; }
  bool lowercases() const { return options_.lowercase || options_.preset == TokenizerPreset::Amfm; }
  // A stable description, part of every result's signature.
  std::string describe() const;

  // Calls emit(std::string_view token) for each token of `text` in order.
  // `scratch` holds transformed text; tokens stay valid until the next call with it.
  template <class Emit>
  void for_each_token(std::string_view text, std::string& scratch, Emit&& emit) const;

  std::vector<std::string> tokenize(std::string_view text) const;

 private:
  // Rewrites text into scratch: ASCII lowercasing and the amfm punctuation rules.
  std::string_view normalize(std::string_view text, std::string& scratch) const;

  TokenizerOptions options_;
};

// True when s[i] starts a whitespace character; width receives its length in bytes.
inline bool whitespace_at(std::string_view s, size_t i, size_t& width) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    width = 1;
    // ' ', \t..\r and \x1c..\x1f as bits of one mask: one compare for ordinary characters.
    constexpr uint64_t kAsciiSpaces = (uint64_t{1} << ' ') | (uint64_t{0x1f} << 0x09) | (uint64_t{0xf} << 0x1c);
    return c <= ' ' && ((kAsciiSpaces >> c) & 1);
  }
  size_t pos = i;
  const bool space = is_python_whitespace(decode_utf8(s, pos));
  width = pos - i;
  return space;
}

template <class Emit>
void Tokenizer::for_each_token(std::string_view text, std::string& scratch, Emit&& emit) const {
  const std::string_view s = normalize(text, scratch);
  const size_t n = s.size();
  size_t i = 0, width = 1;
  while (true) {
    while (i < n && whitespace_at(s, i, width)) i += width;
    if (i >= n) return;
    const size_t start = i;
    while (i < n && !whitespace_at(s, i, width)) i += width;
    emit(s.substr(start, i - start));
  }
}

}  // namespace fastamfm
