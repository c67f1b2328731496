#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "bindings.hpp"
#include "common/limits.hpp"
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

namespace {

// Messages quote file content, which may be any bytes: undecodable ones are shown
// as \xNN rather than turning the error into a UnicodeDecodeError.
py::str decoded(const std::string& text) {
  PyObject* s = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "backslashreplace");
  if (!s) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(s);
}

void set_error(PyObject* type, const std::string& message) { PyErr_SetObject(type, decoded(message).ptr()); }

}  // namespace

void register_errors(py::module_& m) {
  // A corrupt or truncated file: a ValueError subclass users can catch precisely,
  // with the place as attributes (None where the format has no such notion).
  static py::exception<FormatError> format_error(m, "FormatError", PyExc_ValueError);
  for (const char* attribute : {"path", "line", "column", "record"}) format_error.attr(attribute) = py::none();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const FormatError& e) {
      py::object error = py::handle(format_error.ptr())(decoded(e.what()));
      if (!e.path().empty()) error.attr("path") = decoded(e.path());
      if (e.line() > 0) error.attr("line") = e.line();
      if (e.column() > 0) error.attr("column") = e.column();
      PyErr_SetObject(format_error.ptr(), error.ptr());
    } catch (const FileError& e) {
      // The OSError of the errno: Python picks the subclass (FileNotFoundError, PermissionError...).
      const std::string reason = std::string(e.what()).substr(e.path().size() + 2) + ": " + std::strerror(e.error_number());
      py::object error = py::handle(PyExc_OSError)(e.error_number(), decoded(reason), decoded(e.path()));
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
    } catch (const Interrupted& e) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
    } catch (const InputError& e) {
      set_error(PyExc_ValueError, e.what());
    } catch (const std::bad_alloc&) {
      set_error(PyExc_MemoryError,
                "fastamfm ran out of memory: the input needs more than this machine can allocate "
                "(fastamfm.limits bounds line lengths and METEOR's candidate matches)");
    } catch (const std::length_error& e) {
      set_error(PyExc_MemoryError, std::string("fastamfm: an input is too large to hold in memory (") + e.what() + ")");
    }
  });
}

void register_limits(py::module_& m) {
  m.def("get_limits", [] {
    const Limits l = limits();
    py::dict out;
    out["max_line_bytes"] = l.max_line_bytes;
    out["meteor_max_candidates"] = l.meteor_max_candidates;
    return out;
  });
  m.def(
      "set_limits",
      [](size_t max_line_bytes, uint64_t meteor_max_candidates) {
        set_limits(Limits{max_line_bytes, meteor_max_candidates});
      },
      py::arg("max_line_bytes"), py::arg("meteor_max_candidates"));
}

}  // namespace fastamfm::bindings
