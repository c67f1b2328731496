#include "meteor/meteor_string_index.hpp"

#include "common/errors.hpp"
#include "text/hashing.hpp"

namespace fastamfm {

void FlatArrayReader::fail(const char* what) const {
  throw FormatError(where_, 0,
                    "byte " + std::to_string(pos_) + ": " + what +
                        " (a corrupt or foreign METEOR resource cache; delete it to rebuild)");
}

StringIndex::StringIndex(FlatArrayReader& reader)
    : blob_(reader.next<char>()), offsets_(reader.next<uint64_t>()), slots_(reader.next<uint32_t>()) {
  const size_t n = offsets_.size();
  if (n == 0 || offsets_[0] != 0) reader.fail("string index without offsets");
  for (size_t i = 1; i < n; ++i)
    if (offsets_[i] < offsets_[i - 1] || offsets_[i] > blob_.size()) reader.fail("string offsets out of range");
  const size_t cap = slots_.size();
  if (cap == 0 || (cap & (cap - 1)) != 0 || cap < n) reader.fail("string table size is not a power of two");
  size_t empty = 0;
  for (uint32_t s : slots_) {
    if (s > n - 1) reader.fail("string table slot out of range");
    empty += s == 0;
  }
  // Each string once, and a free slot left so that every probe sequence ends.
  if (empty != cap - (n - 1) || empty == 0) reader.fail("string table does not match its strings");
}

uint32_t StringIndex::find(std::string_view s) const {
  if (slots_.size() == 0) return kMissing;
  const size_t mask = slots_.size() - 1;
  for (size_t slot = hash_token(s) & mask;; slot = (slot + 1) & mask) {
    const uint32_t v = slots_[slot];
    if (v == 0) return kMissing;
    if (at(v - 1) == s) return v - 1;
  }
}

uint32_t StringIndexBuilder::find(std::string_view s) const {
  const size_t mask = slots_.size() - 1;
  for (size_t slot = hash_token(s) & mask;; slot = (slot + 1) & mask) {
    const uint32_t v = slots_[slot];
    if (v == 0) return StringIndex::kMissing;
    if (at(v - 1) == s) return v - 1;
  }
}

uint32_t StringIndexBuilder::intern(std::string_view s) {
  const size_t mask = slots_.size() - 1;
  size_t slot = hash_token(s) & mask;
  for (;; slot = (slot + 1) & mask) {
    const uint32_t v = slots_[slot];
    if (v == 0) break;
    if (at(v - 1) == s) return v - 1;
  }
  const auto id = static_cast<uint32_t>(size());
  blob_.append(s);
  offsets_.push_back(blob_.size());
  slots_[slot] = id + 1;
  if (size() * 2 > slots_.size()) grow();
  return id;
}

void StringIndexBuilder::grow() {
  std::vector<uint32_t> bigger(slots_.size() * 2, 0);
  const size_t mask = bigger.size() - 1;
  for (uint32_t id = 0; id < size(); ++id) {
    size_t slot = hash_token(at(id)) & mask;
    while (bigger[slot] != 0) slot = (slot + 1) & mask;
    bigger[slot] = id + 1;
  }
  slots_.swap(bigger);
}

void StringIndexBuilder::write(FlatArrayWriter& writer) const {
  writer.add(blob_);
  writer.add(offsets_);
  writer.add(slots_);
}

}  // namespace fastamfm
