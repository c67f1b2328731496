"""Input checks shared by every public function, run before any C++ thread starts.

Errors name the argument, the index and the sizes, e.g.
``ValueError: bleu: 3 hypotheses but 4 reference lists``.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from . import _core


def as_text_list(texts, name: str, *, allow_empty: bool = False) -> list:
    """A list of str/bytes from any sequence or iterable, with a clear error otherwise."""
    if isinstance(texts, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of strings, not a single string")
    if not isinstance(texts, list):
        if not isinstance(texts, Iterable):
            raise TypeError(f"{name} must be a sequence of strings, got {type(texts).__name__}")
        texts = list(texts)
    if not texts and not allow_empty:
        raise ValueError(f"{name} is empty")
    return texts


def text_list(texts, name: str, *, allow_empty: bool = False) -> list:
    """A list of str, with an error naming the first item that is not one."""
    texts = as_text_list(texts, name, allow_empty=allow_empty)
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise TypeError(f"{name}[{i}] is {type(t).__name__}, expected str")
    return texts


def flatten_references(refs, n_expected: int | None, name: str = "refs") -> tuple[list, list[int]]:
    """Ragged references -> (flat list, segment offsets). Every segment needs >= 1 reference.

    ``refs[i]`` must be a sequence (not a str/bytes) of at least one reference:
    ``TypeError`` "refs[i] is a single string; ..." / "refs[i] is int, expected a list
    of strings", ``ValueError`` "refs[i] has no reference".
    """
    if isinstance(refs, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of reference lists, not a single string")
    if not isinstance(refs, Sequence):
        refs = list(refs)
    if n_expected is not None and len(refs) != n_expected:
        raise ValueError(f"{n_expected} hypotheses but {len(refs)} reference lists in {name}")
    if len(refs) == 0:
        raise ValueError(f"{name} is empty")
    # The per-segment loop (same checks and messages for each reference list) runs in C++.
    return _core.flatten_ragged(refs, name)


def check_workers(workers, what: str) -> int:
    """``workers``: -1 (or 0) for every core, or a positive thread count."""
    if isinstance(workers, bool) or not isinstance(workers, int):
        raise TypeError(f"{what}: workers must be an int (-1 = all cores), got {type(workers).__name__}")
    try:
        _core.resolve_workers(workers)
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None
    return workers


def check_int(value, name: str, low: int, high: int, what: str) -> int:
    """An int in [low, high] (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{what}: {name} must be an int in {low}..{high}, got {value!r}")
    return value


def check_positive(value, name: str, what: str) -> float:
    """A finite number > 0 (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value) and value > 0):
        raise ValueError(f"{what}: {name} must be a positive number, got {value!r}")
    return float(value)


def check_choice(value, name: str, choices, what: str):
    if value not in choices:
        raise ValueError(f"{what}: {name} must be one of {tuple(choices)}, got {value!r}")
    return value


def metrics_need(names) -> str:
    """The metrics an error is about, with the verb agreeing: "bleu needs", "bleu, cider need"."""
    names = list(names)
    return f"{', '.join(names)} {'needs' if len(names) == 1 else 'need'}"
