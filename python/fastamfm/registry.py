"""The one metric registry: the protocol every metric follows, and the table every entry
point (``evaluate``, the nlg-eval layer, ``score_files``/CLI, ``tune``, ``correlate``,
``fastamfm.distributed``) reads.

A metric is one ``Metric`` subclass, registered once with ``@register``. Scoring a chunk
of responses is always the same three steps (sacrebleu's statistics -> aggregate ->
compute, torchmetrics' summable state):

1. ``prepare(refs)`` derives what the metric needs from the references (n-gram
   counts, LSI projections, reference embeddings...). It is cached on the
   ``References`` object itself (``refs.derived(key, build)``), so scoring many systems
   against one ``References`` prepares once, and the state dies with the references.
2. ``update(batch)`` scores one ``Batch`` and returns a ``Chunk``: per-response columns
   and the chunk's summable ``statistics``.
3. ``compute(statistics)`` turns the statistics of any number of chunks, added with
   ``+``, into the corpus scores. Because statistics add exactly, a corpus scored whole,
   in chunks, or across Dask partitions gives the same numbers.

A metric whose corpus score depends on all references at once (CIDEr's document
frequencies) declares ``reference_pass = True``: it gets ``reference_statistics(refs)``
summed over every chunk before its ``update`` runs (``with_reference_statistics``).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np


class Statistics(ABC):
    """Summable corpus state of one metric: ``__add__`` is exact and associative, and
    ``to_json``/``from_json`` let chunk state be written to disk or sent between processes."""

    @abstractmethod
    def __add__(self, other: "Statistics") -> "Statistics": ...

    @abstractmethod
    def to_json(self) -> dict: ...

    @classmethod
    @abstractmethod
    def from_json(cls, data: dict) -> "Statistics": ...


@dataclass(frozen=True)
class MeanStatistics(Statistics):
    """The count and per-column sums of sentence scores: the corpus score is their mean."""

    n: int
    sums: Mapping[str, float]

    @classmethod
    def of(cls, columns: Mapping[str, np.ndarray]) -> "MeanStatistics":
        values = list(columns.values())
        n = len(values[0]) if values else 0
        return cls(n, {c: float(np.sum(v, dtype=np.float64)) for c, v in columns.items()})

    def __add__(self, other: "MeanStatistics") -> "MeanStatistics":
        keys = list(self.sums) + [k for k in other.sums if k not in self.sums]
        return MeanStatistics(self.n + other.n, {k: self.sums.get(k, 0.0) + other.sums.get(k, 0.0) for k in keys})

    def mean(self) -> dict:
        return {c: (s / self.n if self.n else float("nan")) for c, s in self.sums.items()}

    def to_json(self) -> dict:
        return {"n": self.n, "sums": dict(self.sums)}

    @classmethod
    def from_json(cls, data: dict) -> "MeanStatistics":
        return cls(int(data["n"]), {k: float(v) for k, v in data["sums"].items()})


@dataclass
class Chunk:
    """What ``Metric.update`` returns: per-response columns and the summable statistics."""

    columns: dict            # column name -> ndarray[n] (float64)
    statistics: Statistics


@dataclass
class Batch:
    """One call's inputs, validated once and shared by every metric of the call.

    ``hyps``: the responses as a ``Hypotheses`` (texts, and tokenizations cached per
    tokenizer); ``refs``: a ``References`` or None (reference-free scoring);
    ``contexts``: per response the dialogue so far as a list of turns, or None.
    """

    hyps: object
    refs: object = None
    contexts: list | None = None
    cache: dict = field(default_factory=dict)   # per-call derived state of the hypotheses

    def __len__(self) -> int:
        return len(self.hyps)

    def derived(self, key, build: Callable[[], object]):
        """Per-call state of the hypotheses shared by metrics (e.g. one tokenization)."""
        if key not in self.cache:
            self.cache[key] = build()
        return self.cache[key]


class Metric(ABC):
    """Base class of every registered metric (see the module docstring).

    Class attributes: ``name`` (registry name, e.g. ``"bleu"``), ``columns`` (result
    columns, nlg-eval's key names where they exist), ``aliases`` (other accepted names),
    ``needs_references`` / ``needs_contexts``, ``reference_pass``, ``default`` (part of the
    default metric set of ``evaluate``/``compute_metrics``: nlg-eval's metrics only).
    Instances hold the settings (``__init__`` keyword arguments) and are immutable.
    """

    name: ClassVar[str] = ""
    columns: ClassVar[tuple] = ()
    aliases: ClassVar[tuple] = ()
    needs_references: ClassVar[bool] = True
    needs_contexts: ClassVar[bool] = False
    reference_pass: ClassVar[bool] = False
    default: ClassVar[bool] = False

    @abstractmethod
    def signature(self) -> str:
        """Every setting that changes the number (see ``result.make_signature``)."""

    def missing(self) -> str | None:
        """Why this metric cannot run here (resources, optional packages), with how to fix
        it; None when it can. Entry points skip it with a warning instead of a wrong number."""
        return None

    def prepare(self, refs):
        """Derived reference state, built once per ``References`` (``refs.derived``)."""
        return None

    @abstractmethod
    def update(self, batch: Batch) -> Chunk:
        """Score one batch: per-response columns and the batch's summable statistics."""

    def compute(self, statistics: Statistics) -> dict:
        """Corpus scores {column: float} from the summed statistics of all chunks."""
        return statistics.mean()

    def empty_statistics(self) -> Statistics:
        return MeanStatistics(0, {c: 0.0 for c in self.columns})

    # --- metrics that need a first pass over all references (CIDEr) -------------------
    def reference_statistics(self, refs) -> Statistics:
        """Summable statistics of one chunk's references (only when ``reference_pass``)."""
        raise TypeError(f"metric {self.name!r} needs no pass over the references")

    def with_reference_statistics(self, statistics: Statistics) -> "Metric":
        """This metric configured with the reference statistics of the whole corpus."""
        raise TypeError(f"metric {self.name!r} needs no pass over the references")


_REGISTRY: dict[str, type] = {}
_ALIASES: dict[str, str] = {}


def register(cls: type) -> type:
    """Class decorator: add a ``Metric`` subclass to the registry under its name, its
    columns (lower-cased) and its aliases."""
    if not cls.name or not cls.columns:
        raise ValueError(f"{cls.__name__}: a registered metric needs a name and columns")
    if cls.name in _REGISTRY and _REGISTRY[cls.name] is not cls:
        raise ValueError(f"metric {cls.name!r} is registered twice ({_REGISTRY[cls.name].__name__}, {cls.__name__})")
    _REGISTRY[cls.name] = cls
    for alias in (cls.name, *cls.columns, *cls.aliases):
        _ALIASES[alias.lower()] = cls.name
    return cls


def names() -> tuple:
    """Registered metric names, in registration order."""
    return tuple(_REGISTRY)


def default_names() -> tuple:
    return tuple(n for n, cls in _REGISTRY.items() if cls.default)


def metric_class(name: str) -> type:
    key = _ALIASES.get(name.strip().lower()) if isinstance(name, str) else None
    if key is None:
        raise ValueError(f"unknown metric {name!r}; choose from {', '.join(names())}")
    return _REGISTRY[key]


def resolve(metrics: "str | Iterable[str] | None") -> list:
    """Metric names (a comma-separated string or a list; columns and aliases accepted)
    -> canonical registry names, in the order given, without repeats."""
    if metrics is None:
        return list(default_names())
    if isinstance(metrics, str):
        metrics = [m for m in metrics.split(",") if m.strip()]
    out = []
    for m in metrics:
        if not isinstance(m, str):
            raise TypeError(f"metric names must be strings, got {type(m).__name__}")
        name = metric_class(m).name
        if name not in out:
            out.append(name)
    if not out:
        raise ValueError("no metric named")
    return out
