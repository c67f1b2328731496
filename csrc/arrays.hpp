// numpy arrays from core results: the one place the binding layer copies (or hands
// over) a std::vector into a numpy array.
#pragma once
#include <pybind11/numpy.h>

#include <cstring>
#include <vector>

namespace fastamfm::bindings {

namespace py = pybind11;

// A 1-d array holding a copy of `values`.
template <class T>
py::array_t<T> to_array(const std::vector<T>& values) {
  py::array_t<T> out(static_cast<py::ssize_t>(values.size()));
  if (!values.empty()) std::memcpy(out.mutable_data(), values.data(), values.size() * sizeof(T));
  return out;
}

// A rows x cols array holding a copy of the row-major `values`.
template <class T>
py::array_t<T> to_matrix(const std::vector<T>& values, size_t rows, size_t cols) {
  py::array_t<T> out({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(cols)});
  if (!values.empty()) std::memcpy(out.mutable_data(), values.data(), values.size() * sizeof(T));
  return out;
}

// A rows x cols array that takes ownership of the row-major `values` (no copy).
template <class T>
py::array_t<T> adopt_matrix(std::vector<T> values, size_t rows, size_t cols) {
  auto* owned = new std::vector<T>(std::move(values));
  py::capsule free_when_done(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>({rows, cols}, owned->data(), free_when_done);
}

// The elements of a contiguous array as a std::vector, copied bytewise: numpy hands over
// arrays at any address (np.frombuffer at an odd offset of a file is not aligned, and
// pybind11 does not check alignment), and loading a misaligned T is undefined behaviour.
template <class T, int Flags>
std::vector<T> copy_elements(const py::array_t<T, Flags>& values) {
  std::vector<T> out(static_cast<size_t>(values.size()));
  if (!out.empty()) std::memcpy(out.data(), values.data(), out.size() * sizeof(T));
  return out;
}

// A copy of a 1-d array (any numeric dtype, converted to T) as a std::vector.
template <class T>
std::vector<T> to_vector(py::handle array) {
  const auto values = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(array);
  if (!values || values.ndim() != 1) throw py::value_error("expected a 1-d numeric array");
  return copy_elements(values);
}

}  // namespace fastamfm::bindings
