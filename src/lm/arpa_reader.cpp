#include "lm/arpa_reader.hpp"

#include <sys/stat.h>

#include <charconv>
#include <cmath>
#include <string_view>

#include "common/errors.hpp"
#include "io/line_reader.hpp"
#include "lm/lm_grams.hpp"
#include "text/vocabulary.hpp"

namespace fastamfm {

namespace {
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// Splits on spaces and tabs into at most `max_fields` fields; returns the count
// (max_fields + 1 means "more than max_fields").
size_t split_fields(std::string_view line, std::string_view* fields, size_t max_fields) {
  size_t count = 0, i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    if (i == line.size()) break;
    size_t j = i;
    while (j < line.size() && !is_space(line[j])) ++j;
    if (count == max_fields) return max_fields + 1;
    fields[count++] = line.substr(i, j - i);
    i = j;
  }
  return count;
}

class ArpaParser {
 public:
  ArpaParser(const std::string& path, const InterruptCheck& interrupted)
      : path_(path), reader_(path), interrupted_(interrupted) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) file_bytes_ = static_cast<uint64_t>(st.st_size);
  }

  LmContent parse() {
    read_header();
    LmContent out;
    out.metadata = "source=arpa\n";
    for (int n = 1; n <= static_cast<int>(declared_.size()); ++n) read_section(n, out);
    expect_end();
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw FormatError(path_, reader_.line_number(), what); }
  bool next_line() {
    if (!reader_.next(line_)) return false;
    if ((reader_.line_number() & 0xFFFFF) == 0 && interrupted_ && interrupted_()) throw Interrupted();
    return true;
  }
  // Next line that is not blank; false at end of file.
  bool next_content_line() {
    while (next_line())
      if (!trim(line_).empty()) return true;
    return false;
  }

  void read_header() {
    for (;;) {
      if (!next_line()) throw FormatError(path_, 0, "no \\data\\ section: not an ARPA language model");
      if (trim(line_) == "\\data\\") break;
    }
    while (next_content_line()) {
      const std::string_view t = trim(line_);
      if (t.substr(0, 6) != "ngram ") {
        have_section_line_ = true;
        break;
      }
      const size_t eq = t.find('=');
      unsigned n = 0;
      uint64_t count = 0;
      const std::string_view order_text = trim(t.substr(6, eq == std::string_view::npos ? 0 : eq - 6));
      const std::string_view count_text = eq == std::string_view::npos ? std::string_view() : trim(t.substr(eq + 1));
      if (eq == std::string_view::npos ||
          std::from_chars(order_text.data(), order_text.data() + order_text.size(), n).ptr !=
              order_text.data() + order_text.size() ||
          std::from_chars(count_text.data(), count_text.data() + count_text.size(), count).ptr !=
              count_text.data() + count_text.size() || order_text.empty() || count_text.empty())
        fail("malformed \\data\\ line '" + std::string(t) + "' (expected 'ngram N=count')");
      if (n != declared_.size() + 1)
        fail("\\data\\ declares order " + std::to_string(n) + " after order " + std::to_string(declared_.size()) +
             " (orders must be 1, 2, ... in turn)");
      if (n > static_cast<unsigned>(kMaxLmOrder))
        fail("order " + std::to_string(n) + " is above the supported maximum " + std::to_string(kMaxLmOrder));
      // An entry takes at least 2 bytes per field ("p w\n"): a count the file cannot
      // hold is corrupt, and must not size an allocation.
      if (count > file_bytes_ / (2 * (n + 1)))
        fail("\\data\\ declares " + std::to_string(count) + " " + std::to_string(n) + "-grams, more than the file's " +
             std::to_string(file_bytes_) + " bytes can hold");
      if (n == 1 && count >= UINT32_MAX) fail("more than 2^32-1 unigrams are not supported");
      declared_.push_back(count);
    }
    if (declared_.empty()) fail("the \\data\\ section declares no 'ngram N=count' lines");
  }

  void read_section(int n, LmContent& out) {
    const std::string header = "\\" + std::to_string(n) + "-grams:";
    if (!have_section_line_ && !next_content_line())
      fail("file ends before the " + header + " section (truncated?)");
    have_section_line_ = false;
    if (trim(line_) != header) fail("expected '" + header + "', found '" + std::string(trim(line_)) + "'");
    const int order = static_cast<int>(declared_.size());
    const uint64_t expected = declared_[n - 1];
    LmOrderTable table;
    table.ids.reserve(expected * n);
    table.log10_prob.reserve(expected);
    table.log10_backoff.reserve(expected);
    std::string_view fields[kMaxLmOrder + 2];
    std::vector<uint32_t> gram(n);
    for (;;) {
      if (!next_line()) {
        fail("file ends inside the " + header + " section after " + std::to_string(table.size()) + " of " +
             std::to_string(expected) + " entries (truncated?)");
      }
      const std::string_view t = trim(line_);
      if (t.empty() || t.front() == '\\') {
        if (!t.empty()) have_section_line_ = true;
        break;
      }
      const size_t k = split_fields(t, fields, kMaxLmOrder + 2);
      const bool with_backoff = static_cast<int>(k) == n + 2 && n < order;
      if (static_cast<int>(k) != n + 1 && !with_backoff)
        fail("a " + header.substr(1, header.size() - 2) + " line needs a log10 probability, " + std::to_string(n) +
             (n == 1 ? " word" : " words") + (n < order ? " and an optional backoff" : "") + "; found " +
             (k > static_cast<size_t>(kMaxLmOrder + 1) ? std::string("more") : std::to_string(k)) +
             (k == 1 ? " field in '" : " fields in '") +
             std::string(t) + "'");
      const float prob = parse_number(fields[0], "probability");
      // As kenlm: a log10 probability may be -inf (a word that never occurs) but not
      // NaN or above 0; a backoff must be finite.
      if (std::isnan(prob) || prob > 0.0f)
        fail("log10 probability " + std::string(fields[0]) + " is " +
             (std::isnan(prob) ? "not a number" : "positive (a probability above 1)"));
      const float backoff = with_backoff ? parse_number(fields[n + 1], "backoff") : 0.0f;
      if (!std::isfinite(backoff)) fail("backoff " + std::string(fields[n + 1]) + " is not a finite number");
      for (int i = 0; i < n; ++i) gram[i] = word_id(fields[i + 1], n, out);
      if (table.size() == expected)
        fail("the " + header + " section has more entries than the " + std::to_string(expected) +
             " that \\data\\ declared");
      table.ids.insert(table.ids.end(), gram.begin(), gram.end());
      table.log10_prob.push_back(prob);
      table.log10_backoff.push_back(backoff);
    }
    if (table.size() != expected)
      fail("the " + header + " section has " + std::to_string(table.size()) + " entries but \\data\\ declared " +
           std::to_string(expected));
    out.orders.push_back(std::move(table));
  }

  float parse_number(std::string_view text, const char* what) const {
    float value = 0.0f;
    const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
    if (result.ec != std::errc() || result.ptr != text.data() + text.size())
      fail(std::string("cannot parse the ") + what + " '" + std::string(text) + "'");
    return value;
  }

  uint32_t word_id(std::string_view word, int n, LmContent& out) {
    if (n == 1) {
      const uint32_t id = vocab_.add(word);
      if (id != out.words.size()) fail("the unigram '" + std::string(word) + "' is listed twice");
      out.words.emplace_back(word);
      return id;
    }
    const uint32_t id = vocab_.find(word);
    if (id == Vocabulary::kNotFound) fail("the word '" + std::string(word) + "' is not among the unigrams");
    return id;
  }

  void expect_end() {
    if (!have_section_line_ && !next_content_line()) fail("file ends without \\end\\ (truncated?)");
    const std::string_view t = trim(line_);
    if (t != "\\end\\") {
      if (t.size() > 2 && t.front() == '\\' && t.find("-grams:") != std::string_view::npos)
        fail("section '" + std::string(t) + "' is beyond the order " + std::to_string(declared_.size()) +
             " that \\data\\ declared");
      fail("expected \\end\\, found '" + std::string(t) + "'");
    }
  }

  std::string path_;
  LineReader reader_;
  const InterruptCheck& interrupted_;
  std::string line_;
  bool have_section_line_ = false;  // line_ holds a "\..." line not yet consumed
  std::vector<uint64_t> declared_;
  uint64_t file_bytes_ = UINT64_MAX;
  Vocabulary vocab_;
};
}  // namespace

LmContent read_arpa(const std::string& path, const InterruptCheck& interrupted) {
  return ArpaParser(path, interrupted).parse();
}

}  // namespace fastamfm
