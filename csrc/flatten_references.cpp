// Ragged references (one list of reference strings per hypothesis) flattened in one
// C-level pass: the hot first step of every metric scored from raw lists, which a
// Python loop over 100k segments made a visible share of the whole scoring time.
#include <pybind11/stl.h>

#include <string>

#include "bindings.hpp"
#include "text/utf8.hpp"

namespace fastamfm::bindings {

namespace {

std::string type_name(const py::handle& obj) { return py::str(py::type::of(obj).attr("__name__")); }

// Checks one reference where its place is still known, so errors say refs[i][j]
// rather than an index into the flat list: str (UTF-8 encodable) or UTF-8 bytes.
void check_reference(PyObject* item, const std::string& name, Py_ssize_t i, Py_ssize_t j) {
  const auto where = [&] { return name + "[" + std::to_string(i) + "][" + std::to_string(j) + "]"; };
  if (PyUnicode_Check(item)) {
    Py_ssize_t size = 0;
    if (!PyUnicode_AsUTF8AndSize(item, &size)) {
      PyErr_Clear();
      throw py::value_error(where() + ": string cannot be encoded as UTF-8 (lone surrogate)");
    }
  } else if (PyBytes_Check(item)) {
    const size_t bad = find_invalid_utf8(
        std::string_view(PyBytes_AS_STRING(item), static_cast<size_t>(PyBytes_GET_SIZE(item))));
    if (bad != SIZE_MAX) throw py::value_error(where() + ": invalid UTF-8 at byte " + std::to_string(bad));
  } else {
    throw py::type_error(where() + " is " + type_name(py::handle(item)) + ", expected str");
  }
}

// The per-segment loop of fastamfm._validation.flatten_references (which checks the
// outer sequence first), with the same errors: a single string instead of a list, a
// non-sequence, an empty list of references, or a reference that is not text.
py::tuple flatten_ragged(const py::sequence& refs, const std::string& name) {
  static const py::object abc_sequence = py::module_::import("collections.abc").attr("Sequence");
  const Py_ssize_t n = PySequence_Size(refs.ptr());
  if (n < 0) throw py::error_already_set();
  py::list flat;
  py::list offsets(n + 1);
  PyList_SET_ITEM(offsets.ptr(), 0, PyLong_FromSsize_t(0));
  Py_ssize_t total = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    py::object group = py::reinterpret_steal<py::object>(PySequence_GetItem(refs.ptr(), i));
    if (!group) throw py::error_already_set();
    PyObject* g = group.ptr();
    const std::string where = name + "[" + std::to_string(i) + "]";
    if (PyUnicode_Check(g) || PyBytes_Check(g))
      throw py::type_error(where + " is a single string; " + name +
                           " must hold one list of references per hypothesis (for one reference each, wrap it: "
                           "[[r] for r in refs])");
    if (!PyList_Check(g) && !PyTuple_Check(g) && !py::isinstance(group, abc_sequence))
      throw py::type_error(where + " is " + type_name(group) + ", expected a list of strings");
    py::object items = py::reinterpret_steal<py::object>(PySequence_Fast(g, "expected a sequence"));
    if (!items) throw py::error_already_set();
    const Py_ssize_t k = PySequence_Fast_GET_SIZE(items.ptr());
    if (k == 0) throw py::value_error(where + " has no reference");
    PyObject** data = PySequence_Fast_ITEMS(items.ptr());
    for (Py_ssize_t j = 0; j < k; ++j) {
      check_reference(data[j], name, i, j);
      if (PyList_Append(flat.ptr(), data[j]) != 0) throw py::error_already_set();
    }
    total += k;
    PyList_SET_ITEM(offsets.ptr(), i + 1, PyLong_FromSsize_t(total));
  }
  return py::make_tuple(std::move(flat), std::move(offsets));
}

}  // namespace

void register_flatten_references(py::module_& m) {
  m.def("flatten_ragged", &flatten_ragged, py::arg("refs"), py::arg("name"),
        "Ragged references -> (flat list, segment offsets); the outer sequence is checked by the caller.");
}

}  // namespace fastamfm::bindings
