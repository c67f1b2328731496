"""Signals while fastamfm writes: SIGTERM and SIGHUP turned into an exception
(``cleanup_on_signals``) so that temporaries are removed on the way out as on Ctrl-C, and
threads started with the signals held (``start_thread``) so that none is left running
unjoinable."""
from __future__ import annotations

import signal
import threading
from contextlib import contextmanager


class Terminated(SystemExit):
    """SIGTERM or SIGHUP arrived while ``cleanup_on_signals`` was active.

    A ``SystemExit`` (exit status 128 + the signal number), so ``finally`` blocks and
    context managers run and remove temporaries on the way out, as for Ctrl-C.
    """

    def __init__(self, signum: int):
        super().__init__(128 + signum)
        self.signum = signum


_TERMINATING_SIGNALS = tuple(s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s)


def _raise_terminated(signum, frame):
    raise Terminated(signum)


@contextmanager
def cleanup_on_signals():
    """While active, SIGTERM and SIGHUP raise ``Terminated`` instead of killing the
    process on the spot, so temporaries are removed as on an exception.

    Only in the main thread (where Python runs signal handlers), and only for signals
    still at their default action: an application's own handlers are left alone.
    Nested uses are free; the outermost restores the default action.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    installed = []
    for signum in _TERMINATING_SIGNALS:
        if signal.getsignal(signum) == signal.SIG_DFL:
            signal.signal(signum, _raise_terminated)
            installed.append(signum)
    try:
        yield
    finally:
        for signum in installed:
            if signal.getsignal(signum) is _raise_terminated:
                signal.signal(signum, signal.SIG_DFL)


_HELD_WHILE_A_THREAD_STARTS = tuple(s for s in (getattr(signal, "SIGINT", None), *_TERMINATING_SIGNALS) if s)


def start_thread(thread: threading.Thread) -> None:
    """``thread.start()`` with Ctrl-C, SIGTERM and SIGHUP held until it returns.

    An exception raised by a signal handler inside ``Thread.start`` leaves a thread that
    runs but cannot be joined, and the process then ends while it still writes. Held
    signals are handled right after, so the thread is either not started (``ident`` is
    None) or started and joinable.
    """
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        thread.start()
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD_WHILE_A_THREAD_STARTS)
    try:
        thread.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def join_if_started(thread: threading.Thread | None) -> None:
    if thread is not None and thread.ident is not None:
        thread.join()

