"""Progress of slow calls: one option, ``progress=``, taken by every call that can take
more than a few seconds (neural metrics and rewards, model loads and conversions,
streaming, Dask, bootstrap resampling, training):

    progress=None    the default: a tqdm bar on stderr when stderr is a terminal, else none
    progress=False   no progress, from the call and every call inside it
    progress=True    a bar on stderr even when it is not a terminal (a log file, a notebook)
    progress=f       ``f(update)`` at every step: a ``ProgressUpdate`` (task, done, total, unit, depth)

A slow loop opens a ``task`` and advances it per step it takes: the neural engines per
forward batch, streaming per chunk, a bootstrap per resample. The option reaches those
loops through a context variable, so ``evaluate(..., progress=f)`` hears from the language
model's batches without every function between them passing the keyword on. A task
inside another (the LM's batches inside a streaming run) is one level deeper: its bar is
drawn under its caller's and removed when it ends; a callable sees its ``depth``.

The library never prints: bars go to stderr (tqdm), messages to the ``fastamfm`` loggers.
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import os
import sys
import threading
import warnings
from dataclasses import dataclass
from typing import Callable, Iterator, Optional, Union, cast

# Seconds a task must last before its bar shows: a quick call draws nothing.
BAR_DELAY = 2.0
# How often the bar of a step that cannot be divided (``waiting``) redraws its elapsed time.
TICK_SECONDS = 1.0


@dataclass(frozen=True)
class ProgressUpdate:
    """One step of a task: ``done`` of ``total`` ``unit`` (``total`` None: not known)."""
    task: str
    done: int
    total: Optional[int]
    unit: str
    depth: int


ProgressOption = Union[None, bool, Callable[[ProgressUpdate], object]]

_OPTION: contextvars.ContextVar = contextvars.ContextVar("fastamfm_progress", default=None)
_DEPTH: contextvars.ContextVar = contextvars.ContextVar("fastamfm_progress_depth", default=0)


def checked(progress) -> ProgressOption:
    if progress is None or isinstance(progress, bool) or callable(progress):
        return progress
    raise TypeError(f"progress must be None, True, False or a callable taking a ProgressUpdate, "
                    f"got {type(progress).__name__}")


@contextlib.contextmanager
def reporting(progress: ProgressOption) -> Iterator[None]:
    """``progress`` for the tasks inside (None: the caller's option, or the default)."""
    checked(progress)
    if progress is None:
        yield
        return
    token = _OPTION.set(progress)
    try:
        yield
    finally:
        _OPTION.reset(token)


def current_option() -> ProgressOption:
    """The option of the call being run (``reporting``): what a loop with its own display
    (training's bar with tokens/s) follows."""
    return _OPTION.get()


def current_depth() -> int:
    return _DEPTH.get()


def stderr_is_terminal() -> bool:
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):   # replaced by an object without isatty, or closed
        return False


class Task:
    """A loop's progress: ``advance(n)`` after each step (see ``task``)."""

    def __init__(self, what: str, total: Optional[int], unit: str, option: ProgressOption, depth: int):
        self.what, self.total, self.unit, self.depth = what, total, unit, depth
        self.done = 0
        self._callback = option if callable(option) and not isinstance(option, bool) else None
        self._bar = None
        if option is True or (option is None and stderr_is_terminal()):
            self._bar = _bar(what, total, unit, depth)

    def advance(self, n: int = 1) -> None:
        self.done += n
        if self._callback is not None:
            self._callback(ProgressUpdate(self.what, self.done, self.total, self.unit, self.depth))
        elif self._bar is not None:
            self._bar.update(n)

    def started(self) -> None:
        """Tell a callable the task began (``done`` 0), for steps that take long."""
        if self._callback is not None:
            self._callback(ProgressUpdate(self.what, self.done, self.total, self.unit, self.depth))

    @property
    def draws(self) -> bool:
        """Whether this task draws a bar."""
        return self._bar is not None

    def tick(self) -> None:
        """Redraw the bar (its elapsed time) without a step done."""
        if self._bar is not None:
            self._bar.update(0)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def bar_width() -> dict:
    """tqdm's size options for stderr: its terminal's, followed as it resizes; a fixed 80 x 24
    where the terminal reports no size (``docker run -t``, ``script`` without a terminal), where
    tqdm would otherwise fit its bars into 0 columns and 0 rows, i.e. draw nothing."""
    try:
        size = os.get_terminal_size(sys.stderr.fileno())
    except (AttributeError, OSError, ValueError):
        size = os.terminal_size((0, 0))
    return {"dynamic_ncols": True} if size.columns > 0 and size.lines > 0 else {"ncols": 80, "nrows": 24}


def _bar(what: str, total: Optional[int], unit: str, depth: int):
    try:
        from tqdm.auto import tqdm
    except ImportError:   # tqdm is a dependency, but a bar is never worth failing a call
        return None
    return tqdm(total=total, desc=what, unit=unit, file=sys.stderr, position=depth, leave=depth == 0,
                delay=BAR_DELAY, unit_scale=bool(total and total >= 100_000), **bar_width())


@contextlib.contextmanager
def task(what: str, total: Optional[int] = None, unit: str = "it") -> Iterator[Task]:
    """A task of the current option (``reporting``), one level below the task it runs in."""
    depth = _DEPTH.get()
    current = Task(what, total, unit, _OPTION.get(), depth)
    token = _DEPTH.set(depth + 1)
    try:
        yield current
    finally:
        _DEPTH.reset(token)
        current.close()


@contextlib.contextmanager
def waiting(what: str, steps: int = 1) -> Iterator[Task]:
    """Steps that cannot be divided further (a model load, a conversion) as a task: a
    callable hears it start and each step end; a bar shows the seconds taken so far. The
    steps the caller did not ``advance`` are counted done at the end."""
    with task(what, total=steps, unit="step") as current:
        current.started()
        stop = threading.Event()
        ticker = None
        if current.draws:
            def tick() -> None:
                while not stop.wait(TICK_SECONDS):
                    current.tick()

            ticker = threading.Thread(target=tick, name="fastamfm-progress", daemon=True)
            ticker.start()
        try:
            yield current
        finally:
            stop.set()
            if ticker is not None:
                ticker.join()
        if current.done < steps:
            current.advance(steps - current.done)


def reports_progress(function: Callable) -> Callable:
    """For a function with a keyword-only ``progress`` parameter: runs it under
    ``reporting(progress)``, so the tasks inside it follow the caller's option."""
    parameter = inspect.signature(function).parameters.get("progress")
    if parameter is None or parameter.kind is not inspect.Parameter.KEYWORD_ONLY:
        raise TypeError(f"{function.__qualname__} needs a keyword-only progress parameter")

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with reporting(kwargs.get("progress")):
            return function(*args, **kwargs)

    return wrapper


class Stages:
    """A run of stages that reports ``(stage, done, total)`` (LSI training: "read", "build",
    "svd"), one task per stage of the current option, opened as the stage starts and
    closed as the next one does (or at ``close``)."""

    def __init__(self, what: str, units: dict):
        self.what, self.units = what, units
        self._stage: Optional[str] = None
        self._task: Optional[Task] = None
        self._context: Optional[contextlib.AbstractContextManager[Task]] = None

    def __call__(self, stage: str, done: int, total: Optional[int]) -> None:
        if stage != self._stage:
            self.close()
            self._stage = stage
            self._context = task(f"{self.what}: {stage}", total, self.units.get(stage, "it"))
            self._task = self._context.__enter__()
        assert self._task is not None
        if done > self._task.done:
            self._task.advance(done - self._task.done)

    def close(self) -> None:
        if self._context is not None:
            self._context.__exit__(None, None, None)
        self._context = self._task = self._stage = None


def _takes_three_arguments(function) -> bool:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):       # a builtin without a signature: the new protocol
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) == 3 or any(p.kind is p.VAR_POSITIONAL for p in parameters) and len(positional) < 3


@contextlib.contextmanager
def stages(what: str, progress: ProgressOption, units: dict) -> Iterator[Callable[[str, int, Optional[int]], None]]:
    """``(stage, done, total)`` reports for a staged run, under ``progress``. A callable of
    three arguments is the protocol before 0.2 (``LsiModel.train(progress=f)``): it is
    called as it was, with a DeprecationWarning, until 0.3."""
    if callable(progress) and not isinstance(progress, bool) and _takes_three_arguments(progress):
        warnings.warn(f"{what}(progress=f) with f(stage, done, total) is the protocol before 0.2; give a callable "
                      f"of one fastamfm.progress.ProgressUpdate (task '{what}: <stage>'); removed in 0.3",
                      DeprecationWarning, stacklevel=4)
        yield cast(Callable[[str, int, Optional[int]], None], progress)   # three arguments: checked above
        return
    with reporting(progress):
        run = Stages(what, units)
        try:
            yield run
        finally:
            run.close()
