"""Size limits that keep hostile or accidental input from exhausting memory.

- ``max_line_bytes`` (default 1 MiB): the longest line any reader accepts (text,
  jsonl, ARPA, GloVe/fastText rows, word2vec rows) and the longest text field of a
  JSON record; a longer one is a ``FormatError`` naming the file and line.
- ``meteor_max_candidates`` (default 4,194,304): the most candidate matches METEOR
  keeps for one hypothesis/reference pair (about 48 bytes each, so about 200 MB).
  Sentences whose words repeat thousands of times on both sides exceed it, with a
  ``ValueError`` naming ``hyps[i]`` and ``refs[i][j]``.

The limits are process-wide (like ``csv.field_size_limit``) and apply to calls that
start after a change::

    fastamfm.limits.set(max_line_bytes=64 << 20)
    with fastamfm.limits.override(meteor_max_candidates=1 << 26):
        ...
"""
from __future__ import annotations

from contextlib import contextmanager

from . import _core

NAMES = ("max_line_bytes", "meteor_max_candidates")


def get() -> dict:
    """The current limits, ``{name: value}``."""
    return dict(_core.get_limits())


def set(**limits) -> None:  # noqa: A001 - fastamfm.limits.set reads as intended
    """Change some limits (positive integers); the others keep their values."""
    unknown = sorted(k for k in limits if k not in NAMES)
    if unknown:
        raise TypeError(f"unknown limits {unknown}; the limits are {list(NAMES)}")
    values = get()
    for name, value in limits.items():
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value < 1 << 63:
            raise ValueError(f"{name} must be a positive integer below 2**63, got {value!r}")
        values[name] = value
    _core.set_limits(**values)


@contextmanager
def override(**limits):
    """Change some limits for the duration of a ``with`` block (process-wide)."""
    previous = get()
    set(**limits)
    try:
        yield
    finally:
        _core.set_limits(**previous)


__all__ = ["NAMES", "get", "override", "set"]
