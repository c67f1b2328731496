"""The one metric registry: the protocol every metric follows, and the table every entry
point (``evaluate``, the nlg-eval layer, ``score_files``/CLI, ``tune``, ``correlate``,
``fastamfm.distributed``) reads.

A metric is one ``Metric`` subclass, registered once with ``@register``. Scoring a chunk
of responses is always the same three steps (sacrebleu's statistics -> aggregate ->
compute, torchmetrics' summable state):

1. What the metric derives from the references (n-gram tables, LSI projections,
   reference embeddings...) is cached on the ``References`` object itself
   (``refs.derived(key, build)``), so scoring many systems against one ``References``
   prepares once, and the state dies with the references. What it derives from the
   responses (tokens, projections) is shared by the metrics of one call through
   ``Hypotheses.encoded``/``Hypotheses.derived``.
2. ``update(batch)`` scores one ``Batch`` and returns a ``Chunk``: per-response columns
   and the chunk's summable ``statistics``.
3. ``compute(statistics)`` turns the statistics of any number of chunks, added with
   ``+``, into the corpus scores. Because statistics add exactly, a corpus scored whole,
   in chunks, or across Dask partitions gives the same numbers.

A metric whose scores depend on all references at once (CIDEr's document frequencies)
declares ``reference_pass = True``: the pipeline sums its ``reference_statistics`` over
every chunk's references first and scores with ``with_reference_statistics(total)``.

Settings: a metric's ``__init__`` keyword arguments. ``build(name, **options)`` passes
each metric the options its ``from_options`` accepts (by default: those named in its
``__init__``), so one option dict (``model=``, ``vectors=``, ``tokenize=``,
``workers=``...) configures a whole metric set.
"""
from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from . import _core
from .result import MetricResult


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


def exact_mean(values) -> float:
    """The correctly rounded mean of ``values`` (the corpus score of mean-type metrics)."""
    return MeanStatistics.of({"x": values}).mean()["x"]


@dataclass
class Chunk:
    """What ``Metric.update`` returns: per-response columns and the summable statistics."""

    columns: dict            # column name -> ndarray[n] (float64)
    statistics: Statistics
    extra: dict = field(default_factory=dict)   # supplementary outputs for the metric's own result


@dataclass
class Batch:
    """One call's inputs, validated once and shared by every metric of the call.

    ``hyps``: a ``Hypotheses`` (texts; tokenizations and other state cached per call);
    ``refs``: a ``References`` or None (reference-free scoring); ``contexts``: per
    response the dialogue so far as a list of turns, or None; ``metrics``: the names of
    every metric scored in this call (metrics that share one computation, such as the
    three embedding metrics, compute what all of them need at once).
    """

    hyps: object
    refs: object = None
    contexts: list | None = None
    metrics: frozenset = field(default_factory=frozenset)
    cache: dict = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.hyps)

    def derived(self, key, build):
        """State of this call that depends on responses AND references (e.g. AM scores,
        which AM and AM-FM both report), built once per ``key``."""
        if key not in self.cache:
            self.cache[key] = build()
        return self.cache[key]


class Metric(ABC):
    """Base class of every registered metric (see the module docstring).

    Class attributes: ``name`` (registry name, e.g. ``"bleu"``), ``columns`` (result
    columns, nlg-eval's key names where they exist; an instance may narrow them, e.g.
    BLEU with max_order=2), ``aliases`` (other accepted names), ``needs_references`` /
    ``needs_contexts``, ``reference_pass``, ``default`` (part of the default metric set
    of ``evaluate``/``compute_metrics``: nlg-eval's metrics only).
    Instances hold the settings (``__init__`` keyword arguments) and are immutable.
    """

    name: ClassVar[str] = ""
    columns: ClassVar[tuple] = ()
    aliases: ClassVar[tuple] = ()
    needs_references: ClassVar[bool] = True
    needs_contexts: ClassVar[bool] = False
    reference_pass: ClassVar[bool] = False
    default: ClassVar[bool] = False

    # --- configuration ------------------------------------------------------------
    @classmethod
    def option_names(cls) -> tuple:
        """The options ``from_options`` reads (by default: the ``__init__`` keywords)."""
        parameters = inspect.signature(cls.__init__).parameters
        return tuple(p for p in parameters if p != "self" and parameters[p].kind in
                     (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD))

    @classmethod
    def from_options(cls, **options) -> "Metric":
        """The metric configured from a shared option dict (unknown keys ignored)."""
        return cls(**{k: v for k, v in options.items() if k in cls.option_names()})

    @classmethod
    def missing(cls, **options) -> str | None:
        """Why this metric cannot run here with these options (resources, optional
        packages), with how to fix it; None when it can. Entry points skip it with a
        warning instead of giving a wrong number."""
        return None

    @abstractmethod
    def signature(self) -> str:
        """Every setting that changes the number (see ``result.make_signature``)."""

    def reserve(self, batch: Batch) -> None:
        """Announce the encodings ``update`` will ask of ``batch.hyps`` (so each
        tokenizer's n-grams are counted once, up to the largest order any metric needs)."""

    # --- scoring --------------------------------------------------------------------
    @abstractmethod
    def update(self, batch: Batch) -> Chunk:
        """Score one batch: per-response columns and the batch's summable statistics."""

    def compute(self, statistics: Statistics) -> dict:
        """Corpus scores {column: float} from the summed statistics of all chunks."""
        return statistics.mean()

    def empty_statistics(self) -> Statistics:
        return MeanStatistics(0, {c: 0 for c in self.columns})

    def statistics_from_json(self, data: dict) -> Statistics:
        return MeanStatistics.from_json(data)

    # --- metrics that need a first pass over all references (CIDEr) -------------------
    def reference_statistics(self, refs) -> Statistics:
        """Summable statistics of one chunk's references (only when ``reference_pass``)."""
        raise TypeError(f"metric {self.name!r} needs no pass over the references")

    def with_reference_statistics(self, statistics: Statistics) -> "Metric":
        """This metric configured with the reference statistics of the whole corpus."""
        raise TypeError(f"metric {self.name!r} needs no pass over the references")

    # --- one call -----------------------------------------------------------------------
    def score(self, hyps, refs=None, contexts=None, *, what: str | None = None) -> MetricResult:
        """Score ``hyps`` (against ``refs`` / given ``contexts``) as one chunk; errors
        name ``what`` (default: the metric's name)."""
        from .pipeline import make_batch

        metric = self
        batch = make_batch(hyps, refs, contexts, [self], what=what or self.name, workers=getattr(self, "workers", -1))
        if self.reference_pass:
            metric = self.with_reference_statistics(self.reference_statistics(batch.refs))
        metric.reserve(batch)
        chunk = metric.update(batch)
        return metric.result(chunk, metric.compute(chunk.statistics))

    def result(self, chunk: Chunk, corpus: dict) -> MetricResult:
        """The ``MetricResult`` of one call: a single column as an ndarray and a float,
        several as mappings."""
        if len(chunk.columns) == 1:
            (column, values), = chunk.columns.items()
            return MetricResult(self.name, corpus[column], values, self.signature())
        return MetricResult(self.name, dict(corpus), dict(chunk.columns), self.signature())


_REGISTRY: dict[str, type] = {}
_ALIASES: dict[str, str] = {}


def register(cls: type) -> type:
    """Class decorator: add a ``Metric`` subclass to the registry under its name, its
    columns (lower-cased) and its aliases."""
    if not cls.name or not cls.columns:
        raise ValueError(f"{cls.__name__}: a registered metric needs a name and columns")
    if cls.name in _REGISTRY and _REGISTRY[cls.name] is not cls:
        raise ValueError(f"metric {cls.name!r} is registered twice ({_REGISTRY[cls.name].__name__}, {cls.__name__})")
    for alias in (cls.name, *cls.columns, *cls.aliases):
        taken = _ALIASES.get(alias.lower())
        if taken is not None and taken != cls.name:
            raise ValueError(f"{cls.__name__}: name {alias!r} already belongs to metric {taken!r}")
    _REGISTRY[cls.name] = cls
    for alias in (cls.name, *cls.columns, *cls.aliases):
        _ALIASES[alias.lower()] = cls.name
    return cls


def _load_builtin_metrics() -> None:
    """Import the modules that register the built-in metrics (once; cheap after that)."""
    from . import amfm, metrics  # noqa: F401  (nlg-eval's metrics; am, fm, amfm)
    from .deep import fm_metrics, metrics as deep_metrics  # noqa: F401  (deep_am, bertscore, deep_fm,
    # deep_amfm: torch and the models load on first use)
    from .evaluator import metric as evaluator_metric  # noqa: F401  (evaluator: a trained evaluator directory)


def names() -> tuple:
    """Registered metric names, in registration order."""
    _load_builtin_metrics()
    return tuple(_REGISTRY)


def default_names() -> tuple:
    """nlg-eval's metric set, the default of ``evaluate`` and ``compute_metrics``."""
    _load_builtin_metrics()
    return tuple(n for n, cls in _REGISTRY.items() if cls.default)


def metric_class(name: str) -> type:
    _load_builtin_metrics()
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


def option_names(metric_names) -> set:
    """Every option some metric of ``metric_names`` reads."""
    return {o for n in metric_names for o in metric_class(n).option_names()}


def build(name: str, **options) -> Metric:
    """The registered metric ``name`` configured from ``options``."""
    return metric_class(name).from_options(**options)
