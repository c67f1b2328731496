// fastamfm._testing: hooks that let the tests drive the threading utility
// (exception propagation, Ctrl-C, thread-count independence) through real code paths,
// and the exception mapping with errors no input can provoke safely (out of memory).
#include <chrono>
#include <new>
#include <stdexcept>
#include <thread>

#include "testing_bindings.hpp"

namespace fastamfm::bindings {

void register_threading_hooks(py::module_& t) {
  t.def(
      "parallel_sum",
      [](size_t n, int workers, int sleep_us, int64_t fail_at) {
        std::vector<uint64_t> seen(n, 0);
        const auto check = python_interrupt_check();
        without_gil([&] {
          parallel_for(
              n, workers,
              [&](size_t begin, size_t end) {
                for (size_t i = begin; i < end; ++i) {
                  if (static_cast<int64_t>(i) == fail_at)
                    throw InputError("item " + std::to_string(i) + " failed on purpose");
                  if (sleep_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
                  seen[i] += 1;
                }
              },
              check);
          return 0;
        });
        uint64_t total = 0;
        for (size_t i = 0; i < n; ++i) {
          if (seen[i] != 1) throw std::runtime_error("item " + std::to_string(i) + " processed " + std::to_string(seen[i]) + " times");
          total += i;
        }
        return total;
      },
      py::arg("n"), py::arg("workers") = -1, py::arg("sleep_us") = 0, py::arg("fail_at") = -1);
  t.def(
      "throw_core_error",
      [](const std::string& kind) {
        without_gil([&] {
          if (kind == "format") throw FormatError("data.bin", 7, "bad \xff byte", 3);
          if (kind == "input") throw InputError("texts[2]: bad \xfe byte");
          if (kind == "bad_alloc") throw std::bad_alloc();
          if (kind == "length_error") throw std::length_error("vector::reserve");
          return 0;
        });
      },
      py::arg("kind"), "throws the core exception `kind` from a worker-free core call");
}

}  // namespace fastamfm::bindings
