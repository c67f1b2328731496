// A read-only string -> id table that lives inside a flat byte buffer (the METEOR
// resource cache), so that loading it is a memory map instead of a rebuild.
// Layout: the strings back to back, their offsets, and an open-addressing table
// of (id + 1) slots probed linearly from hash_token(string).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "meteor/meteor_flat_arrays.hpp"

namespace fastamfm {

class StringIndex {
 public:
  static constexpr uint32_t kMissing = UINT32_MAX;

  StringIndex() = default;
  // Reads the three arrays that StringIndexBuilder::write appended.
  explicit StringIndex(FlatArrayReader& reader);

  // The id of `s`, or kMissing.
  uint32_t find(std::string_view s) const;
  bool contains(std::string_view s) const { return find(s) != kMissing; }
  size_t size() const { return offsets_.size() == 0 ? 0 : offsets_.size() - 1; }
  std::string_view at(uint32_t id) const {
    return std::string_view(blob_.data() + offsets_[id], offsets_[id + 1] - offsets_[id]);
  }

 private:
  FlatArray<char> blob_;
  FlatArray<uint64_t> offsets_;
  FlatArray<uint32_t> slots_;
};

// Assigns ids in first-seen order and serialises the table.
class StringIndexBuilder {
 public:
  // The id of `s`, adding it when new.
  uint32_t intern(std::string_view s);
  uint32_t find(std::string_view s) const;
  size_t size() const { return offsets_.size() - 1; }
  void write(FlatArrayWriter& writer) const;
  std::string_view at(uint32_t id) const {
    return std::string_view(blob_.data() + offsets_[id], offsets_[id + 1] - offsets_[id]);
  }

 private:
  std::string blob_;
  std::vector<uint64_t> offsets_{0};
  std::vector<uint32_t> slots_ = std::vector<uint32_t>(1024, 0);
  void grow();
};

}  // namespace fastamfm
