// Checks of the C++ core without Python, for compilers and platforms the Python suite is
// not built on (.ci/compilers runs them with g++-13, g++-14 and clang in a Debian 13 root):
// what the numbers rest on (Python's two float sums, sacrebleu's tokenizers and BLEU,
// language models whose probabilities sum to one), and refusals of malformed structures
// that Python hands over from pickles (n-gram counts, counted documents, document
// frequencies) and of invalid UTF-8. Prints one line per failed check; exit 1 on any.
//
//   cmake --build BUILD --target fastamfm_core_checks && BUILD/fastamfm_core_checks
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "common/python_sum.hpp"
#include "lm/lm_count_merge.hpp"
#include "lm/lm_counter.hpp"
#include "lm/lm_training.hpp"
#include "lsi/term_document.hpp"
#include "overlap/bleu.hpp"
#include "overlap/document_frequency.hpp"
#include "text/hashing.hpp"
#include "text/sacrebleu_tokenizers.hpp"
#include "text/utf8.hpp"

using namespace fastamfm;

namespace {

int failures = 0, checks = 0;

void check(bool ok, const std::string& what) {
  ++checks;
  if (!ok) {
    ++failures;
    std::fprintf(stderr, "FAILED: %s\n", what.c_str());
  }
}

// Runs fn and checks that it throws InputError whose message contains `expected`.
template <class Fn>
void check_refused(Fn&& fn, const std::string& expected, const std::string& what) {
  try {
    fn();
    check(false, what + ": not refused");
  } catch (const InputError& e) {
    check(std::string(e.what()).find(expected) != std::string::npos,
          what + ": message '" + e.what() + "' lacks '" + expected + "'");
  }
}

double python_sum(PythonSum kind, const std::vector<double>& values) {
  PythonFloatSum sum(kind);
  for (double v : values) sum.add(v);
  return sum.value();
}

void python_sums() {
  // What CPython 3.11 and 3.12 print for the same lists.
  const std::vector<double> tenths(10, 0.1);
  check(python_sum(PythonSum::Plain, tenths) == 0.9999999999999999, "3.11 sum([0.1] * 10)");
  check(python_sum(PythonSum::Compensated, tenths) == 1.0, "3.12 sum([0.1] * 10)");
  check(python_sum(PythonSum::Plain, {1e100, 1.0, -1e100}) == 0.0, "3.11 sum([1e100, 1.0, -1e100])");
  check(python_sum(PythonSum::Compensated, {1e100, 1.0, -1e100}) == 1.0, "3.12 sum([1e100, 1.0, -1e100])");
  check(std::isinf(python_sum(PythonSum::Compensated, {1e308, 1e308})), "an overflowing sum stays infinite");
  check(!std::signbit(python_sum(PythonSum::Compensated, {-0.0})), "sum([-0.0]) is 0.0 (it starts from int 0)");
}

std::vector<std::string> split(std::string_view text) {
  std::vector<std::string> out;
  std::string word;
  for (char c : text) {
    if (c == ' ') {
      if (!word.empty()) out.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) out.push_back(word);
  return out;
}

void sacrebleu_tokenizers() {
  std::string scratch;
  const auto tokens = [&](SacrebleuTokenize kind, std::string_view text) {
    return split(sacrebleu_tokenize(kind, text, scratch));
  };
  using V = std::vector<std::string>;
  check(tokens(SacrebleuTokenize::Mteval13a, "Hello, world! It costs $3.50.") ==
            V{"Hello", ",", "world", "!", "It", "costs", "$", "3.50", "."},
        "13a splits punctuation, not the decimal point");
  check(tokens(SacrebleuTokenize::Mteval13a, "a &amp; b") == V{"a", "&", "b"}, "13a decodes &amp;");
  check(tokens(SacrebleuTokenize::Intl, "\xc2\xab" "ca\xc2\xbb, 1,5") == V{"\xc2\xab", "ca", "\xc2\xbb", ",", "1,5"},
        "intl splits Unicode punctuation, not between digits");
  check(tokens(SacrebleuTokenize::Char, "ab c") == V{"a", "b", "c"}, "char: a token per character");
  check(is_sacrebleu_chinese(0x4E2D) && !is_sacrebleu_chinese('a'), "zh knows a CJK ideograph");
}

void sacrebleu_scores() {
  // sacrebleu's BLEU.compute_bleu as Python 3.11 and 3.12 compute it (math.exp(sum(logs) / 4)).
  const uint64_t guess[4] = {6, 5, 4, 3}, correct[4] = {5, 3, 1, 1};
  for (PythonSum kind : {PythonSum::Plain, PythonSum::Compensated})
    check(sacrebleu_bleu(6, 6, guess, guess, 4, BleuSmoothing::Exp, -1, false, kind) == 100.00000000000004,
          "a hypothesis equal to its reference scores sacrebleu's 100.00000000000004");
  check(sacrebleu_bleu(6, 6, guess, correct, 4, BleuSmoothing::Exp, -1, false, PythonSum::Plain) == 45.180100180492225,
        "BLEU of 5/6, 3/5, 1/4, 1/3 as Python 3.11 sums it");
  check(sacrebleu_bleu(6, 6, guess, correct, 4, BleuSmoothing::Exp, -1, false, PythonSum::Compensated) ==
            45.180100180492246,
        "BLEU of 5/6, 3/5, 1/4, 1/3 as Python 3.12 sums it");
  const uint64_t none[4] = {0, 0, 0, 0};
  check(sacrebleu_bleu(6, 6, guess, none, 4, BleuSmoothing::Exp, -1, false, PythonSum::Compensated) == 0.0,
        "no match scores 0");
}

NgramCounts count(const std::vector<std::string>& corpus, int order) {
  NgramCounter counter(CounterOptions{order, size_t{1} << 30, "/tmp", 2}, Tokenizer(), {});
  TextBatch batch;
  for (const auto& s : corpus) batch.push_back(s);
  counter.add(batch);
  return counter.finish();
}

// Sum over every word w (and </s>) of P(w | <s>): 1 for a normalized model.
double mass_after_bos(const NgramModel& model) {
  double total = std::pow(10.0, model.score(nullptr, 0, true, true));  // P(</s> | <s>)
  for (size_t i = 0; i < model.vocab_size(); ++i) {
    const std::string_view word = model.word(i);
    if (word == "<s>" || word == "</s>") continue;
    const TokenId id = hash_token(word);
    total += std::pow(10.0, model.score(&id, 1, true, false));
  }
  return total;
}

void language_models() {
  const std::vector<std::string> corpus = {"the cat sat on the mat", "the dog sat", "a cat and a dog", "the end"};
  for (LmSmoothing smoothing : {LmSmoothing::KneserNey, LmSmoothing::Katz}) {
    LmTrainOptions options;
    options.smoothing = smoothing;
    options.workers = 2;
    std::vector<std::string> discounts;
    const NgramModel model = train_lm(count(corpus, 3), options, discounts);
    const double mass = mass_after_bos(model);
    check(std::fabs(mass - 1.0) < 1e-5, std::string(smoothing == LmSmoothing::Katz ? "Katz" : "Kneser-Ney") +
                                            ": P(. | <s>) sums to " + std::to_string(mass));
  }
}

void ngram_count_invariants() {
  NgramCounts counts = count({"a b"}, 3);
  validate_ngram_counts(counts);  // a corpus's counts pass
  check(counts.orders[2].size() == 2, "\"a b\" has two trigrams");
  // The trigram "a a a": neither its prefix nor its suffix "a a" is counted.
  uint32_t a = 0;
  for (uint32_t id = 0; id < counts.words.size(); ++id)
    if (counts.words[id] == "a") a = id;
  NgramCounts broken = counts;
  GramArray& trigrams = broken.orders[2];
  GramArray sorted;
  sorted.n = 3;
  const uint32_t aaa[3] = {a, a, a};
  bool placed = false;
  for (size_t i = 0; i < trigrams.size(); ++i) {
    if (!placed && gram_less(aaa, trigrams.at(i), 3)) {
      sorted.push_back(aaa, 1);
      placed = true;
    }
    sorted.push_back(trigrams.at(i), trigrams.counts[i]);
  }
  if (!placed) sorted.push_back(aaa, 1);
  trigrams = sorted;
  check_refused([&] { validate_ngram_counts(broken); }, "order 3 holds 'a a a' but order 2 lacks its prefix 'a a'",
                "n-gram counts without the prefix of an n-gram");
  NgramCounts twice = counts;
  twice.words.back() = "a";
  check_refused([&] { validate_ngram_counts(twice); }, "the word 'a' is listed twice", "a word listed twice");
}

void counted_documents() {
  CountedDocuments docs;
  docs.type_ids = {hash_token("a")};
  docs.type_words = {"a"};
  docs.ids = {hash_token("a")};
  docs.counts = {1};
  docs.offsets = {0, uint64_t{1} << 40, 1};
  check_refused([&] { docs.validate(); }, "offsets decrease", "an offset past the ids");
  docs.offsets = {0, 1};
  docs.validate();
  docs.type_words = {"b"};
  check_refused([&] { docs.validate(); }, "is not the hash of its word", "a type id that is not its word's hash");
}

void document_frequencies() {
  DocumentFrequency df(2);
  check_refused([&] { df.add_entries({{7, 1}, {5, 1}}, 3); }, "ascending", "entries out of order");
  check_refused([&] { df.add_entries({{5, 4}}, 3); }, "outside 1..3", "a count above the segments");
  df.add_entries({{5, 2}, {7, 1}}, 3);
  check(df.num_ngrams() == 2 && df.num_segments() == 3, "valid entries are added");
}

void utf8() {
  check_refused([] { validate_utf8("ok \xff", "text", 4); }, "text 4: invalid UTF-8 at byte 3", "invalid UTF-8");
  validate_utf8("\xc3\xa7" "a", "text", 0);
}

}  // namespace

int main() {
  python_sums();
  sacrebleu_tokenizers();
  sacrebleu_scores();
  language_models();
  ngram_count_invariants();
  counted_documents();
  document_frequencies();
  utf8();
  std::printf("native core checks: %d checks, %d failed\n", checks, failures);
  return failures ? 1 : 0;
}
