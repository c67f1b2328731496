#include "meteor/meteor_normalizer.hpp"

#include <cstdint>

#include "text/utf8.hpp"

namespace fastamfm {

namespace {

using Text = std::u32string;

bool is_digit(char32_t c) { return c >= '0' && c <= '9'; }

// The jar's "alpha" class: ASCII letters, Western European and Cyrillic ranges.
bool is_alpha(char32_t c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= 0xC0 && c <= 0xD6) || (c >= 0xD8 && c <= 0xF6) ||
         (c >= 0xF8 && c <= 0x17E) || (c >= 0x400 && c <= 0x527) || (c >= 0xA640 && c <= 0xA66E) ||
         (c >= 0xA67E && c <= 0xA697) || (c >= 0x1D00 && c <= 0x1D7F);
}

bool is_alnum(char32_t c) { return is_digit(c) || is_alpha(c); }

// Java regex \s.
bool is_regex_space(char32_t c) { return c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == '\f' || c == '\r'; }

// java.util.StringTokenizer's default delimiters.
bool is_tokenizer_space(char32_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

// Left-to-right, non-overlapping replacement of the three-character pattern
// (before)(center)(after), as Java's replaceAll runs "([..])[c]([..])": a match
// needs the center character, so only its occurrences are tried (each after the
// end of the last match), and the text between them is copied whole.
template <class Before, class After>
void replace_triples(Text& s, Before before, char32_t center, After after, std::u32string_view middle) {
  size_t p = s.find(center, 1);
  if (p == Text::npos) return;
  Text out;
  size_t copied = 0;  // s[0, copied) is in `out`; no match may start before it
  for (; p != Text::npos && p + 1 < s.size(); p = s.find(center, p + 1)) {
    const size_t i = p - 1;
    if (i < copied || !before(s[i]) || !after(s[p + 1])) continue;
    if (out.empty()) out.reserve(s.size() + 8);
    out.append(s, copied, p - copied);
    out.append(middle);
    out.push_back(s[p + 1]);
    copied = p + 2;
  }
  if (copied == 0) return;
  out.append(s, copied, Text::npos);
  s.swap(out);
}

void replace_all_literal(Text& s, std::u32string_view from, std::u32string_view to) {
  size_t i = s.find(from);
  if (i == Text::npos) return;
  Text out(s, 0, i);
  while (i < s.size()) {
    if (s.compare(i, from.size(), from) == 0) {
      out.append(to);
      i += from.size();
    } else {
      out.push_back(s[i++]);
    }
  }
  s.swap(out);
}

bool contains(const Text& s, std::u32string_view what) { return s.find(what) != Text::npos; }

// Runs of dots are escaped as DOTMULTI words so that the dot rules leave them alone.
void escape_multi_dots(Text& s) {
  if (s.find(U"..") != Text::npos) {
    Text out;
    for (size_t i = 0; i < s.size();) {
      if (s[i] == '.' && i + 1 < s.size() && s[i + 1] == '.') {
        size_t j = i + 1;
        while (j < s.size() && s[j] == '.') ++j;
        out.append(U" DOTMULTI");
        out.append(j - i - 1, U'.');
        i = j;
      } else {
        out.push_back(s[i++]);
      }
    }
    s.swap(out);
  }
  while (contains(s, U"DOTMULTI.")) {
    Text next;
    static constexpr std::u32string_view kKey = U"DOTMULTI.";
    size_t i = 0;
    while (i < s.size()) {
      if (s.compare(i, kKey.size(), kKey) == 0 && i + kKey.size() < s.size() && s[i + kKey.size()] != '.') {
        next.append(U"DOTDOTMULTI ");
        next.push_back(s[i + kKey.size()]);
        i += kKey.size() + 1;
      } else {
        next.push_back(s[i++]);
      }
    }
    s.swap(next);
    replace_all_literal(s, U"DOTMULTI.", U"DOTDOTMULTI");
  }
}

Text decode(std::string_view line) {
  Text t;
  t.reserve(line.size() + 2);
  for (size_t pos = 0; pos < line.size();) t.push_back(decode_utf8(line, pos));
  return t;
}

// Java's String.toLowerCase for the scripts the normalizer keeps (Latin, Greek,
// Cyrillic); other characters are returned unchanged.
char32_t to_lower(char32_t c) {
  if (c < 0x80) return (c >= 'A' && c <= 'Z') ? c + 32 : c;
  if ((c >= 0xC0 && c <= 0xDE && c != 0xD7)) return c + 32;
  if (c >= 0x100 && c <= 0x137 && c % 2 == 0 && c != 0x130) return c + 1;
  if (c >= 0x139 && c <= 0x148 && c % 2 == 1) return c + 1;
  if (c >= 0x14A && c <= 0x177 && c % 2 == 0) return c + 1;
  if (c == 0x178) return 0xFF;
  if (c >= 0x179 && c <= 0x17E && c % 2 == 1) return c + 1;
  if (c >= 0x391 && c <= 0x3AB && c != 0x3A2) return c + 32;
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  if (c >= 0x410 && c <= 0x42F) return c + 32;
  if (c >= 0x460 && c <= 0x4FF && c % 2 == 0 && !(c >= 0x482 && c <= 0x489) && c != 0x4C0) return c + 1;
  return c;
}

std::string encode(std::u32string_view s, bool lower) {
  std::string out;
  out.reserve(s.size());
  for (char32_t c : s) append_utf8(static_cast<uint32_t>(lower ? to_lower(c) : c), out);
  return out;
}

bool is_white(char32_t c) {
  return c == ' ' || (c >= 0x2000 && c <= 0x200A) || c == 0x202F || c == 0x205F || c == 0x3000 || c == 0xA0;
}

// Every rule of the normalizer before the nonbreaking-prefix pass, in its order.
Text tokenize_like_moses(Text s) {
  const auto sep_keep = [](char32_t c) {
    return is_alnum(c) || is_regex_space(c) || c == '.' || c == '\'' || c == '`' || c == ',' || c == '-' ||
           c == 0x2018 || c == 0x2019;
  };
  Text t;
  t.reserve(s.size() + 16);
  for (char32_t c : s) {
    if (sep_keep(c)) {
      t.push_back(c);
    } else {
      t.push_back(' ');
      t.push_back(c);
      t.push_back(' ');
    }
  }
  escape_multi_dots(t);

  const auto digit = [](char32_t c) { return is_digit(c); };
  const auto non_digit = [](char32_t c) { return !is_digit(c); };
  replace_triples(t, non_digit, ',', non_digit, U" , ");
  replace_triples(t, digit, ',', non_digit, U" , ");
  replace_triples(t, non_digit, ',', digit, U" , ");

  for (char32_t& c : t)
    if (c == '`' || c == 0x2018 || c == 0x2019) c = '\'';
  if (t.find(U"''") != Text::npos || t.find_first_of(U"\u201C\u201D") != Text::npos) {
    Text q;
    for (size_t i = 0; i < t.size(); ++i) {
      if (t[i] == 0x201C || t[i] == 0x201D) {
        q.append(U" \" ");
      } else if (t[i] == '\'' && i + 1 < t.size() && t[i + 1] == '\'') {
        q.append(U" \" ");
        ++i;
      } else {
        q.push_back(t[i]);
      }
    }
    t.swap(q);
  }
  replace_all_literal(t, U"\u2013", U"-");
  replace_all_literal(t, U"--", U"-");

  const auto alnum_or_dot = [](char32_t c) { return is_alnum(c) || c == '.'; };
  const auto alnum = [](char32_t c) { return is_alnum(c); };
  replace_triples(t, alnum_or_dot, '-', alnum, U" ");

  const auto alpha = [](char32_t c) { return is_alpha(c); };
  const auto non_alpha = [](char32_t c) { return !is_alpha(c); };
  const auto non_alpha_digit = [](char32_t c) { return !is_alpha(c) && !is_digit(c); };
  const auto letter_s = [](char32_t c) { return c == 's'; };
  replace_triples(t, non_alpha, '\'', non_alpha, U" ' ");
  replace_triples(t, non_alpha_digit, '\'', alpha, U" ' ");
  replace_triples(t, alpha, '\'', non_alpha, U" ' ");
  replace_triples(t, alpha, '\'', alpha, U" '");
  replace_triples(t, digit, '\'', letter_s, U" '");
  return t;
}

}  // namespace

std::vector<std::string> meteor_normalize_words(std::string_view line, const MeteorResources* prefixes) {
  Text s = decode(line);
  std::vector<std::string> words;
  // Fast path: plain ASCII words and spaces pass every rule unchanged (the escape
  // word DOTMULTI aside, which the last rule would turn into dots).
  bool plain = s.find(U"DOTMULTI") == Text::npos;
  for (size_t i = 0; plain && i < s.size(); ++i) plain = s[i] < 0x80 && (is_alnum(s[i]) || s[i] == ' ');
  if (plain) {
    for (size_t i = 0; i < s.size();) {
      while (i < s.size() && s[i] == ' ') ++i;
      size_t j = i;
      while (j < s.size() && s[j] != ' ') ++j;
      if (j > i) words.push_back(encode(std::u32string_view(s).substr(i, j - i), true));
      i = j;
    }
    return words;
  }

  const Text t = tokenize_like_moses(U" " + s + U" ");
  std::vector<std::u32string_view> tokens;
  for (size_t i = 0; i < t.size();) {
    while (i < t.size() && is_tokenizer_space(t[i])) ++i;
    size_t j = i;
    while (j < t.size() && !is_tokenizer_space(t[j])) ++j;
    if (j > i) tokens.emplace_back(t.data() + i, j - i);
    i = j;
  }
  // Words ending in a dot: "U.S." loses its dots, a nonbreaking prefix ("Mr.",
  // "No." before a number, anything before a lowercase word) keeps it, any other
  // word has it split off.
  Text rebuilt;
  rebuilt.reserve(t.size() + 8);
  for (size_t k = 0; k < tokens.size(); ++k) {
    const std::u32string_view word = tokens[k];
    if (word.size() > 1 && word.back() == '.') {
      const std::u32string_view pre = word.substr(0, word.size() - 1);
      bool has_alpha = false;
      for (char32_t c : pre) has_alpha = has_alpha || is_alpha(c);
      const auto kind = prefixes == nullptr ? MeteorResources::PrefixKind::kNone
                                            : prefixes->nonbreaking_prefix(encode(pre, false));
      const bool next_lower = k + 1 < tokens.size() && tokens[k + 1][0] >= 'a' && tokens[k + 1][0] <= 'z';
      const bool next_digit = k + 1 < tokens.size() && is_digit(tokens[k + 1][0]);
      if (pre.find(U'.') != std::u32string_view::npos && has_alpha) {
        for (char32_t c : word)
          if (c != '.') rebuilt.push_back(c);
      } else if (kind == MeteorResources::PrefixKind::kAny || next_lower ||
                 (kind == MeteorResources::PrefixKind::kNumericOnly && next_digit)) {
        rebuilt.append(word);
      } else {
        rebuilt.append(pre);
        rebuilt.append(U" .");
      }
    } else {
      rebuilt.append(word);
    }
    rebuilt.push_back(' ');
  }
  while (contains(rebuilt, U"DOTDOTMULTI")) replace_all_literal(rebuilt, U"DOTDOTMULTI", U"DOTMULTI.");
  replace_all_literal(rebuilt, U"DOTMULTI", U".");

  // Whitespace normalisation, lowercasing and the aligner's tokenizer.
  for (size_t i = 0; i < rebuilt.size();) {
    while (i < rebuilt.size() && (is_white(rebuilt[i]) || is_tokenizer_space(rebuilt[i]))) ++i;
    size_t j = i;
    while (j < rebuilt.size() && !(is_white(rebuilt[j]) || is_tokenizer_space(rebuilt[j]))) ++j;
    if (j > i) words.push_back(encode(std::u32string_view(rebuilt).substr(i, j - i), true));
    i = j;
  }
  return words;
}

int32_t java_string_hash(std::string_view utf8_word) {
  uint32_t h = 0;
  for (size_t pos = 0; pos < utf8_word.size();) {
    const uint32_t cp = decode_utf8(utf8_word, pos);
    if (cp >= 0x10000) {
      const uint32_t v = cp - 0x10000;
      h = h * 31u + (0xD800u + (v >> 10));
      h = h * 31u + (0xDC00u + (v & 0x3FFu));
    } else {
      h = h * 31u + cp;
    }
  }
  return static_cast<int32_t>(h);
}

}  // namespace fastamfm
