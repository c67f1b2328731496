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
#include <string>
#include <string_view>
#include <vector>

#include "text/porter_stemmer.hpp"
#include "text/utf8.hpp"

namespace fastamfm {

enum class TokenizerPreset { Whitespace, Amfm, Mteval13a, Intl, Char, Zh, Rouge, RougeStem };

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
  bool lowercases() const {
    return options_.lowercase || options_.preset == TokenizerPreset::Amfm || is_rouge();
  }
  bool is_rouge() const {
    return options_.preset == TokenizerPreset::Rouge || options_.preset == TokenizerPreset::RougeStem;
  }
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
  template <class Emit>
  static void split_on_whitespace(std::string_view s, Emit&& emit);

  TokenizerOptions options_;
};

template <class Emit>
void Tokenizer::for_each_token(std::string_view text, std::string& scratch, Emit&& emit) const {
  const std::string_view s = normalize(text, scratch);
  if (options_.preset == TokenizerPreset::RougeStem) {
    // Stems replace tokens longer than three characters (rouge-score's rule).
    thread_local std::string stem;
    auto stemmed = [&](std::string_view token) {
      if (token.size() <= 3) {
        emit(token);
        return;
      }
      porter_stem(token, stem);
      emit(std::string_view(stem));
    };
    split_on_whitespace(s, stemmed);
  } else {
    split_on_whitespace(s, emit);
  }
}

template <class Emit>
void Tokenizer::split_on_whitespace(std::string_view s, Emit&& emit) {
  size_t i = 0;
  const size_t n = s.size();
  size_t start = std::string_view::npos;
  while (i < n) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t width = 1;
    bool space;
    if (c < 0x80) {
      space = c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F);
    } else {
      size_t pos = i;
      space = is_python_whitespace(decode_utf8(s, pos));
      width = pos - i;
    }
    if (space) {
      if (start != std::string_view::npos) emit(s.substr(start, i - start));
      start = std::string_view::npos;
    } else if (start == std::string_view::npos) {
      start = i;
    }
    i += width;
  }
  if (start != std::string_view::npos) emit(s.substr(start, n - start));
}

}  // namespace fastamfm
