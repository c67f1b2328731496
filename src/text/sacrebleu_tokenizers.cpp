#include "text/sacrebleu_tokenizers.hpp"

#include <cstdint>
#include <vector>

#include "text/tokenizer.hpp"
#include "text/unicode_categories.hpp"
#include "text/utf8.hpp"

namespace fastamfm {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// text without trailing whitespace as Python's str.rstrip() sees it.
std::string_view rstrip(std::string_view text) {
  size_t end = text.size();
  while (end > 0) {
    size_t start = end - 1;
    while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
    size_t pos = start;
    if (!is_python_whitespace(decode_utf8(text, pos))) break;
    end = start;
  }
  return text.substr(0, end);
}

std::string_view strip(std::string_view text) {
  text = rstrip(text);
  size_t begin = 0;
  while (begin < text.size()) {
    size_t pos = begin;
    if (!is_python_whitespace(decode_utf8(text, pos))) break;
    begin = pos;
  }
  return text.substr(begin);
}

// Python's str.replace(from, to): non-overlapping, left to right.
void replace_all(std::string& s, std::string_view from, std::string_view to, std::string& scratch) {
  if (s.find(from) == std::string::npos) return;
  scratch.clear();
  size_t i = 0;
  while (true) {
    const size_t hit = s.find(from, i);
    if (hit == std::string::npos) break;
    scratch.append(s, i, hit - i);
    scratch.append(to);
    i = hit + from.size();
  }
  scratch.append(s, i, std::string::npos);
  s.swap(scratch);
}

// 13a's first expression: [{-~[-` -&(-+:-@/] -> " c ".
bool mteval_split_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u >= 0x7B && u <= 0x7E) || (u >= 0x5B && u <= 0x60) || (u >= 0x20 && u <= 0x26) ||
         (u >= 0x28 && u <= 0x2B) || (u >= 0x3A && u <= 0x40) || u == 0x2F;
}

// The four expressions of sacrebleu's TokenizerRegexp, one pass each as re.sub runs
// them (leftmost, non-overlapping). All are ASCII, so bytes stand for characters: a
// multi-byte character is neither a digit nor '.', ',' or '-', like each of its bytes.
void mteval_expressions(std::string& s, std::string& t) {
  t.clear();
  for (char c : s) {
    if (mteval_split_char(c)) {
      t.push_back(' ');
      t.push_back(c);
      t.push_back(' ');
    } else {
      t.push_back(c);
    }
  }
  s.swap(t);
  // ([^0-9])([\.,]) -> "\1 \2 "
  t.clear();
  for (size_t i = 0; i < s.size();) {
    if (i + 1 < s.size() && !is_digit(s[i]) && (s[i + 1] == '.' || s[i + 1] == ',')) {
      t.push_back(s[i]);
      t.push_back(' ');
      t.push_back(s[i + 1]);
      t.push_back(' ');
      i += 2;
    } else {
      t.push_back(s[i++]);
    }
  }
  s.swap(t);
  // ([\.,])([^0-9]) -> " \1 \2"
  t.clear();
  for (size_t i = 0; i < s.size();) {
    if (i + 1 < s.size() && (s[i] == '.' || s[i] == ',') && !is_digit(s[i + 1])) {
      t.push_back(' ');
      t.push_back(s[i]);
      t.push_back(' ');
      t.push_back(s[i + 1]);
      i += 2;
    } else {
      t.push_back(s[i++]);
    }
  }
  s.swap(t);
  // ([0-9])(-) -> "\1 \2 "
  t.clear();
  for (size_t i = 0; i < s.size();) {
    if (i + 1 < s.size() && is_digit(s[i]) && s[i + 1] == '-') {
      t.push_back(s[i]);
      t.push_back(' ');
      t.push_back('-');
      t.push_back(' ');
      i += 2;
    } else {
      t.push_back(s[i++]);
    }
  }
  s.swap(t);
}

void tokenize_13a(std::string_view text, std::string& out) {
  thread_local std::string scratch;
  std::string line(text);
  replace_all(line, "<skipped>", "", scratch);
  replace_all(line, "-\n", "", scratch);
  replace_all(line, "\n", " ", scratch);
  if (line.find('&') != std::string::npos) {
    replace_all(line, "&quot;", "\"", scratch);
    replace_all(line, "&amp;", "&", scratch);
    replace_all(line, "&lt;", "<", scratch);
    replace_all(line, "&gt;", ">", scratch);
  }
  out.clear();
  out.reserve(line.size() * 2 + 2);
  out.push_back(' ');
  out.append(line);
  out.push_back(' ');
  mteval_expressions(out, scratch);
}

void append_code_point(std::string& out, uint32_t cp) { append_utf8(cp, out); }

void tokenize_intl(std::string_view text, std::string& out) {
  thread_local std::vector<uint32_t> a, b;
  a.clear();
  for (size_t pos = 0; pos < text.size();) a.push_back(decode_utf8(text, pos));
  auto cls = [](uint32_t cp) { return char_class(cp); };
  // (\P{N})(\p{P}) -> "\1 \2 "
  b.clear();
  for (size_t i = 0; i < a.size();) {
    if (i + 1 < a.size() && cls(a[i]) != CharClass::Number && cls(a[i + 1]) == CharClass::Punctuation) {
      b.insert(b.end(), {a[i], ' ', a[i + 1], ' '});
      i += 2;
    } else {
      b.push_back(a[i++]);
    }
  }
  // (\p{P})(\P{N}) -> " \1 \2"
  a.clear();
  for (size_t i = 0; i < b.size();) {
    if (i + 1 < b.size() && cls(b[i]) == CharClass::Punctuation && cls(b[i + 1]) != CharClass::Number) {
      a.insert(a.end(), {' ', b[i], ' ', b[i + 1]});
      i += 2;
    } else {
      a.push_back(b[i++]);
    }
  }
  // (\p{S}) -> " \1 "
  out.clear();
  for (uint32_t cp : a) {
    if (cls(cp) == CharClass::Symbol) {
      out.push_back(' ');
      append_code_point(out, cp);
      out.push_back(' ');
    } else {
      append_code_point(out, cp);
    }
  }
}

void tokenize_char(std::string_view text, std::string& out) {
  out.clear();
  for (size_t pos = 0; pos < text.size();) {
    const size_t start = pos;
    if (!is_python_whitespace(decode_utf8(text, pos))) {
      out.append(text.substr(start, pos - start));
      out.push_back(' ');
    }
  }
}

void tokenize_zh(std::string_view text, std::string& out) {
  thread_local std::string scratch;
  text = strip(text);
  out.clear();
  for (size_t pos = 0; pos < text.size();) {
    const size_t start = pos;
    const bool chinese = is_sacrebleu_chinese(decode_utf8(text, pos));
    if (chinese) out.push_back(' ');
    out.append(text.substr(start, pos - start));
    if (chinese) out.push_back(' ');
  }
  mteval_expressions(out, scratch);
}

}  // namespace

bool is_sacrebleu_chinese(uint32_t cp) {
  struct Range {
    uint32_t first, last;
  };
  // sacrebleu's table compares one-character strings with these bounds. Two of its
  // entries are written '\u20000'/'\u2a6d6' and '\u2f800'/'\u2fa1d': Python reads each
  // as a four-digit escape plus a digit, a two-character string, so those ranges hold
  // U+2001..U+2A6D and U+2F81..U+2FA1.
  static constexpr Range kRanges[] = {
      {0x3400, 0x4DB5}, {0x4E00, 0x9FA5}, {0x9FA6, 0x9FBB}, {0xF900, 0xFA2D}, {0xFA30, 0xFA6A}, {0xFA70, 0xFAD9},
      {0x2001, 0x2A6D}, {0x2F81, 0x2FA1}, {0xFF00, 0xFFEF}, {0x2E80, 0x2EFF}, {0x3000, 0x303F}, {0x31C0, 0x31EF},
      {0x2F00, 0x2FDF}, {0x2FF0, 0x2FFF}, {0x3100, 0x312F}, {0x31A0, 0x31BF}, {0xFE10, 0xFE1F}, {0xFE30, 0xFE4F},
      {0x2600, 0x26FF}, {0x2700, 0x27BF}, {0x3200, 0x32FF}, {0x3300, 0x33FF},
  };
  for (const Range& r : kRanges)
    if (cp >= r.first && cp <= r.last) return true;
  return false;
}

std::string_view sacrebleu_tokenize(SacrebleuTokenize kind, std::string_view text, std::string& out) {
  text = rstrip(text);
  switch (kind) {
    case SacrebleuTokenize::Mteval13a:
      tokenize_13a(text, out);
      return out;
    case SacrebleuTokenize::Intl:
      tokenize_intl(text, out);
      return out;
    case SacrebleuTokenize::Char:
      tokenize_char(text, out);
      return out;
    case SacrebleuTokenize::Zh:
      tokenize_zh(text, out);
      return out;
    case SacrebleuTokenize::None:
      break;
  }
  return text;
}

}  // namespace fastamfm
