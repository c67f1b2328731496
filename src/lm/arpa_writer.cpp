#include "lm/arpa_writer.hpp"

#include <charconv>

#include "io/atomic_file.hpp"
#include "common/errors.hpp"

namespace fastamfm {

namespace {
constexpr size_t kFlushBytes = size_t{1} << 20;

void append_float(std::string& out, float value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out.append(buffer, result.ptr);
}
}  // namespace

void write_arpa(const NgramModel& model, const std::string& path, const InterruptCheck& interrupted) {
  AtomicFile file(path);
  std::string out = "\\data\\\n";
  const int order = model.order();
  for (int n = 1; n <= order; ++n) out += "ngram " + std::to_string(n) + "=" + std::to_string(model.count(n)) + "\n";
  for (int n = 1; n <= order; ++n) {
    out += "\n\\" + std::to_string(n) + "-grams:\n";
    const uint32_t* ids = model.ids(n);
    const float* prob = model.log10_prob(n);
    const float* backoff = model.log10_backoff(n);
    for (size_t i = 0; i < model.count(n); ++i) {
      append_float(out, prob[i]);
      for (int k = 0; k < n; ++k) {
        out.push_back(k == 0 ? '\t' : ' ');
        out += model.word(ids[i * static_cast<size_t>(n) + k]);
      }
      if (n < order) {
        out.push_back('\t');
        append_float(out, backoff[i]);
      }
      out.push_back('\n');
      if (out.size() >= kFlushBytes) {
        file.write(out);
        out.clear();
        if (interrupted && interrupted()) throw Interrupted();
      }
    }
  }
  out += "\n\\end\\\n";
  file.write(out);
  file.commit();
}

}  // namespace fastamfm
