"""``References``: ragged references encoded once and reused across systems."""
from __future__ import annotations

import threading

from . import _core
from ._validation import flatten_references
from .tokenize import make_tokenizer, prepare_texts


class References:
    """References of n segments, tokenized and n-gram-counted once.

    ``refs[i]`` is the list of references of hypothesis ``i`` (any count >= 1).
    Pass the instance wherever a function takes ``refs`` to score many systems
    without re-encoding. Its tokenizer must match the one the metric asks for.
    """

    def __init__(self, refs, *, tokenize: str = "whitespace", lowercase: bool = False,
                 max_order: int = 4, workers: int = -1):
        flat, offsets = flatten_references(refs, None)
        self._tokenizer = make_tokenizer(tokenize, lowercase)
        self._texts = flat
        self._offsets = offsets
        prepared = prepare_texts(flat, self._tokenizer, "references")
        self._encoded = _core.ReferenceSet(prepared, offsets, self._tokenizer, max_order, workers)
        # What metrics derived from these references (registry.Metric.prepare), by key.
        self._derived: dict = {}
        self._derived_lock = threading.Lock()

    # --- construction from files -------------------------------------------------
    @classmethod
    def from_files(cls, paths, **options) -> "References":
        """K parallel reference files (nlg-eval layout): line i of each file is a reference of segment i."""
        from .io import read_parallel_files

        return cls(read_parallel_files(paths), **options)

    @classmethod
    def from_jsonl(cls, path, **options) -> "References":
        """The ``refs`` of jsonl records ``{"hyp": ..., "refs": [...]}``."""
        from .io import read_jsonl

        _, refs = read_jsonl(path)
        return cls(refs, **options)

    # --- what it holds -----------------------------------------------------------
    def __len__(self) -> int:
        return self._encoded.num_segments

    def __getitem__(self, i: int) -> list:
        if not -len(self) <= i < len(self):
            raise IndexError(f"segment {i} out of range for {len(self)} segments")
        i %= len(self)
        return self._texts[self._offsets[i]:self._offsets[i + 1]]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __repr__(self) -> str:
        return (f"References({len(self)} segments, {self.num_references} references, "
                f"{self._tokenizer.describe()}, max_order={self.max_order})")

    @property
    def num_references(self) -> int:
        return self._encoded.num_references

    @property
    def max_order(self) -> int:
        return self._encoded.max_order

    @property
    def tokenizer(self) -> _core.Tokenizer:
        return self._tokenizer

    @property
    def flat_texts(self) -> list:
        """Every reference text, segment after segment (as given)."""
        return self._texts

    @property
    def segment_offsets(self) -> list[int]:
        return self._offsets

    @property
    def encoded(self) -> _core.ReferenceSet:
        """The C++ ReferenceSet handed to the metric kernels."""
        return self._encoded

    def derived(self, key, build):
        """The state ``build()`` derives from these references, built once per ``key``.

        ``key`` names the metric and every setting the state depends on (tokenizer,
        model fingerprint, ...). Two threads asking at once may both build; the first
        stored value is kept and returned to both.
        """
        with self._derived_lock:
            if key in self._derived:
                return self._derived[key]
        value = build()
        with self._derived_lock:
            return self._derived.setdefault(key, value)

    def tokens(self, segment: int) -> list[list[str]]:
        return [self._encoded.tokens(r) for r in range(self._offsets[segment], self._offsets[segment + 1])]

    def check_compatible(self, n_hyps: int, tokenizer: _core.Tokenizer, max_order: int = 1, what: str = "metric") -> None:
        if n_hyps != len(self):
            raise ValueError(f"{what}: {n_hyps} hypotheses but References holds {len(self)} segments")
        if tokenizer.describe() != self._tokenizer.describe():
            raise ValueError(
                f"{what}: References were encoded with {self._tokenizer.describe()} but the metric "
                f"asks for {tokenizer.describe()}; build References with the same tokenize=/lowercase="
            )
        if max_order > self.max_order:
            raise ValueError(f"{what}: needs n-grams up to order {max_order} but References holds "
                             f"up to {self.max_order}; build References with max_order={max_order}")


def as_references(refs, n_hyps: int, *, tokenize: str = "whitespace", lowercase: bool = False,
                  max_order: int = 4, workers: int = -1, what: str = "metric") -> References:
    """Accept raw ragged references or a ``References`` and return a checked ``References``."""
    tokenizer = make_tokenizer(tokenize, lowercase)
    if not isinstance(refs, References):
        if isinstance(refs, (str, bytes)):
            raise TypeError(f"{what}: refs must be a list of reference lists, not a single string")
        if hasattr(refs, "__len__") and len(refs) != n_hyps:
            raise ValueError(f"{what}: {n_hyps} hypotheses but {len(refs)} reference lists")
        refs = References(refs, tokenize=tokenize, lowercase=lowercase, max_order=max_order, workers=workers)
    refs.check_compatible(n_hyps, tokenizer, max_order, what)
    return refs
