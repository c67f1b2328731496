// Shared helpers of the binding layer: converting Python inputs to core types,
// releasing the GIL around core calls, and one register_* function per area.
#pragma once
#include <pybind11/pybind11.h>

#include <string>
#include <utility>

#include "common/errors.hpp"
#include "common/python_sum.hpp"
#include "parallel/parallel.hpp"
#include "text/text_batch.hpp"

namespace fastamfm::bindings {

namespace py = pybind11;

// Copies a sequence of str (or UTF-8 bytes) into a TextBatch. `what` names the
// argument in errors: TypeError "hyps[3] is int, expected str", ValueError
// "hyps[3]: invalid UTF-8 at byte 5".
TextBatch to_text_batch(py::handle sequence, const char* what);

// An InterruptCheck that briefly takes the GIL and runs Python's signal handlers;
// true when one raised (KeyboardInterrupt), leaving that exception pending.
InterruptCheck python_interrupt_check();

// Runs fn() with the GIL released. Safe because fn only touches core objects that
// the caller converted beforehand. An Interrupted from the core becomes the
// pending Python exception (usually KeyboardInterrupt).
template <class Fn>
auto without_gil(Fn&& fn) -> decltype(fn()) {
  try {
    py::gil_scoped_release release;
    return fn();
  } catch (const Interrupted&) {
    if (PyErr_Occurred()) throw py::error_already_set();
    throw;
  }
}

// How this interpreter's sum() adds floats (compensated from CPython 3.12 on): the
// module is built for one interpreter version, so its headers say which.
constexpr PythonSum kInterpreterSum = PY_VERSION_HEX >= 0x030C0000 ? PythonSum::Compensated : PythonSum::Plain;

void register_errors(py::module_& m);
void register_limits(py::module_& m);
void register_text(py::module_& m);
void register_references(py::module_& m);
void register_embedding(py::module_& m);
void register_lsi(py::module_& m);
void register_lm(py::module_& m);
void register_nlg_metrics(py::module_& m);
void register_generation_metrics(py::module_& m);
void register_meteor(py::module_& m);
void register_flatten_references(py::module_& m);

}  // namespace fastamfm::bindings
