// fastamfm._core: registers each area's bindings; the logic lives in src/.
#include "bindings.hpp"

PYBIND11_MODULE(_core, m) {
  m.doc() = "fastamfm C++ core";
  using namespace fastamfm::bindings;
  register_errors(m);
  register_limits(m);
  register_text(m);
  register_references(m);
  // Types before the signatures that name them: the n-gram metrics register
  // EncodedHypotheses, which LSI and LM methods take.
  register_nlg_metrics(m);
  register_embedding(m);
  register_lsi(m);
  register_lm(m);
  register_generation_metrics(m);
  register_meteor(m);
  register_flatten_references(m);
}
