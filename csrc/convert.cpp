#include <string>

#include "bindings.hpp"
#include "text/utf8.hpp"

namespace fastamfm::bindings {

TextBatch to_text_batch(py::handle sequence, const char* what) {
  if (PyUnicode_Check(sequence.ptr()) || PyBytes_Check(sequence.ptr()))
    throw py::type_error(std::string(what) + " must be a sequence of strings, not a single string");
  if (!PySequence_Check(sequence.ptr()))
    throw py::type_error(std::string(what) + " must be a sequence of strings, got " +
                         std::string(py::str(py::type::of(sequence).attr("__name__"))));
  py::sequence seq = py::reinterpret_borrow<py::sequence>(sequence);
  const size_t n = py::len(seq);
  TextBatch batch;
  batch.reserve(n, n * 64);
  for (size_t i = 0; i < n; ++i) {
    py::object item = seq[i];
    PyObject* obj = item.ptr();
    if (PyUnicode_Check(obj)) {
      Py_ssize_t size = 0;
      const char* data = PyUnicode_AsUTF8AndSize(obj, &size);
      if (!data) {
        PyErr_Clear();
        throw py::value_error(std::string(what) + "[" + std::to_string(i) +
                              "]: string cannot be encoded as UTF-8 (lone surrogate)");
      }
      batch.push_back(std::string_view(data, static_cast<size_t>(size)));
    } else if (PyBytes_Check(obj)) {
      std::string_view bytes(PyBytes_AS_STRING(obj), static_cast<size_t>(PyBytes_GET_SIZE(obj)));
      const size_t bad = find_invalid_utf8(bytes);
      if (bad != SIZE_MAX)
        throw py::value_error(std::string(what) + "[" + std::to_string(i) + "]: invalid UTF-8 at byte " +
                              std::to_string(bad));
      batch.push_back(bytes);
    } else {
      throw py::type_error(std::string(what) + "[" + std::to_string(i) + "] is " +
                           std::string(py::str(py::type::of(item).attr("__name__"))) + ", expected str");
    }
  }
  return batch;
}

InterruptCheck python_interrupt_check() {
  return []() {
    py::gil_scoped_acquire acquire;
    return PyErr_CheckSignals() != 0;
  };
}

void register_errors(py::module_& m) {
  // A corrupt or truncated file: a ValueError subclass users can catch precisely.
  static py::exception<FormatError> format_error(m, "FormatError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const FormatError& e) {
      py::set_error(format_error, e.what());
    } catch (const Interrupted& e) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
    }
  });
}

}  // namespace fastamfm::bindings
