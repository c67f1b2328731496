#include "parallel/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/errors.hpp"

namespace fastamfm {

int resolve_workers(int workers) {
  if (workers == -1 || workers == 0) {
    const unsigned hw = std::thread::hardware_concurrency();
    return hw == 0 ? 1 : static_cast<int>(hw);
  }
  if (workers < -1) throw InputError("workers must be -1 (all cores) or >= 1, got " + std::to_string(workers));
  return workers;
}

void parallel_for(size_t n, int workers, const std::function<void(size_t, size_t)>& body,
                  const InterruptCheck& interrupted, size_t min_chunk) {
  if (n == 0) return;
  min_chunk = std::max<size_t>(min_chunk, 1);
  const size_t max_threads = (n + min_chunk - 1) / min_chunk;
  const size_t threads = std::min<size_t>(static_cast<size_t>(resolve_workers(workers)), max_threads);
  if (threads <= 1 && !interrupted) {
    body(0, n);
    return;
  }
  // Several chunks per thread balance uneven items without a scheduler.
  const size_t chunk = std::max(min_chunk, n / (threads * 8) + 1);

  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  std::exception_ptr first_error;
  std::mutex mutex;
  std::condition_variable done_cv;
  size_t running = threads;

  auto worker = [&]() {
    try {
      while (!stop.load(std::memory_order_relaxed)) {
        const size_t begin = next.fetch_add(chunk);
        if (begin >= n) break;
        body(begin, std::min(n, begin + chunk));
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!first_error) first_error = std::current_exception();
      stop = true;
    }
    std::lock_guard<std::mutex> lock(mutex);
    if (--running == 0) done_cv.notify_all();
  };

  std::vector<std::thread> pool;
  pool.reserve(threads);
  try {
    for (size_t t = 0; t < threads; ++t) pool.emplace_back(worker);
  } catch (...) {
    // Could not start a thread: let the started ones finish, then report.
    stop = true;
    {
      std::lock_guard<std::mutex> lock(mutex);
      running -= threads - pool.size();
    }
    for (auto& th : pool) th.join();
    throw;
  }

  bool was_interrupted = false;
  {
    std::unique_lock<std::mutex> lock(mutex);
    while (running > 0) {
      done_cv.wait_for(lock, std::chrono::milliseconds(50));
      if (running > 0 && interrupted && !was_interrupted) {
        lock.unlock();
        if (interrupted()) {
          was_interrupted = true;
          stop = true;
        }
        lock.lock();
      }
    }
  }
  for (auto& th : pool) th.join();
  if (first_error) std::rethrow_exception(first_error);
  if (was_interrupted) throw Interrupted();
}

void parallel_parts(size_t n_parts, int workers, const std::function<void(size_t)>& body,
                    const InterruptCheck& interrupted) {
  parallel_for(
      n_parts, workers,
      [&](size_t begin, size_t end) {
        for (size_t p = begin; p < end; ++p) body(p);
      },
      interrupted, 1);
}

}  // namespace fastamfm
