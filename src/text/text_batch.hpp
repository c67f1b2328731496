// A batch of n UTF-8 strings stored contiguously: the one input type of the core.
// The bindings copy Python strings into it before the GIL is released, so worker
// threads never touch Python objects.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fastamfm {

class TextBatch {
 public:
  TextBatch() : offsets_{0} {}

  void reserve(size_t n_texts, size_t n_bytes) {
    offsets_.reserve(n_texts + 1);
    data_.reserve(n_bytes);
  }
  void push_back(std::string_view text) {
    data_.append(text.data(), text.size());
    offsets_.push_back(data_.size());
  }
  size_t size() const { return offsets_.size() - 1; }
  bool empty() const { return size() == 0; }
  size_t total_bytes() const { return data_.size(); }
  std::string_view operator[](size_t i) const {
    return std::string_view(data_.data() + offsets_[i], offsets_[i + 1] - offsets_[i]);
  }

 private:
  std::string data_;
  std::vector<uint64_t> offsets_;
};

}  // namespace fastamfm
