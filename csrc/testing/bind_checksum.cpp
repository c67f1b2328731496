// fastamfm._testing checksums: the fuzz harnesses (tests/fuzz) repair the
// checksums of mutated binary files so that the fuzzer reaches the structural
// checks behind them instead of stopping at the checksum every time.
#include <string>

#include "testing_bindings.hpp"
#include "io/checksum.hpp"

namespace fastamfm::bindings {

void register_checksum_hooks(py::module_& t) {
  t.def(
      "checksum64",
      [](const py::bytes& data) {
        const std::string bytes = data;
        return checksum64(bytes.data(), bytes.size());
      },
      py::arg("data"), "checksum64 of the bytes (LM, word-vector cache and METEOR cache files)");
  t.def(
      "lsi_checksum",
      [](const py::bytes& data) {
        const std::string bytes = data;
        LsiChecksum sum;
        sum.update(bytes.data(), bytes.size());
        return sum.value();
      },
      py::arg("data"), "the LSI model file's checksum of the bytes");
}

}  // namespace fastamfm::bindings
