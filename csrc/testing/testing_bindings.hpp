// fastamfm._testing: hooks through which the tests drive the core where no public input
// can (thread failures and Ctrl-C inside parallel_for, exceptions no input provokes safely,
// the token hash and file checksums the fuzz harnesses repair). A test-only module: built
// with FASTAMFM_TEST_HOOKS=ON (the test command and the sanitizer job), never in a wheel.
#pragma once
#include "../bindings.hpp"

namespace fastamfm::bindings {

void register_threading_hooks(py::module_& m);
void register_hash_hooks(py::module_& m);
void register_checksum_hooks(py::module_& m);

}  // namespace fastamfm::bindings
