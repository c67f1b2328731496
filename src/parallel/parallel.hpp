// Splitting work across threads. The calling (Python) thread releases the GIL,
// waits for the workers and polls `interrupted` so Ctrl-C stops a long call; the
// first exception a worker throws stops the others and is rethrown to the caller.
#pragma once
#include <cstddef>
#include <functional>

namespace fastamfm {

// Returns true when the caller wants the work abandoned (e.g. a pending SIGINT).
using InterruptCheck = std::function<bool()>;

// workers: -1 (or 0) = every core; >= 1 = that many threads. Anything else is an error.
int resolve_workers(int workers);

// Runs body(begin, end) over [0, n) in chunks of at least min_chunk items.
// Chunks are taken dynamically, so body must not depend on which thread runs it.
// Throws Interrupted when `interrupted` returned true.
void parallel_for(size_t n, int workers, const std::function<void(size_t, size_t)>& body,
                  const InterruptCheck& interrupted = {}, size_t min_chunk = 1);

// Splits [0, n) into parts of about `part_size` items for parallel_parts.
inline size_t part_count(size_t n, size_t part_size) { return (n + part_size - 1) / part_size; }

// Runs body(part) for part in [0, n_parts): for work whose result is built per part
// and joined in order afterwards, so the output never depends on the thread count.
void parallel_parts(size_t n_parts, int workers, const std::function<void(size_t)>& body,
                    const InterruptCheck& interrupted = {});

}  // namespace fastamfm
