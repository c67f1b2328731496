#include "lm/lm_model.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include <cfloat>
#include <cmath>
#include <cstddef>

#include "common/errors.hpp"
#include "io/atomic_file.hpp"
#include "io/checksum.hpp"
#include "io/mapped_file.hpp"
#include "text/utf8.hpp"

namespace fastamfm {

namespace {
constexpr float kMissingUnkLog10 = -100.0f;  // kenlm's substitute when an ARPA lacks <unk>

size_t align8(size_t bytes) { return (bytes + 7) & ~size_t{7}; }

std::string describe_gram(const LmContent& c, const uint32_t* ids, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? " " : "") + c.words[ids[i]];
  return s;
}

// Anonymous memory for a model built here.
struct ImageRegion {
  void* address = nullptr;
  size_t bytes = 0;
  ~ImageRegion() {
    if (address) ::munmap(address, bytes);
  }
};

// Zeroed memory for a model image. Queries jump randomly through tables of tens
// of megabytes, so with 4 KiB pages nearly every lookup is a TLB miss: transparent
// huge pages are requested (where the kernel offers them) to avoid that.
std::shared_ptr<ImageRegion> allocate_image(size_t bytes) {
  auto region = std::make_shared<ImageRegion>();
  region->bytes = bytes;
  void* address = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (address == MAP_FAILED) throw std::bad_alloc();
  region->address = address;
  ::madvise(address, bytes, MADV_HUGEPAGE);
  return region;
}

constexpr size_t kChecksumAt = offsetof(LmHeader, checksum);

// The version-2 checksum: every byte of the image, the checksum field read as zero.
uint64_t image_checksum(const uint8_t* base, size_t bytes) {
  static const uint8_t zeros[sizeof(uint64_t)] = {};
  Checksum64Stream sum;
  sum.update(base, kChecksumAt);
  sum.update(zeros, sizeof zeros);
  sum.update(base + kChecksumAt + sizeof(uint64_t), bytes - kChecksumAt - sizeof(uint64_t));
  return sum.value();
}
}  // namespace

void NgramModel::bind(std::shared_ptr<const void> storage, const uint8_t* base) {
  storage_ = std::move(storage);
  base_ = base;
  header_ = reinterpret_cast<const LmHeader*>(base);
  for (int n = 1; n <= order(); ++n) {
    tables_[n - 1] = reinterpret_cast<const LmSlot*>(base_ + header_->orders[n - 1].table_offset);
    slots_[n - 1] = header_->orders[n - 1].table_slots;
  }
  unk_token_ = hash_token(word(header_->unk_word));
  bos_token_ = hash_token("<s>");
  eos_token_ = hash_token("</s>");
}

NgramModel NgramModel::build(const LmContent& c) {
  const int order = static_cast<int>(c.orders.size());
  if (order < 1 || order > kMaxLmOrder)
    throw InputError("language model order must be between 1 and " + std::to_string(kMaxLmOrder) + ", got " +
                     std::to_string(order));
  if (c.orders[0].size() != c.words.size() || c.orders[0].ids.size() != c.words.size())
    throw InputError("language model: the unigrams must list every word exactly once");
  const auto unk_it = std::find(c.words.begin(), c.words.end(), "<unk>");
  const bool add_unk = unk_it == c.words.end();
  const size_t vocab = c.words.size() + (add_unk ? 1 : 0);

  // Layout.
  LmHeader h{};
  std::memcpy(h.magic, kLmMagic, sizeof(kLmMagic));
  h.version = kLmFormatVersion;
  h.endian_marker = kLmEndianMarker;
  h.order = static_cast<uint32_t>(order);
  h.unk_word = static_cast<uint32_t>(add_unk ? c.words.size() : static_cast<size_t>(unk_it - c.words.begin()));
  h.vocab_size = vocab;
  size_t off = align8(sizeof(LmHeader));
  h.word_offsets_offset = off;
  off += 8 * (vocab + 1);
  h.word_bytes = 0;
  for (const auto& w : c.words) h.word_bytes += w.size();
  if (add_unk) h.word_bytes += 5;
  h.word_bytes_offset = off;
  off += align8(h.word_bytes);
  h.metadata_offset = off;
  h.metadata_bytes = c.metadata.size();
  off += align8(h.metadata_bytes);
  for (int n = 1; n <= order; ++n) {
    LmOrderSection& s = h.orders[n - 1];
    const LmOrderTable& t = c.orders[n - 1];
    if (t.ids.size() != t.size() * static_cast<size_t>(n) || t.log10_backoff.size() != t.size())
      throw InputError("language model: inconsistent arrays for order " + std::to_string(n));
    s.count = t.size() + (n == 1 && add_unk ? 1 : 0);
    s.ids_offset = off;
    off += align8(4 * s.count * static_cast<size_t>(n));
    s.prob_offset = off;
    off += align8(4 * s.count);
    s.backoff_offset = off;
    off += align8(4 * s.count);
    s.table_offset = off;
    s.table_slots = s.count + s.count / 2 + 1;
    off += sizeof(LmSlot) * s.table_slots;
  }
  h.file_bytes = off;

  auto image = allocate_image(off);
  auto* base = static_cast<uint8_t*>(image->address);

  // Words.
  auto* word_offsets = reinterpret_cast<uint64_t*>(base + h.word_offsets_offset);
  auto* word_bytes = reinterpret_cast<char*>(base + h.word_bytes_offset);
  std::vector<TokenId> word_tokens(vocab);
  uint64_t pos = 0;
  for (size_t i = 0; i < vocab; ++i) {
    const std::string& w = i < c.words.size() ? c.words[i] : std::string("<unk>");
    word_offsets[i] = pos;
    std::memcpy(word_bytes + pos, w.data(), w.size());
    pos += w.size();
    word_tokens[i] = hash_token(w);
  }
  word_offsets[vocab] = pos;
  std::memcpy(base + h.metadata_offset, c.metadata.data(), c.metadata.size());

  // N-grams and their tables, one order per thread.
  parallel_parts(static_cast<size_t>(order), -1, [&](size_t part) {
    const int n = static_cast<int>(part) + 1;
    const LmOrderSection& s = h.orders[n - 1];
    const LmOrderTable& t = c.orders[n - 1];
    auto* ids = reinterpret_cast<uint32_t*>(base + s.ids_offset);
    auto* prob = reinterpret_cast<float*>(base + s.prob_offset);
    auto* backoff = reinterpret_cast<float*>(base + s.backoff_offset);
    auto* table = reinterpret_cast<LmSlot*>(base + s.table_offset);
    std::copy(t.ids.begin(), t.ids.end(), ids);
    std::copy(t.log10_prob.begin(), t.log10_prob.end(), prob);
    std::copy(t.log10_backoff.begin(), t.log10_backoff.end(), backoff);
    if (n == 1 && add_unk) {
      ids[t.size()] = h.unk_word;
      prob[t.size()] = kMissingUnkLog10;
      backoff[t.size()] = 0.0f;
    }
    for (size_t i = 0; i < s.count; ++i) {
      const uint32_t* gram = ids + i * static_cast<size_t>(n);
      for (int k = 0; k < n; ++k)
        if (gram[k] >= vocab) throw InputError("language model: word id out of range in order " + std::to_string(n));
      uint64_t key = lm_key_start(word_tokens[gram[n - 1]]);
      for (int k = n - 2; k >= 0; --k) key = lm_key_extend(key, word_tokens[gram[k]]);
      uint64_t slot = lm_slot_of(key, s.table_slots);
      while (table[slot].key != 0) {
        if (table[slot].key == key)
          throw FormatError("language model: the " + std::to_string(n) + "-gram '" + describe_gram(c, gram, n) +
                            "' is listed twice (or two words share a 64-bit id)");
        if (++slot == s.table_slots) slot = 0;
      }
      table[slot] = LmSlot{key, prob[i], backoff[i]};
    }
  });
  h.checksum = 0;
  std::memcpy(base, &h, sizeof(LmHeader));
  h.checksum = image_checksum(base, h.file_bytes);
  std::memcpy(base + kChecksumAt, &h.checksum, sizeof h.checksum);
  NgramModel model;
  model.bind(std::shared_ptr<const void>(image, image->address), base);
  return model;
}

bool NgramModel::is_binary_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[sizeof(kLmMagic)] = {};
  in.read(magic, sizeof(magic));
  return in.gcount() == sizeof(magic) && std::memcmp(magic, kLmMagic, sizeof(magic)) == 0;
}

namespace {
// Checks that a file image is a complete, uncorrupted model before anything
// trusts an offset in it; afterwards every query stays inside the image.
void validate_image(const std::string& path, const uint8_t* base, size_t bytes) {
  auto fail = [&](const std::string& what) { throw FormatError(path, 0, "corrupt fastamfm language model: " + what); };
  if (bytes < sizeof(LmHeader)) fail("file too short for the header (" + std::to_string(bytes) + " bytes)");
  LmHeader h;
  std::memcpy(&h, base, sizeof(LmHeader));
  if (std::memcmp(h.magic, kLmMagic, sizeof(kLmMagic)) != 0)
    throw FormatError(path, 0, "not a fastamfm binary language model (bad magic bytes)");
  if (h.endian_marker != kLmEndianMarker) fail("written on a machine of other byte order");
  if (h.version < kLmOldestReadableVersion || h.version > kLmFormatVersion)
    throw FormatError(path, 0, "fastamfm language model format version " + std::to_string(h.version) +
                                   "; this fastamfm reads versions " + std::to_string(kLmOldestReadableVersion) +
                                   " to " + std::to_string(kLmFormatVersion));
  if (h.file_bytes != bytes)
    fail("header says " + std::to_string(h.file_bytes) + " bytes but the file has " + std::to_string(bytes) +
         " (truncated?)");
  if (bytes % 8 != 0) fail("size is not a multiple of 8");
  const uint64_t sum = h.version == 1 ? checksum64(base + sizeof(LmHeader), bytes - sizeof(LmHeader))
                                      : image_checksum(base, bytes);
  if (sum != h.checksum) fail("checksum mismatch (the file was damaged or modified after it was written)");
  if (h.order < 1 || h.order > kMaxLmOrder) fail("order " + std::to_string(h.order));
  auto check_range = [&](uint64_t offset, uint64_t count, uint64_t unit, const char* what) {
    if (offset % 8 != 0 || offset < sizeof(LmHeader) || offset > bytes || count > (bytes - offset) / unit)
      fail(std::string(what) + " section out of range");
  };
  if (h.vocab_size == 0 || h.vocab_size >= UINT32_MAX || h.unk_word >= h.vocab_size) fail("vocabulary size");
  check_range(h.word_offsets_offset, h.vocab_size + 1, 8, "word offsets");
  check_range(h.word_bytes_offset, h.word_bytes, 1, "words");
  check_range(h.metadata_offset, h.metadata_bytes, 1, "metadata");
  const auto* offsets = reinterpret_cast<const uint64_t*>(base + h.word_offsets_offset);
  if (offsets[0] != 0 || offsets[h.vocab_size] != h.word_bytes) fail("word offsets");
  for (uint64_t i = 0; i < h.vocab_size; ++i)
    if (offsets[i + 1] < offsets[i]) fail("word offsets");
  // Words and metadata become Python strings: they must decode.
  const std::string_view words(reinterpret_cast<const char*>(base + h.word_bytes_offset), h.word_bytes);
  if (find_invalid_utf8(words) != SIZE_MAX) fail("a word is not valid UTF-8");
  if (find_invalid_utf8(std::string_view(reinterpret_cast<const char*>(base + h.metadata_offset), h.metadata_bytes)) !=
      SIZE_MAX)
    fail("the metadata is not valid UTF-8");
  if (h.orders[0].count != h.vocab_size) fail("unigram count differs from the vocabulary size");
  for (uint32_t n = h.order + 1; n <= kMaxLmOrder; ++n)
    if (h.orders[n - 1].count != 0 || h.orders[n - 1].table_slots != 0) fail("sections beyond the model's order");
  for (uint32_t n = 1; n <= h.order; ++n) {
    const LmOrderSection& s = h.orders[n - 1];
    const std::string order_name = std::to_string(n) + "-grams";
    check_range(s.ids_offset, s.count, 4 * static_cast<uint64_t>(n), "n-gram ids");
    check_range(s.prob_offset, s.count, 4, "probabilities");
    check_range(s.backoff_offset, s.count, 4, "backoffs");
    check_range(s.table_offset, s.table_slots, sizeof(LmSlot), "hash table");
    if (s.table_slots <= s.count) fail("hash table too small");
    const auto* ids = reinterpret_cast<const uint32_t*>(base + s.ids_offset);
    for (uint64_t i = 0; i < s.count * n; ++i)
      if (ids[i] >= h.vocab_size) fail("word id out of range");
    // As the ARPA reader: log10 probabilities NaN-free and at most 0, backoffs finite
    // (empty table slots hold zeros). Accumulated without branches: this scan is
    // most of the load time.
    const auto possible = [](float prob, float backoff) {
      return static_cast<int>(prob <= 0.0f) & static_cast<int>(std::fabs(backoff) <= FLT_MAX);
    };
    const auto* prob = reinterpret_cast<const float*>(base + s.prob_offset);
    const auto* backoff = reinterpret_cast<const float*>(base + s.backoff_offset);
    int all_possible = 1;
    for (uint64_t i = 0; i < s.count; ++i) all_possible &= possible(prob[i], backoff[i]);
    if (!all_possible) fail("impossible probability or backoff among the " + order_name);
    const auto* table = reinterpret_cast<const LmSlot*>(base + s.table_offset);
    uint64_t empty = 0;
    for (uint64_t i = 0; i < s.table_slots; ++i) {
      empty += table[i].key == 0;
      all_possible &= possible(table[i].prob, table[i].backoff);
    }
    if (!all_possible) fail("impossible probability or backoff in the " + order_name + " table");
    // At least one empty slot (slots > count), so every probe sequence ends.
    if (empty != s.table_slots - s.count) fail("hash table does not match the n-gram count");
  }
}
}  // namespace

NgramModel NgramModel::load(const std::string& path, bool use_mmap) {
  // Mapped: queries jump through the tables at random, so they are read ahead and backed by
  // huge pages where possible. Copied: later changes to the file (truncation included)
  // cannot reach the model.
  auto image = std::make_shared<MappedFile>(path, use_mmap ? MappedFile::Access::kPrivate
                                                           : MappedFile::Access::kCopy);
  if (use_mmap) image->advise_random();
  const uint8_t* base = image->data();
  validate_image(path, base, image->size());
  NgramModel model;
  model.bind(std::shared_ptr<const void>(image, base), base);
  model.check_tables(path, model.header_->version == 1);
  return model;
}

void NgramModel::check_tables(const std::string& path, bool every_ngram) const {
  auto fail = [&](const std::string& what) { throw FormatError(path, 0, "corrupt fastamfm language model: " + what); };
  // Queries fall back to <unk> for unknown words, so <unk> must be in the table.
  if (word(header_->unk_word) != "<unk>" || find(1, lm_key_start(unk_token_)) == nullptr)
    fail("<unk> is not where the header says, or missing from the unigram table");
  // A version-1 header has no checksum: its offsets are trusted only once every
  // n-gram is found in its table with its own probability and backoff.
  if (!every_ngram) return;
  std::vector<TokenId> tokens(vocab_size());
  for (size_t w = 0; w < tokens.size(); ++w) tokens[w] = hash_token(word(w));
  for (int n = 1; n <= order(); ++n) {
    const uint32_t* gram = ids(n);
    for (size_t i = 0; i < count(n); ++i, gram += n) {
      uint64_t key = lm_key_start(tokens[gram[n - 1]]);
      for (int k = n - 2; k >= 0; --k) key = lm_key_extend(key, tokens[gram[k]]);
      const LmSlot* slot = find(n, key);
      if (slot == nullptr || std::memcmp(&slot->prob, log10_prob(n) + i, sizeof(float)) != 0 ||
          std::memcmp(&slot->backoff, log10_backoff(n) + i, sizeof(float)) != 0)
        fail("the " + std::to_string(n) + "-gram table does not hold the listed n-grams");
    }
  }
}

void NgramModel::save(const std::string& path) const {
  // Always the current version: a model read from an older file is written anew
  // (the body is the same; the header gets this version and its checksum).
  LmHeader h = *header_;
  h.version = kLmFormatVersion;
  h.checksum = 0;
  const uint8_t* body = base_ + sizeof(LmHeader);
  const size_t body_bytes = header_->file_bytes - sizeof(LmHeader);
  Checksum64Stream sum;
  sum.update(&h, sizeof h);
  sum.update(body, body_bytes);
  h.checksum = sum.value();
  AtomicFile file(path);
  file.write(&h, sizeof h);
  file.write(body, body_bytes);
  file.commit();
}

std::string_view NgramModel::word(size_t i) const {
  const auto* offsets = reinterpret_cast<const uint64_t*>(base_ + header_->word_offsets_offset);
  return std::string_view(reinterpret_cast<const char*>(base_ + header_->word_bytes_offset) + offsets[i],
                          offsets[i + 1] - offsets[i]);
}

std::string_view NgramModel::metadata() const {
  return std::string_view(reinterpret_cast<const char*>(base_ + header_->metadata_offset), header_->metadata_bytes);
}

const uint32_t* NgramModel::ids(int n) const {
  return reinterpret_cast<const uint32_t*>(base_ + header_->orders[n - 1].ids_offset);
}
const float* NgramModel::log10_prob(int n) const {
  return reinterpret_cast<const float*>(base_ + header_->orders[n - 1].prob_offset);
}
const float* NgramModel::log10_backoff(int n) const {
  return reinterpret_cast<const float*>(base_ + header_->orders[n - 1].backoff_offset);
}

inline const LmSlot* NgramModel::find(int n, uint64_t key) const {
  const LmSlot* table = tables_[n - 1];
  const uint64_t slots = slots_[n - 1];
  for (uint64_t s = lm_slot_of(key, slots);;) {
    if (table[s].key == key) return &table[s];
    if (table[s].key == 0) return nullptr;
    if (++s == slots) s = 0;
  }
}

// By the ARPA prefix property no n-gram extends a context that does not exist,
// and by the suffix property an n-gram missing at some length is missing at every
// longer length; so only contexts that exist are kept in the state, and each
// n-gram is looked up at most once.
NgramModel::State NgramModel::begin_sentence(bool bos) const {
  State state;
  if (bos && order() > 1) {
    if (const LmSlot* s = find(1, lm_key_start(bos_token_))) {
      state.history[0] = bos_token_;
      state.backoff[0] = s->backoff;
      state.context_len = 1;
    }
  }
  return state;
}

void NgramModel::prepare(const State& state, TokenId word, Lookup& lookup) const {
  lookup.word = word;
  lookup.longest = std::min(order(), state.context_len + 1);
  lookup.keys[0] = lm_key_start(word);
  for (int len = 2; len <= lookup.longest; ++len)
    lookup.keys[len - 1] = lm_key_extend(lookup.keys[len - 2], state.history[len - 2]);
  for (int len = 1; len <= lookup.longest; ++len)
    __builtin_prefetch(tables_[len - 1] + lm_slot_of(lookup.keys[len - 1], slots_[len - 1]));
}

TokenScore NgramModel::advance(State& state, Lookup& lookup) const {
  const LmSlot* slot = find(1, lookup.keys[0]);
  const bool oov = slot == nullptr;
  if (oov) {
    prepare(state, unk_token_, lookup);
    slot = find(1, lookup.keys[0]);
  }
  // Longest known n-gram ending in the word; its slots become the next state.
  const LmSlot* matched_slots[kMaxLmOrder];
  matched_slots[0] = slot;
  int matched = 1;
  for (int len = 2; len <= lookup.longest; ++len) {
    const LmSlot* s = find(len, lookup.keys[len - 1]);
    if (!s) break;
    matched_slots[len - 1] = s;
    matched = len;
  }
  float log10_prob = matched_slots[matched - 1]->prob;
  for (int k = matched - 1; k < state.context_len; ++k) log10_prob += state.backoff[k];
  // The matched n-grams of lengths 1..order-1 are the contexts of the next word.
  state.context_len = std::min(matched, order() - 1);
  for (int k = state.context_len - 1; k > 0; --k) state.history[k] = state.history[k - 1];
  state.history[0] = lookup.word;
  for (int k = 0; k < state.context_len; ++k) state.backoff[k] = matched_slots[k]->backoff;
  return TokenScore{log10_prob, static_cast<uint8_t>(matched), oov};
}

void NgramModel::prefetch_ending_at(const TokenId* tokens, size_t n_tokens, size_t end) const {
  auto word = [&](size_t j) { return j < n_tokens ? tokens[j] : eos_token_; };
  const int longest = static_cast<int>(std::min<size_t>(static_cast<size_t>(order()), end + 1));
  uint64_t key = lm_key_start(word(end));
  __builtin_prefetch(tables_[0] + lm_slot_of(key, slots_[0]));
  for (int len = 2; len <= longest; ++len) {
    key = lm_key_extend(key, word(end + 1 - static_cast<size_t>(len)));
    __builtin_prefetch(tables_[len - 1] + lm_slot_of(key, slots_[len - 1]));
  }
}

double NgramModel::score(const TokenId* tokens, size_t n_tokens, bool bos, bool eos, TokenScore* out) const {
  State state = begin_sentence(bos);
  Lookup lookup;
  double total = 0.0;
  const size_t predictions = n_tokens + (eos ? 1 : 0);
  // The coming words are known, so the slots their lookups will touch are
  // prefetched a few predictions ahead and the cache misses overlap.
  constexpr size_t kAhead = 2;
  for (size_t i = 0; i < std::min(kAhead, predictions); ++i) prefetch_ending_at(tokens, n_tokens, i);
  for (size_t i = 0; i < predictions; ++i) {
    if (i + kAhead < predictions) prefetch_ending_at(tokens, n_tokens, i + kAhead);
    prepare(state, i < n_tokens ? tokens[i] : eos_token_, lookup);
    const TokenScore scored = advance(state, lookup);
    total += scored.log10_prob;
    if (out) out[i] = scored;
  }
  return total;
}

std::vector<double> score_batch(const NgramModel& model, const TokenizedBatch& batch, bool bos, bool eos,
                                int workers, const InterruptCheck& interrupted) {
  std::vector<double> out(batch.size());
  parallel_for(
      batch.size(), workers,
      [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) out[i] = model.score(batch.ids(i), batch.num_tokens(i), bos, eos);
      },
      interrupted, 1024);
  return out;
}

std::vector<double> score_texts(const NgramModel& model, const TextBatch& texts, const Tokenizer& tokenizer, bool bos,
                                bool eos, int workers, const InterruptCheck& interrupted) {
  std::vector<double> out(texts.size());
  parallel_for(
      texts.size(), workers,
      [&](size_t begin, size_t end) {
        std::string scratch;
        std::vector<TokenId> ids;
        for (size_t i = begin; i < end; ++i) {
          ids.clear();
          tokenizer.for_each_token(texts[i], scratch, [&](std::string_view token) { ids.push_back(hash_token(token)); });
          out[i] = model.score(ids.data(), ids.size(), bos, eos);
        }
      },
      interrupted, 1024);
  return out;
}

void token_scores_batch(const NgramModel& model, const TokenizedBatch& batch, bool bos, bool eos, int workers,
                        std::vector<TokenScore>& out, std::vector<uint64_t>& offsets,
                        const InterruptCheck& interrupted) {
  offsets.assign(batch.size() + 1, 0);
  for (size_t i = 0; i < batch.size(); ++i) offsets[i + 1] = offsets[i] + batch.num_tokens(i) + (eos ? 1 : 0);
  out.resize(offsets.back());
  parallel_for(
      batch.size(), workers,
      [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i)
          model.score(batch.ids(i), batch.num_tokens(i), bos, eos, out.data() + offsets[i]);
      },
      interrupted, 1024);
}

}  // namespace fastamfm
