"""What a metric's corpus score is computed from.

- ``Statistics``: the summable corpus state of one chunk of responses. Adding two is exact
  and associative, so a corpus scored whole, in chunks or across Dask partitions gives the
  same numbers; ``to_json``/``from_json`` carry it between processes.
- ``MeanStatistics``: the state of every metric whose corpus score is the mean of its
  sentence scores (exact sums, correctly rounded mean).
- ``SentenceStatistics``: per-response rows from which the corpus score of any sample of
  responses is recomputed: what significance tests resample.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from .. import _core



_S = TypeVar("_S", bound="Statistics")


class Statistics(ABC):
    """Summable corpus state of one metric: ``__add__`` is exact and associative, and
    ``to_json``/``from_json`` let chunk state be written to disk or sent between processes."""

    @abstractmethod
    def __add__(self: _S, other: _S) -> _S: ...   # statistics of the same kind

    @abstractmethod
    def to_json(self) -> dict: ...

    @classmethod
    @abstractmethod
    def from_json(cls, data: dict) -> "Statistics": ...


def statistics_of(kind: type[_S], statistics: Statistics, metric: str) -> _S:
    """``statistics``, which metric ``metric`` sums as ``kind``: what its ``compute`` reads.
    Statistics of another kind (another metric's, read back from JSON) are a clear error, not
    attributes missing deep inside the formula."""
    if not isinstance(statistics, kind):
        raise TypeError(f"metric {metric!r} computes its corpus score from {kind.__name__}, "
                        f"not from {type(statistics).__name__}")
    return statistics


# Exact sums count units of 2**-1074 (the smallest double), see src/common/exact_sum.hpp.
_EXACT_UNIT_BITS = 1074


def _add_sums(a, b):
    """Two exact sums (ints); a float is a non-finite sum, which stays non-finite."""
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    return (a if isinstance(a, float) else 0.0) + (b if isinstance(b, float) else 0.0)


@dataclass(frozen=True)
class MeanStatistics(Statistics):
    """The count and per-column sums of sentence scores: the corpus score is their mean.

    Sums are exact (ints counting 2**-1074; a float only when a score was NaN or
    infinite), so chunks add associatively and the corpus mean -- the correctly
    rounded mean of every sentence score -- does not depend on how the corpus was
    chunked, streamed or partitioned.
    """

    n: int
    sums: Mapping[str, "int | float"]

    @classmethod
    def of(cls, columns: Mapping[str, np.ndarray]) -> "MeanStatistics":
        values = list(columns.values())
        n = len(values[0]) if values else 0
        return cls(n, {c: _core.exact_sum(np.asarray(v, dtype=np.float64)) for c, v in columns.items()})

    def __add__(self, other: "MeanStatistics") -> "MeanStatistics":
        keys = list(self.sums) + [k for k in other.sums if k not in self.sums]
        return MeanStatistics(self.n + other.n, {k: _add_sums(self.sums.get(k, 0), other.sums.get(k, 0))
                                                 for k in keys})

    def mean(self) -> dict:
        if not self.n:
            return {c: float("nan") for c in self.sums}
        # int / int is correctly rounded in Python, however large the ints.
        return {c: (s / (self.n << _EXACT_UNIT_BITS) if isinstance(s, int) else s / self.n)
                for c, s in self.sums.items()}

    def to_json(self) -> dict:
        return {"n": self.n, "sums": dict(self.sums)}

    @classmethod
    def from_json(cls, data: dict) -> "MeanStatistics":
        return cls(int(data["n"]), {k: (v if isinstance(v, int) else float(v)) for k, v in data["sums"].items()})


@dataclass(frozen=True)
class SentenceStatistics:
    """Per-response statistics from which a metric's corpus score is recomputed on any
    sample of its responses: what paired bootstrap resampling and approximate
    randomization (``fastamfm.compare_systems``) resample.

    ``values``: one row per response (an ndarray [n, k], or a scipy.sparse matrix when
    most entries are 0). The corpus scores of a sample -- a multiset of responses, drawn
    with repeats, possibly mixing two systems' rows -- are ``corpus(sums, keys)``, where
    ``sums`` [R, k] holds per sample the sum of its rows (a response drawn twice counts
    twice) and the result maps each column to an ndarray [R]. BLEU's rows are its n-gram
    counts and lengths, METEOR's the jar's 23 statistics; a mean-type metric's rows are
    its sentence scores beside a count (``means``).

    ``keys``: None when the columns mean the same for every system; else one label per
    column, for metrics whose columns depend on the text (Distinct-n: one column per
    n-gram seen). Two systems' statistics are put on the union of their keys
    (``aligned``) before their rows are mixed.
    """

    # ndarray [n, k] or scipy.sparse matrix: Any, since their operators mix (``a - b``,
    # ``weights @ values``) in ways neither package's stubs express
    values: Any
    corpus: Callable[[np.ndarray, Any], dict]          # (sums [R, k], keys) -> {column: ndarray [R]}
    keys: np.ndarray | None = None

    @classmethod
    def means(cls, columns: Mapping[str, np.ndarray]) -> "SentenceStatistics":
        """Mean-type metrics: each sample's score is the mean of its sentence scores."""
        names = list(columns)
        n = len(next(iter(columns.values()))) if names else 0
        values = np.column_stack([np.ones(n)] + [np.asarray(columns[c], dtype=np.float64) for c in names])

        def corpus(sums, keys=None):
            with np.errstate(invalid="ignore", divide="ignore"):
                return {c: sums[:, j + 1] / sums[:, 0] for j, c in enumerate(names)}

        return cls(values, corpus)

    def __len__(self) -> int:
        return self.values.shape[0]

    def scores(self, sums: np.ndarray) -> dict:
        """{column: ndarray [R]} of the samples whose summed rows are ``sums``."""
        return self.corpus(np.asarray(sums, dtype=np.float64), self.keys)

    def aligned(self, other: "SentenceStatistics") -> tuple:
        """``(self, other)`` with the same columns, so rows of the two can be mixed."""
        if self.keys is None and other.keys is None:
            if self.values.shape[1] != other.values.shape[1]:
                raise ValueError(f"cannot mix sentence statistics of {self.values.shape[1]} and "
                                 f"{other.values.shape[1]} columns")
            return self, other
        if self.keys is None or other.keys is None:
            raise ValueError("cannot mix keyed and unkeyed sentence statistics")
        keys = np.union1d(self.keys, other.keys)
        return self._on_keys(keys), other._on_keys(keys)

    def _on_keys(self, keys: np.ndarray) -> "SentenceStatistics":
        own = self.keys
        assert own is not None, "aligned() puts keyed statistics only on keys"
        if len(keys) == len(own) and np.array_equal(keys, own):
            return self
        import scipy.sparse

        # keys is a sorted superset of self.keys: each old column moves to its new place.
        moved = np.searchsorted(keys, own)
        coo = scipy.sparse.csr_matrix(self.values).tocoo()
        values = scipy.sparse.csr_matrix((coo.data, (coo.row, moved[coo.col])),
                                         shape=(coo.shape[0], len(keys)))
        return SentenceStatistics(values, self.corpus, keys)
