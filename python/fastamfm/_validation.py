"""Input checks shared by every public function, run before any C++ thread starts.

Errors name the argument, the index and the sizes, e.g.
``ValueError: bleu: 3 hypotheses but 4 reference lists``.
"""
from __future__ import annotations

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


def check_same_length(n_hyps: int, n_refs: int, what: str = "references") -> None:
    if n_hyps != n_refs:
        raise ValueError(f"{n_hyps} hypotheses but {n_refs} {what}")
