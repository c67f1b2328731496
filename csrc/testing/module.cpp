// fastamfm._testing: the test hooks (see testing_bindings.hpp).
#include "testing_bindings.hpp"

PYBIND11_MODULE(_testing, m) {
  m.doc() = "fastamfm test hooks (built with FASTAMFM_TEST_HOOKS=ON; not part of the library)";
  // The core's exception translators (FormatError, MemoryError...) are registered when
  // fastamfm._core is imported; the hooks' exceptions are mapped by them.
  pybind11::module_::import("fastamfm._core");
  using namespace fastamfm::bindings;
  register_threading_hooks(m);
  register_hash_hooks(m);
  register_checksum_hooks(m);
}
