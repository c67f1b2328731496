#include "meteor/meteor_stemmer.hpp"

#include <initializer_list>

#include "text/utf8.hpp"

namespace fastamfm {

namespace {

using Word = std::u32string;

bool is_vowel(char32_t c) {
  return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || c == 'y';
}

bool ends_with(const Word& w, std::u32string_view suffix) {
  return w.size() >= suffix.size() && w.compare(w.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The longest suffix of `w` among `suffixes` (Snowball's `substring among`), or "".
std::u32string_view longest_suffix(const Word& w, std::initializer_list<std::u32string_view> suffixes) {
  std::u32string_view best;
  for (std::u32string_view s : suffixes)
    if (s.size() > best.size() && ends_with(w, s)) best = s;
  return best;
}

void replace_suffix(Word& w, size_t suffix_len, std::u32string_view by) {
  w.resize(w.size() - suffix_len);
  w.append(by);
}

bool has_vowel(const Word& w, size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i)
    if (is_vowel(w[i])) return true;
  return false;
}

// Position after the first non-vowel that follows a vowel, searching from `from`.
size_t region_start(const Word& w, size_t from) {
  size_t i = from;
  while (i < w.size() && !is_vowel(w[i])) ++i;
  if (i == w.size()) return w.size();
  while (i < w.size() && is_vowel(w[i])) ++i;
  return i == w.size() ? w.size() : i + 1;
}

// A short syllable ending at `end` (exclusive): non-vowel (not w, x, Y) + vowel +
// non-vowel, or a vowel at the word start followed by a non-vowel.
bool short_syllable_before(const Word& w, size_t end) {
  if (end >= 3) {
    const char32_t a = w[end - 3], b = w[end - 2], c = w[end - 1];
    if (!is_vowel(a) && is_vowel(b) && !is_vowel(c) && c != 'w' && c != 'x' && c != 'Y') return true;
  }
  return end == 2 && is_vowel(w[0]) && !is_vowel(w[1]);
}

struct Regions {
  size_t r1;
  size_t r2;
};

bool exception1(Word& w) {
  static const std::initializer_list<std::pair<std::u32string_view, std::u32string_view>> table = {
      {U"skis", U"ski"},      {U"skies", U"sky"},   {U"dying", U"die"},    {U"lying", U"lie"},
      {U"tying", U"tie"},     {U"idly", U"idl"},    {U"gently", U"gentl"}, {U"ugly", U"ugli"},
      {U"early", U"earli"},   {U"only", U"onli"},   {U"singly", U"singl"}, {U"sky", U"sky"},
      {U"news", U"news"},     {U"howe", U"howe"},   {U"atlas", U"atlas"},  {U"cosmos", U"cosmos"},
      {U"bias", U"bias"},     {U"andes", U"andes"}};
  for (const auto& [form, stem] : table) {
    if (w == form) {
      w = stem;
      return true;
    }
  }
  return false;
}

bool exception2(const Word& w) {
  for (std::u32string_view form :
       {U"inning", U"outing", U"canning", U"herring", U"earring", U"proceed", U"exceed", U"succeed"})
    if (w == form) return true;
  return false;
}

bool prelude(Word& w) {
  if (!w.empty() && w[0] == '\'') w.erase(0, 1);
  bool y_found = false;
  if (!w.empty() && w[0] == 'y') {
    w[0] = 'Y';
    y_found = true;
  }
  for (size_t i = 1; i < w.size(); ++i) {
    if (w[i] == 'y' && is_vowel(w[i - 1])) {
      w[i] = 'Y';
      y_found = true;
    }
  }
  return y_found;
}

Regions mark_regions(const Word& w) {
  size_t r1 = w.size();
  bool prefixed = false;
  for (std::u32string_view prefix : {U"gener", U"commun", U"arsen"}) {
    if (w.compare(0, prefix.size(), prefix) == 0) {
      r1 = prefix.size();
      prefixed = true;
      break;
    }
  }
  if (!prefixed) r1 = region_start(w, 0);
  return {r1, region_start(w, r1)};
}

void step0(Word& w) {
  const auto s = longest_suffix(w, {U"'", U"'s", U"'s'"});
  w.resize(w.size() - s.size());
}

void step1a(Word& w) {
  const auto s = longest_suffix(w, {U"sses", U"ied", U"ies", U"s", U"us", U"ss"});
  if (s == U"sses") {
    replace_suffix(w, 4, U"ss");
  } else if (s == U"ied" || s == U"ies") {
    replace_suffix(w, 3, w.size() - 3 >= 2 ? U"i" : U"ie");
  } else if (s == U"s") {
    // Delete when a vowel occurs before the letter preceding the s.
    if (w.size() >= 2 && has_vowel(w, 0, w.size() - 2)) w.pop_back();
  }
}

void step1b(Word& w, const Regions& r) {
  const auto s = longest_suffix(w, {U"eed", U"eedly", U"ed", U"edly", U"ing", U"ingly"});
  if (s.empty()) return;
  if (s == U"eed" || s == U"eedly") {
    if (w.size() - s.size() >= r.r1) replace_suffix(w, s.size(), U"ee");
    return;
  }
  if (!has_vowel(w, 0, w.size() - s.size())) return;
  w.resize(w.size() - s.size());
  const auto t = longest_suffix(w, {U"at", U"bl", U"iz", U"bb", U"dd", U"ff", U"gg", U"mm", U"nn", U"pp", U"rr", U"tt"});
  if (t == U"at" || t == U"bl" || t == U"iz") {
    w.push_back('e');
  } else if (!t.empty()) {
    w.pop_back();
  } else if (w.size() == r.r1 && short_syllable_before(w, w.size())) {
    w.push_back('e');
  }
}

void step1c(Word& w) {
  if (w.size() >= 3 && (w.back() == 'y' || w.back() == 'Y') && !is_vowel(w[w.size() - 2])) w.back() = 'i';
}

bool valid_li(char32_t c) {
  return c == 'c' || c == 'd' || c == 'e' || c == 'g' || c == 'h' || c == 'k' || c == 'm' || c == 'n' ||
         c == 'r' || c == 't';
}

void step2(Word& w, const Regions& r) {
  const auto s = longest_suffix(
      w, {U"tional", U"enci", U"anci", U"abli", U"entli", U"izer", U"ization", U"ational", U"ation", U"ator",
          U"alism", U"aliti", U"alli", U"fulness", U"ousli", U"ousness", U"iveness", U"iviti", U"biliti", U"bli",
          U"ogi", U"fulli", U"lessli", U"li"});
  if (s.empty() || w.size() - s.size() < r.r1) return;
  const size_t n = s.size();
  if (s == U"tional") replace_suffix(w, n, U"tion");
  else if (s == U"enci") replace_suffix(w, n, U"ence");
  else if (s == U"anci") replace_suffix(w, n, U"ance");
  else if (s == U"abli") replace_suffix(w, n, U"able");
  else if (s == U"entli") replace_suffix(w, n, U"ent");
  else if (s == U"izer" || s == U"ization") replace_suffix(w, n, U"ize");
  else if (s == U"ational" || s == U"ation" || s == U"ator") replace_suffix(w, n, U"ate");
  else if (s == U"alism" || s == U"aliti" || s == U"alli") replace_suffix(w, n, U"al");
  else if (s == U"fulness" || s == U"fulli") replace_suffix(w, n, U"ful");
  else if (s == U"ousli" || s == U"ousness") replace_suffix(w, n, U"ous");
  else if (s == U"iveness" || s == U"iviti") replace_suffix(w, n, U"ive");
  else if (s == U"biliti" || s == U"bli") replace_suffix(w, n, U"ble");
  else if (s == U"ogi") {
    if (w.size() > n && w[w.size() - n - 1] == 'l') replace_suffix(w, n, U"og");
  } else if (s == U"lessli") replace_suffix(w, n, U"less");
  else if (s == U"li") {
    if (w.size() > n && valid_li(w[w.size() - n - 1])) w.resize(w.size() - n);
  }
}

void step3(Word& w, const Regions& r) {
  const auto s = longest_suffix(
      w, {U"tional", U"ational", U"alize", U"icate", U"iciti", U"ical", U"ful", U"ness", U"ative"});
  if (s.empty() || w.size() - s.size() < r.r1) return;
  const size_t n = s.size();
  if (s == U"tional") replace_suffix(w, n, U"tion");
  else if (s == U"ational") replace_suffix(w, n, U"ate");
  else if (s == U"alize") replace_suffix(w, n, U"al");
  else if (s == U"icate" || s == U"iciti" || s == U"ical") replace_suffix(w, n, U"ic");
  else if (s == U"ful" || s == U"ness") w.resize(w.size() - n);
  else if (s == U"ative") {
    if (w.size() - n >= r.r2) w.resize(w.size() - n);
  }
}

void step4(Word& w, const Regions& r) {
  const auto s = longest_suffix(w, {U"al", U"ance", U"ence", U"er", U"ic", U"able", U"ible", U"ant", U"ement",
                                    U"ment", U"ent", U"ism", U"ate", U"iti", U"ous", U"ive", U"ize", U"ion"});
  if (s.empty() || w.size() - s.size() < r.r2) return;
  if (s == U"ion") {
    const size_t before = w.size() - 3;
    if (before >= 1 && (w[before - 1] == 's' || w[before - 1] == 't')) w.resize(before);
  } else {
    w.resize(w.size() - s.size());
  }
}

void step5(Word& w, const Regions& r) {
  if (w.empty()) return;
  const size_t start = w.size() - 1;
  if (w.back() == 'e') {
    if (start >= r.r2 || (start >= r.r1 && !short_syllable_before(w, start))) w.pop_back();
  } else if (w.back() == 'l') {
    if (start >= r.r2 && start >= 1 && w[start - 1] == 'l') w.pop_back();
  }
}

}  // namespace

std::string snowball_english_stem(std::string_view word) {
  Word w;
  w.reserve(word.size());
  for (size_t pos = 0; pos < word.size();) w.push_back(decode_utf8(word, pos));

  if (!exception1(w) && w.size() >= 3) {
    const bool y_found = prelude(w);
    const Regions regions = mark_regions(w);
    step0(w);
    step1a(w);
    if (!exception2(w)) {
      step1b(w, regions);
      step1c(w);
      step2(w, regions);
      step3(w, regions);
      step4(w, regions);
      step5(w, regions);
    }
    if (y_found)
      for (char32_t& c : w)
        if (c == 'Y') c = 'y';
  }
  std::string out;
  out.reserve(word.size());
  for (char32_t c : w) append_utf8(static_cast<uint32_t>(c), out);
  return out;
}

}  // namespace fastamfm
