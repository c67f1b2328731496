#include "text/tokenizer.hpp"

#include <cstring>

#include "common/errors.hpp"
#include "text/sacrebleu_tokenizers.hpp"
#include "text/unicode_punctuation.hpp"
#include "text/utf8.hpp"

namespace fastamfm {

namespace {
struct PresetName {
  TokenizerPreset preset;
  const char* name;
};
constexpr PresetName kPresetNames[] = {
    {TokenizerPreset::Whitespace, "whitespace"}, {TokenizerPreset::Amfm, "amfm"},
    {TokenizerPreset::Mteval13a, "13a"},         {TokenizerPreset::Intl, "intl"},
    {TokenizerPreset::Char, "char"},             {TokenizerPreset::Zh, "zh"},
    {TokenizerPreset::Rouge, "rouge"},           {TokenizerPreset::RougeStem, "rouge-stem"},
};
}  // namespace

TokenizerPreset parse_tokenizer_preset(std::string_view name) {
  for (const auto& p : kPresetNames)
    if (name == p.name) return p.preset;
  throw InputError("unknown tokenizer preset '" + std::string(name) +
                   "' (expected whitespace, amfm, 13a, intl, char, zh, rouge or rouge-stem)");
}

const char* tokenizer_preset_name(TokenizerPreset preset) {
  for (const auto& p : kPresetNames)
    if (preset == p.preset) return p.name;
  return "whitespace";
}

bool is_python_whitespace(uint32_t cp) {
  if (cp < 0x80) return cp == 0x20 || (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x1F);
  return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
         cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

Tokenizer::Tokenizer(TokenizerOptions options) : options_(options) {}

std::string Tokenizer::describe() const {
  std::string d = std::string("tok:") + tokenizer_preset_name(options_.preset);
  if (options_.lowercase && options_.preset != TokenizerPreset::Amfm && !is_rouge()) d += "+lc";
  return d;
}

namespace {
// ASCII punctuation as Python's string.punctuation lists it.
bool is_ascii_punct(unsigned char c) {
  return c < 0x80 && c > 0x20 && c != 0x7F && !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                                               (c >= 'A' && c <= 'Z'));
}
}  // namespace

namespace {
SacrebleuTokenize sacrebleu_kind(TokenizerPreset preset) {
  switch (preset) {
    case TokenizerPreset::Mteval13a:
      return SacrebleuTokenize::Mteval13a;
    case TokenizerPreset::Intl:
      return SacrebleuTokenize::Intl;
    case TokenizerPreset::Char:
      return SacrebleuTokenize::Char;
    case TokenizerPreset::Zh:
      return SacrebleuTokenize::Zh;
    default:
      return SacrebleuTokenize::None;
  }
}

// rouge-score's tokenizer before the split: lowercase letters and digits stay, all else
// separates (non-ASCII text was lowercased by the Python layer: what is left outside
// ASCII separates too).
std::string_view rouge_normalize(std::string_view text, std::string& scratch) {
  scratch.resize(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c >= 'A' && c <= 'Z') c = static_cast<unsigned char>(c + ('a' - 'A'));
    const bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    scratch[i] = keep ? static_cast<char>(c) : ' ';
  }
  return scratch;
}
}  // namespace

std::string_view Tokenizer::normalize(std::string_view text, std::string& scratch) const {
  if (is_rouge()) return rouge_normalize(text, scratch);
  const SacrebleuTokenize sacrebleu = sacrebleu_kind(options_.preset);
  if (sacrebleu != SacrebleuTokenize::None) {
    if (!options_.lowercase) return sacrebleu_tokenize(sacrebleu, text, scratch);
    // sacrebleu lowercases before it tokenizes.
    thread_local std::string lowered;
    lowered.assign(text);
    for (char& c : lowered)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + ('a' - 'A'));
    return sacrebleu_tokenize(sacrebleu, lowered, scratch);
  }
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
