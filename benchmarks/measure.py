"""How the table scripts measure: wall-clock and CPU time side by side, medians of
interleaved repeats, child processes with their own CPU time and peak memory, the
machine's load while measuring, and aligned tables of the results.

The benchmark machines are shared, so a wall-clock ratio alone says little: every
row reports CPU time (user + sys, all threads; for a child process including the
children it waited for, e.g. the METEOR jar's JVM) beside wall time, and every
table names the load average sampled while it was measured.
"""
from __future__ import annotations

import os
import resource
import statistics
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Timing:
    """One measured run (or the median of several): seconds of wall-clock time, CPU
    seconds (user + sys), and the peak resident memory in MiB where known."""

    wall: float
    cpu: float
    peak_mib: float | None = None

    def scaled(self, factor: float) -> Timing:
        return Timing(self.wall * factor, self.cpu * factor, self.peak_mib)


def _cpu_seconds(usage) -> float:
    return usage.ru_utime + usage.ru_stime


def timed(fn):
    """(Timing, fn()) of one call in this process (CPU: every thread of this process)."""
    wall, cpu = time.perf_counter(), _cpu_seconds(resource.getrusage(resource.RUSAGE_SELF))
    result = fn()
    return Timing(time.perf_counter() - wall, _cpu_seconds(resource.getrusage(resource.RUSAGE_SELF)) - cpu), result


def median(timings: list) -> Timing:
    """Field-wise median of several timings."""
    peaks = [t.peak_mib for t in timings if t.peak_mib is not None]
    return Timing(statistics.median(t.wall for t in timings), statistics.median(t.cpu for t in timings),
                  statistics.median(peaks) if peaks else None)


def repeated(fn, repeats: int, warmup: int = 0):
    """(median Timing of ``repeats`` calls after ``warmup`` untimed ones, the last result)."""
    for _ in range(warmup):
        fn()
    runs, result = [], None
    for _ in range(repeats):
        timing, result = timed(fn)
        runs.append(timing)
    return median(runs), result


def interleaved(sides: dict, repeats: int) -> dict:
    """{name: (median Timing, last result)} of measuring callables run in turn, repeat
    after repeat, so that a change of load on a shared machine hits every side alike.
    Each side returns (Timing, result): ``lambda: timed(fn)`` for work in this
    process, or a child process's own measurement (``run_child``)."""
    runs = {name: [] for name in sides}
    results = {}
    for _ in range(repeats):
        for name, measure in sides.items():
            timing, results[name] = measure()
            runs[name].append(timing)
    return {name: (median(runs[name]), results[name]) for name in sides}


@dataclass(frozen=True)
class ChildRun:
    timing: Timing
    returncode: int
    stdout: str
    stderr: str


def run_child(command: list, *, env: dict | None = None, cwd=None, check: bool = True) -> ChildRun:
    """Run ``command`` as a child process and measure it alone: wall time, CPU time and
    peak RSS from its own rusage (``wait4``), so neither this process nor other
    children count."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(command, stdout=out, stderr=err, env=env, cwd=cwd, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here; Popen must not wait again
        out.seek(0)
        err.seek(0)
        run = ChildRun(Timing(wall, _cpu_seconds(usage), usage.ru_maxrss / 1024.0), proc.returncode, out.read(),
                       err.read())
    if check and run.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, command))} failed ({run.returncode}):\n{run.stderr[-4000:]}")
    return run


class LoadMonitor:
    """The 1-minute load average, sampled every ``interval`` seconds on a thread while
    the ``with`` block runs (the machine is shared: the load says how far to trust a
    wall-clock ratio)."""

    def __init__(self, interval: float = 2.0):
        self.interval = interval
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> LoadMonitor:
        self.samples = [os.getloadavg()[0]]
        self._stop.clear()
        self._thread = threading.Thread(target=self._sample, name="load-monitor", daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(self.interval):
            self.samples.append(os.getloadavg()[0])

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self.samples.append(os.getloadavg()[0])

    def __str__(self) -> str:
        s = self.samples
        return (f"load average (1 min) during the run: mean {statistics.mean(s):.1f}, min {min(s):.1f}, "
                f"max {max(s):.1f} on {os.cpu_count()} cores")


def print_table(title: str, header: list, rows: list, notes: list = ()) -> None:
    """An aligned text table: the first column left-aligned, the others right-aligned."""
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    print(f"\n== {title}")
    for row in cells:
        print("  " + "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
    for note in notes:
        print(f"  ({note})")


def seconds(x: float) -> str:
    return f"{x * 1e3:.2f} ms" if x < 0.1 else f"{x:.3f} s" if x < 10 else f"{x:.1f} s"


def ratio(x: float) -> str:
    return f"{x:.1f}x" if x >= 10 else f"{x:.2f}x"


def speed_rows(label: str, peer: Timing, ours: Timing) -> list:
    """Table cells comparing a peer and fastamfm on one task: wall and CPU seconds and
    the speed-ups (peer / fastamfm) for both."""
    return [label, seconds(peer.wall), seconds(ours.wall), ratio(peer.wall / ours.wall),
            seconds(peer.cpu), seconds(ours.cpu), ratio(peer.cpu / ours.cpu)]


SPEED_HEADER = ["task", "peer wall", "fastamfm wall", "wall speed-up", "peer CPU", "fastamfm CPU", "CPU speed-up"]
