#include "lm/lm_counter.hpp"

#include <cstdlib>
#include <numeric>

#include "common/errors.hpp"
#include "io/line_reader.hpp"
#include "text/tokenized_batch.hpp"

namespace fastamfm {

namespace {
constexpr size_t kFileChunkLines = 65536;

bool is_marker(std::string_view token) { return token == "<s>" || token == "</s>" || token == "<unk>"; }

std::string default_temp_dir() {
  const char* env = std::getenv("TMPDIR");
  return env && *env ? std::string(env) : std::string("/tmp");
}
}  // namespace

NgramCounter::NgramCounter(CounterOptions options, Tokenizer tokenizer, const std::vector<std::string>& closed_vocabulary)
    : options_(std::move(options)), tokenizer_(std::move(tokenizer)), closed_(!closed_vocabulary.empty()) {
  if (options_.order < 1 || options_.order > kMaxLmOrder)
    throw InputError("order must be between 1 and " + std::to_string(kMaxLmOrder) + ", got " +
                     std::to_string(options_.order));
  if (options_.temp_dir.empty()) options_.temp_dir = default_temp_dir();
  resolve_workers(options_.workers);
  vocab_.add("<unk>");
  vocab_.add("<s>");
  vocab_.add("</s>");
  for (const auto& word : closed_vocabulary)
    if (!is_marker(word)) vocab_.add(word);
  unigram_counts_.assign(vocab_.size(), 0);
  for (int n = 2; n <= options_.order; ++n) {
    grams_.emplace_back();
    grams_.back().n = n;
    index_.emplace_back(n);
  }
  runs_.resize(grams_.size());
}

void require_counts_not_taken(const NgramCounts& counts) {
  if (counts.orders.empty()) throw InputError("these NgramCounts were already used to train a model");
}

void NgramCounter::check_not_finished() const {
  if (finished_)
    throw InputError("this NgramCounter was already finished: its counts were handed over (count with a new counter)");
}

void NgramCounter::add(const TextBatch& texts, const InterruptCheck& interrupted) {
  check_not_finished();
  const TokenizedBatch tokens = tokenize_batch(texts, tokenizer_, options_.workers, interrupted);
  // Word ids are assigned here, in input order, so they never depend on threads.
  std::vector<uint32_t> padded;
  std::vector<size_t> starts;
  padded.reserve(tokens.total_tokens() + 2 * tokens.size());
  starts.reserve(tokens.size() + 1);
  for (size_t i = 0; i < tokens.size(); ++i) {
    starts.push_back(padded.size());
    padded.push_back(kLmBos);
    for (size_t j = 0; j < tokens.num_tokens(i); ++j) {
      const std::string_view token = tokens.token(i, j);
      if (is_marker(token)) continue;
      uint32_t id = vocab_.find(tokens.ids(i)[j]);
      if (id == Vocabulary::kNotFound) {
        if (closed_) {
          id = kLmUnk;
        } else {
          id = vocab_.add(token);
          unigram_counts_.push_back(0);
        }
      }
      padded.push_back(id);
      ++unigram_counts_[id];
      ++tokens_;
    }
    padded.push_back(kLmEos);
    ++unigram_counts_[kLmBos];
    ++unigram_counts_[kLmEos];
  }
  starts.push_back(padded.size());
  sentences_ += tokens.size();

  parallel_parts(
      grams_.size(), options_.workers,
      [&](size_t part) {
        GramArray& grams = grams_[part];
        GramIndex& index = index_[part];
        const size_t n = static_cast<size_t>(grams.n);
        for (size_t s = 0; s + 1 < starts.size(); ++s) {
          for (size_t i = starts[s]; i + n <= starts[s + 1]; ++i) index.add(grams, padded.data() + i, 1);
        }
      },
      interrupted);
  if (table_bytes() > options_.memory_budget) spill();
}

void NgramCounter::add_file(const std::string& path, const InterruptCheck& interrupted) {
  check_not_finished();
  LineReader reader(path);
  for (;;) {
    TextBatch chunk;
    if (reader.read_into(chunk, kFileChunkLines) == 0) return;
    add(chunk, interrupted);
  }
}

size_t NgramCounter::table_bytes() const {
  size_t bytes = 0;
  for (size_t i = 0; i < grams_.size(); ++i)
    bytes += grams_[i].ids.capacity() * sizeof(uint32_t) + grams_[i].counts.capacity() * sizeof(uint64_t) +
             index_[i].memory_bytes();
  return bytes;
}

void NgramCounter::spill() {
  for (size_t i = 0; i < grams_.size(); ++i) {
    if (grams_[i].size() == 0) continue;
    runs_[i].push_back(std::make_unique<CountRun>(options_.temp_dir, sort_grams(grams_[i])));
    ++spilled_runs_;
    const int n = grams_[i].n;
    grams_[i] = GramArray();
    grams_[i].n = n;
    index_[i] = GramIndex(n);
  }
}

NgramCounts NgramCounter::finish(const InterruptCheck& interrupted) {
  check_not_finished();
  // Set first: the tables are emptied below (their n-gram length included), so
  // even a finish that is interrupted half-way leaves nothing to count into.
  finished_ = true;
  NgramCounts out;
  out.words = vocab_.words();
  out.sentences = sentences_;
  out.tokens = tokens_;
  out.spilled_runs = spilled_runs_;
  out.closed_vocabulary = closed_;
  out.orders.resize(static_cast<size_t>(options_.order));
  GramArray& unigrams = out.orders[0];
  unigrams.n = 1;
  // Every word id once, in order (written out rather than push_back(&id, ...), whose
  // n-long copy from one local id gcc 13/14 cannot prove in bounds: -Warray-bounds).
  unigrams.ids.resize(unigram_counts_.size());
  std::iota(unigrams.ids.begin(), unigrams.ids.end(), uint32_t{0});
  unigrams.counts = unigram_counts_;
  parallel_parts(
      grams_.size(), options_.workers,
      [&](size_t part) {
        GramArray sorted = sort_grams(grams_[part]);
        grams_[part] = GramArray();
        index_[part] = GramIndex();
        out.orders[part + 1] = runs_[part].empty() ? std::move(sorted) : merge_runs(runs_[part], sorted);
        runs_[part].clear();
      },
      interrupted);
  return out;
}

}  // namespace fastamfm
