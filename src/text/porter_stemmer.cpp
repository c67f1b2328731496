#include "text/porter_stemmer.hpp"

#include <initializer_list>
#include <utility>

namespace fastamfm {

namespace {

bool is_vowel(char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; }

// Consonant flag of position i: 'y' is a consonant at the start and after a vowel.
bool consonant(std::string_view w, size_t i) {
  bool flag = true;
  for (size_t k = 0; k <= i; ++k) {
    if (is_vowel(w[k])) {
      flag = false;
    } else if (w[k] == 'y') {
      flag = k == 0 ? true : !flag;
    } else {
      flag = true;
    }
  }
  return flag;
}

// m: the number of vowel-consonant transitions ([C](VC)^m[V]).
int measure(std::string_view w) {
  int m = 0;
  bool previous_vowel = false, previous = true;
  for (size_t k = 0; k < w.size(); ++k) {
    bool cons;
    if (is_vowel(w[k])) {
      cons = false;
    } else if (w[k] == 'y') {
      cons = k == 0 ? true : !previous;
    } else {
      cons = true;
    }
    if (cons && previous_vowel) ++m;
    previous_vowel = !cons;
    previous = cons;
  }
  return m;
}

bool contains_vowel(std::string_view w) {
  for (size_t k = 0; k < w.size(); ++k)
    if (!consonant(w, k)) return true;
  return false;
}

bool ends_double_consonant(std::string_view w) {
  return w.size() >= 2 && w[w.size() - 1] == w[w.size() - 2] && consonant(w, w.size() - 1);
}

bool ends_cvc(std::string_view w) {
  const size_t n = w.size();
  if (n >= 3 && consonant(w, n - 3) && !consonant(w, n - 2) && consonant(w, n - 1) && w[n - 1] != 'w' &&
      w[n - 1] != 'x' && w[n - 1] != 'y')
    return true;
  return n == 2 && !consonant(w, 0) && consonant(w, 1);
}

bool ends_with(std::string_view w, std::string_view suffix) {
  return w.size() >= suffix.size() && w.substr(w.size() - suffix.size()) == suffix;
}

std::string_view without(std::string_view w, std::string_view suffix) { return w.substr(0, w.size() - suffix.size()); }

struct Rule {
  std::string_view suffix, replacement;
  int condition;  // 0: none, 1: m > 0, 2: m > 1
};

bool holds(int condition, std::string_view stem) {
  if (condition == 0) return true;
  const int m = measure(stem);
  return condition == 1 ? m > 0 : m > 1;
}

// The first rule whose suffix ends the word decides: replaced when its condition
// holds on the stem, else the word is left as it is.
std::string apply_rules(const std::string& w, std::initializer_list<Rule> rules) {
  for (const Rule& r : rules) {
    if (!ends_with(w, r.suffix)) continue;
    const std::string_view stem = without(w, r.suffix);
    if (!holds(r.condition, stem)) return w;
    return std::string(stem) + std::string(r.replacement);
  }
  return w;
}

std::string step1a(const std::string& w) {
  if (ends_with(w, "ies") && w.size() == 4) return std::string(without(w, "ies")) + "ie";
  return apply_rules(w, {{"sses", "ss", 0}, {"ies", "i", 0}, {"ss", "ss", 0}, {"s", "", 0}});
}

std::string step1b(const std::string& w) {
  if (ends_with(w, "ied")) return std::string(without(w, "ied")) + (w.size() == 4 ? "ie" : "i");
  if (ends_with(w, "eed")) {
    const std::string_view stem = without(w, "eed");
    return measure(stem) > 0 ? std::string(stem) + "ee" : w;
  }
  std::string stem;
  bool removed = false;
  for (std::string_view suffix : {std::string_view("ed"), std::string_view("ing")}) {
    if (ends_with(w, suffix) && contains_vowel(without(w, suffix))) {
      stem = std::string(without(w, suffix));
      removed = true;
      break;
    }
  }
  if (!removed) return w;
  if (ends_with(stem, "at") || ends_with(stem, "bl") || ends_with(stem, "iz")) return stem + "e";
  if (ends_double_consonant(stem)) {
    const char last = stem.back();
    if (last != 'l' && last != 's' && last != 'z') stem.pop_back();
    return stem;
  }
  if (measure(stem) == 1 && ends_cvc(stem)) return stem + "e";
  return stem;
}

std::string step1c(const std::string& w) {
  if (!ends_with(w, "y")) return w;
  const std::string_view stem = without(w, "y");
  if (stem.size() > 1 && consonant(stem, stem.size() - 1)) return std::string(stem) + "i";
  return w;
}

std::string step2(const std::string& w) {
  if (ends_with(w, "alli") && measure(without(w, "alli")) > 0) return step2(std::string(without(w, "alli")) + "al");
  // 'logi' tests m > 0 on the word less 'ogi', the rest on the word less the suffix.
  static constexpr std::pair<std::string_view, std::string_view> kRules[] = {
      {"ational", "ate"}, {"tional", "tion"}, {"enci", "ence"},   {"anci", "ance"},   {"izer", "ize"},
      {"bli", "ble"},     {"alli", "al"},     {"entli", "ent"},    {"eli", "e"},       {"ousli", "ous"},
      {"ization", "ize"}, {"ation", "ate"},   {"ator", "ate"},     {"alism", "al"},    {"iveness", "ive"},
      {"fulness", "ful"}, {"ousness", "ous"}, {"aliti", "al"},     {"iviti", "ive"},   {"biliti", "ble"},
      {"fulli", "ful"},   {"logi", "log"},
  };
  for (const auto& [suffix, replacement] : kRules) {
    if (!ends_with(w, suffix)) continue;
    const std::string_view tested = suffix == "logi" ? std::string_view(w).substr(0, w.size() - 3) : without(w, suffix);
    if (measure(tested) <= 0) return w;
    return std::string(without(w, suffix)) + std::string(replacement);
  }
  return w;
}

std::string step3(const std::string& w) {
  return apply_rules(w, {{"icate", "ic", 1},
                         {"ative", "", 1},
                         {"alize", "al", 1},
                         {"iciti", "ic", 1},
                         {"ical", "ic", 1},
                         {"ful", "", 1},
                         {"ness", "", 1}});
}

std::string step4(const std::string& w) {
  static constexpr std::string_view kSuffixes[] = {"al",  "ance", "ence", "er",  "ic",  "able", "ible",
                                                   "ant", "ement", "ment", "ent", "ion", "ou",   "ism",
                                                   "ate", "iti",  "ous",  "ive", "ize"};
  for (std::string_view suffix : kSuffixes) {
    if (!ends_with(w, suffix)) continue;
    const std::string_view stem = without(w, suffix);
    bool ok = measure(stem) > 1;
    if (suffix == "ion") ok = ok && (stem.back() == 's' || stem.back() == 't');
    return ok ? std::string(stem) : w;
  }
  return w;
}

std::string step5a(const std::string& w) {
  if (!ends_with(w, "e")) return w;
  const std::string_view stem = without(w, "e");
  const int m = measure(stem);
  if (m > 1 || (m == 1 && !ends_cvc(stem))) return std::string(stem);
  return w;
}

std::string step5b(const std::string& w) {
  if (ends_with(w, "ll") && measure(without(w, "l")) > 1) return std::string(without(w, "l"));
  return w;
}

// NLTK's irregular forms, looked up before any step.
bool irregular(std::string_view w, std::string& out) {
  static constexpr std::pair<std::string_view, std::string_view> kPool[] = {
      {"sky", "sky"},         {"skies", "sky"},     {"dying", "die"},     {"lying", "lie"},
      {"tying", "tie"},       {"news", "news"},     {"innings", "inning"}, {"inning", "inning"},
      {"outings", "outing"},  {"outing", "outing"}, {"cannings", "canning"}, {"canning", "canning"},
      {"howe", "howe"},       {"proceed", "proceed"}, {"exceed", "exceed"}, {"succeed", "succeed"},
  };
  for (const auto& [form, stem] : kPool) {
    if (w == form) {
      out.assign(stem);
      return true;
    }
  }
  return false;
}

}  // namespace

void porter_stem(std::string_view word, std::string& out) {
  if (irregular(word, out)) return;
  if (word.size() <= 2) {
    out.assign(word);
    return;
  }
  std::string w(word);
  w = step1a(w);
  w = step1b(w);
  w = step1c(w);
  w = step2(w);
  w = step3(w);
  w = step4(w);
  w = step5a(w);
  w = step5b(w);
  out = std::move(w);
}

}  // namespace fastamfm
