#include "text/tokenizer.hpp"

#include <cstring>

#include "common/errors.hpp"
#include "text/unicode_punctuation.hpp"
#include "text/utf8.hpp"

namespace fastamfm {

TokenizerPreset parse_tokenizer_preset(std::string_view name) {
  if (name == "whitespace") return TokenizerPreset::Whitespace;
  if (name == "amfm") return TokenizerPreset::Amfm;
  throw InputError("unknown tokenizer preset '" + std::string(name) +
                   "' (expected 'whitespace' or 'amfm')");
}

const char* tokenizer_preset_name(TokenizerPreset preset) {
  return preset == TokenizerPreset::Amfm ? "amfm" : "whitespace";
}

bool is_python_whitespace(uint32_t cp) {
  if (cp < 0x80) return cp == 0x20 || (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x1F);
  return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
         cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

Tokenizer::Tokenizer(TokenizerOptions options) : options_(options) {}

std::string Tokenizer::describe() const {
  std::string d = std::string("tok:") + tokenizer_preset_name(options_.preset);
  if (options_.preset == TokenizerPreset::Whitespace && options_.lowercase) d += "+lc";
  return d;
}

namespace {
// ASCII punctuation as Python's string.punctuation lists it.
bool is_ascii_punct(unsigned char c) {
  return c < 0x80 && c > 0x20 && c != 0x7F && !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                                               (c >= 'A' && c <= 'Z'));
}
}  // namespace

std::string_view Tokenizer::normalize(std::string_view text, std::string& scratch) const {
  const bool amfm = options_.preset == TokenizerPreset::Amfm;
  if (!amfm && !options_.lowercase) return text;
  scratch.clear();
  scratch.reserve(text.size() + 8);
  for (size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (amfm && c >= 0x80) {
      // Non-ASCII punctuation becomes a separator (the text is valid UTF-8, already
      // NFKC-normalised and lowercased by the Python layer); other characters stay.
      size_t next = i;
      const uint32_t cp = decode_utf8(text, next);
      if (is_non_ascii_punctuation(cp)) {
        scratch.push_back(' ');
      } else {
        scratch.append(text.substr(i, next - i));
      }
      i = next - 1;
      continue;
    }
    if (c >= 'A' && c <= 'Z') c = static_cast<unsigned char>(c + ('a' - 'A'));
    if (amfm && is_ascii_punct(c)) {
      if (c == '\'' || c == '-' || c == '%') {
        // Kept, but as a token of its own.
        scratch.push_back(' ');
        scratch.push_back(static_cast<char>(c));
        scratch.push_back(' ');
      } else {
        scratch.push_back(' ');
      }
      continue;
    }
    scratch.push_back(static_cast<char>(c));
  }
  return scratch;
}

std::vector<std::string> Tokenizer::tokenize(std::string_view text) const {
  std::vector<std::string> out;
  std::string scratch;
  for_each_token(text, scratch, [&](std::string_view tok) { out.emplace_back(tok); });
  return out;
}

}  // namespace fastamfm
