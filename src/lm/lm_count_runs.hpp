// Sorted runs of n-gram counts spilled to disk, and their k-way merge.
//
// While counting, the counts of each order live in a hash table. When all tables
// together outgrow the memory budget, each table is sorted and written out as a
// run, and counting continues with empty tables. At the end the runs and the last
// in-memory table are merged in sorted order, summing the counts of equal n-grams.
// Run files are unlinked as soon as they are created, so they never outlive the
// process (not even after a crash); only their open descriptors keep them.
#pragma once
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "lm/lm_grams.hpp"

namespace fastamfm {

// Returns `grams` sorted with gram_less (counts move with their n-grams).
GramArray sort_grams(const GramArray& grams);

class CountRun {
 public:
  // Writes the already sorted `grams` to a new anonymous file in `directory`.
  CountRun(const std::string& directory, const GramArray& sorted);
  ~CountRun();
  CountRun(const CountRun&) = delete;
  CountRun& operator=(const CountRun&) = delete;

  int order() const { return n_; }
  uint64_t records() const { return records_; }
  uint64_t bytes() const { return records_ * (4 * static_cast<uint64_t>(n_) + 8); }
  // Reading back, from the first record: false at the end of the run.
  void rewind();
  bool next(uint32_t* gram, uint64_t& count);

 private:
  int n_;
  uint64_t records_;
  std::FILE* file_ = nullptr;
  std::string description_;
};

// Merges the runs (all of one order) and the sorted in-memory `rest` into one
// sorted array without duplicates.
GramArray merge_runs(std::vector<std::unique_ptr<CountRun>>& runs, const GramArray& rest);

}  // namespace fastamfm
