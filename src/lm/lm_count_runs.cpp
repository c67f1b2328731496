#include "lm/lm_count_runs.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <numeric>
#include <stdexcept>

namespace fastamfm {

GramArray sort_grams(const GramArray& grams) {
  std::vector<uint32_t> order(grams.size());
  std::iota(order.begin(), order.end(), 0u);
  const int n = grams.n;
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return gram_less(grams.at(a), grams.at(b), n); });
  GramArray out;
  out.n = n;
  out.ids.reserve(grams.ids.size());
  out.counts.reserve(grams.size());
  for (uint32_t i : order) out.push_back(grams.at(i), grams.counts[i]);
  return out;
}

CountRun::CountRun(const std::string& directory, const GramArray& sorted) : n_(sorted.n), records_(sorted.size()) {
  std::string name = (directory.empty() ? std::string("/tmp") : directory) + "/fastamfm-counts-XXXXXX";
  std::vector<char> buffer(name.begin(), name.end());
  buffer.push_back('\0');
  const int fd = ::mkstemp(buffer.data());
  if (fd < 0) throw std::runtime_error(name + ": cannot create a spill file: " + std::strerror(errno));
  description_ = buffer.data();
  ::unlink(buffer.data());  // anonymous from now on: removed when closed
  file_ = ::fdopen(fd, "w+b");
  if (!file_) {
    ::close(fd);
    throw std::runtime_error(description_ + ": cannot open the spill file");
  }
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (std::fwrite(sorted.at(i), sizeof(uint32_t), static_cast<size_t>(n_), file_) != static_cast<size_t>(n_) ||
        std::fwrite(&sorted.counts[i], sizeof(uint64_t), 1, file_) != 1)
      throw std::runtime_error(description_ + ": writing a spill file failed (disk full?): " + std::strerror(errno));
  }
  if (std::fflush(file_) != 0)
    throw std::runtime_error(description_ + ": writing a spill file failed (disk full?): " + std::strerror(errno));
}

CountRun::~CountRun() {
  if (file_) std::fclose(file_);
}

void CountRun::rewind() { std::rewind(file_); }

bool CountRun::next(uint32_t* gram, uint64_t& count) {
  const size_t got = std::fread(gram, sizeof(uint32_t), static_cast<size_t>(n_), file_);
  if (got == 0 && std::feof(file_)) return false;
  if (got != static_cast<size_t>(n_) || std::fread(&count, sizeof(uint64_t), 1, file_) != 1)
    throw std::runtime_error(description_ + ": spill file truncated while merging");
  return true;
}

GramArray merge_runs(std::vector<std::unique_ptr<CountRun>>& runs, const GramArray& rest) {
  const int n = rest.n;
  // Source k < runs.size() is a run; the last source is `rest`.
  const size_t k = runs.size() + 1;
  std::vector<uint32_t> heads(k * static_cast<size_t>(n));
  std::vector<uint64_t> head_counts(k);
  std::vector<bool> live(k, false);
  size_t rest_pos = 0;
  auto advance = [&](size_t s) {
    uint32_t* head = heads.data() + s * static_cast<size_t>(n);
    if (s + 1 < k) {
      live[s] = runs[s]->next(head, head_counts[s]);
    } else if (rest_pos < rest.size()) {
      std::copy(rest.at(rest_pos), rest.at(rest_pos) + n, head);
      head_counts[s] = rest.counts[rest_pos++];
      live[s] = true;
    } else {
      live[s] = false;
    }
  };
  for (auto& run : runs) run->rewind();
  for (size_t s = 0; s < k; ++s) advance(s);

  GramArray out;
  out.n = n;
  for (;;) {
    size_t best = k;
    for (size_t s = 0; s < k; ++s) {
      if (live[s] && (best == k || gram_less(heads.data() + s * n, heads.data() + best * n, n))) best = s;
    }
    if (best == k) break;
    const uint32_t* gram = heads.data() + best * static_cast<size_t>(n);
    if (out.size() > 0 && gram_equal(out.at(out.size() - 1), gram, n)) {
      out.counts.back() += head_counts[best];
    } else {
      out.push_back(gram, head_counts[best]);
    }
    advance(best);
  }
  return out;
}

}  // namespace fastamfm
