"""The threading utility: every item once, first exception rethrown, Ctrl-C honoured."""
from __future__ import annotations

import _thread
import signal
import threading
import time

import pytest

_testing = pytest.importorskip("fastamfm._testing", reason="fastamfm was built without its test hooks (FASTAMFM_TEST_HOOKS=ON; the README's test command builds them)")
parallel_sum = _testing.parallel_sum


@pytest.mark.parametrize("workers", [1, 2, 3, -1])
@pytest.mark.parametrize("n", [0, 1, 7, 10_000])
def test_every_item_exactly_once(workers, n):
    assert parallel_sum(n, workers) == n * (n - 1) // 2


def test_first_exception_is_rethrown_as_value_error():
    with pytest.raises(ValueError, match="item 4321 failed on purpose"):
        parallel_sum(10_000, workers=2, fail_at=4321)


def test_invalid_worker_count():
    with pytest.raises(ValueError, match="workers must be -1"):
        parallel_sum(10, workers=-5)


@pytest.fixture
def ctrl_c_handled():
    """Python's own Ctrl-C handler, whatever the run inherited: a background job starts
    with SIGINT ignored, and interrupt_main then does nothing."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_stops_a_long_call(ctrl_c_handled):
    # 2000 items x 2 ms on 2 threads would take ~2 s; the interrupt comes after 0.2 s.
    timer = threading.Timer(0.2, _thread.interrupt_main)
    start = time.perf_counter()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        parallel_sum(2000, workers=2, sleep_us=2000)
    assert time.perf_counter() - start < 1.5
    timer.join()
