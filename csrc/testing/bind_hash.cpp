// fastamfm._testing.hash_token: lets the tests pin the token hash, which must
// never change (token and n-gram keys of separately encoded batches have to agree).
#include <string>

#include "testing_bindings.hpp"
#include "text/hashing.hpp"

namespace fastamfm::bindings {

void register_hash_hooks(py::module_& t) {
  t.def(
      "hash_token", [](const py::bytes& token) { return hash_token(std::string(token)); }, py::arg("token"),
      "hash_token of the token's bytes");
}

}  // namespace fastamfm::bindings
