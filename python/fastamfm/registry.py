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

Where metrics come from: every metric, fastamfm's own included, is a plugin -- an entry
point of the group ``fastamfm.metrics`` naming its ``Metric`` class (``fastamfm.plugins``,
docs/plugins.md). The registry imports them on its first lookup (``names``,
``metric_class``, ``resolve``, ``build``), never on ``import fastamfm``, and imports no
metric module by name. ``@register`` adds a class defined in the running process.

Significance tests resample a metric's corpus score: ``sentence_statistics(batch, chunk)``
says how (``SentenceStatistics``: per-response rows whose sums give any sample's corpus
score). Mean-type metrics need nothing (the default); a metric with other corpus
statistics declares its rows and how scores follow from their sums.

Settings: a metric's ``__init__`` keyword arguments. ``build(name, **options)`` passes
each metric the options its ``from_options`` accepts (by default: those named in its
``__init__``), so one option dict (``model=``, ``vectors=``, ``tokenize=``,
``workers=``...) configures a whole metric set.
"""
from __future__ import annotations

import inspect
import threading
import warnings
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from . import _core, plugins
from .batch import Batch, make_batch
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

    values: object
    corpus: object          # callable (sums [R, k], keys) -> {column: ndarray [R]}
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
        if len(keys) == len(self.keys) and np.array_equal(keys, self.keys):
            return self
        import scipy.sparse

        # keys is a sorted superset of self.keys: each old column moves to its new place.
        moved = np.searchsorted(keys, self.keys)
        values = scipy.sparse.csr_matrix(self.values).tocoo()
        values = scipy.sparse.csr_matrix((values.data, (values.row, moved[values.col])),
                                         shape=(values.shape[0], len(keys)))
        return SentenceStatistics(values, self.corpus, keys)


@dataclass
class Chunk:
    """What ``Metric.update`` returns: per-response columns and the summable statistics."""

    columns: dict            # column name -> ndarray[n] (float64)
    statistics: Statistics
    extra: dict = field(default_factory=dict)   # supplementary outputs for the metric's own result


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

    def sentence_statistics(self, batch: Batch, chunk: Chunk) -> SentenceStatistics:
        """How this metric's corpus score resamples: per-response statistics of the
        ``chunk`` that ``update(batch)`` returned, whose sums over any sample of responses
        give the sample's corpus scores (see ``SentenceStatistics``). The default serves every metric whose corpus score is
        the mean of its sentence scores; a metric with other corpus statistics (BLEU's
        n-gram counts, METEOR's 23 statistics, Distinct's n-gram sets) overrides it."""
        if not isinstance(chunk.statistics, MeanStatistics):
            raise TypeError(f"metric {self.name!r}: its corpus score comes from {type(chunk.statistics).__name__}, "
                            f"not from a mean of sentence scores, and it defines no sentence_statistics to "
                            f"resample it from")
        return SentenceStatistics.means(chunk.columns)

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


_LOAD_LOCK = threading.RLock()
_plugins = "unloaded"   # -> "loading" -> "loaded"


def _load_plugins() -> None:
    """Register every metric plugin once, on the first lookup: the entry points of the group
    ``fastamfm.metrics`` (``fastamfm.plugins``), fastamfm's own metrics among them. The
    registry then lists them in plugin order, followed by metrics registered in this
    process by ``@register`` alone. A third-party plugin that fails to load is left out
    with a warning; a built-in one that fails is an error."""
    global _plugins
    if _plugins == "loaded":
        return
    with _LOAD_LOCK:
        if _plugins != "unloaded":   # loaded meanwhile, or a plugin's import looking up the registry
            return
        _plugins = "loading"
        try:
            order = [_load_plugin(distribution, entry_point) for distribution, entry_point in plugins.entry_points()]
        except BaseException:
            _plugins = "unloaded"
            raise
        order = [name for name in order if name is not None]
        listed = {name: _REGISTRY[name] for name in order + [n for n in _REGISTRY if n not in order]}
        _REGISTRY.clear()
        _REGISTRY.update(listed)
        _plugins = "loaded"


def _load_plugin(distribution: str, entry_point) -> str | None:
    """Import and register one metric plugin; its name, or None when a third-party plugin
    is left out."""
    try:
        cls = plugins.load(distribution, entry_point)
        where = plugins.describe(distribution, entry_point)
        if not (isinstance(cls, type) and issubclass(cls, Metric)):
            raise plugins.PluginError(f"{where} is not a fastamfm.registry.Metric subclass: {cls!r}")
        if cls.name != entry_point.name:
            raise plugins.PluginError(f"{where} names metric {cls.name!r}: an entry point is named as its metric")
        try:
            register(cls)
        except ValueError as exc:
            raise plugins.PluginError(f"{where}: {exc}") from None
    except plugins.PluginError as exc:
        if distribution == plugins.DISTRIBUTION:
            raise
        warnings.warn(f"metric plugin left out: {exc}", stacklevel=4)
        return None
    return cls.name


def names() -> tuple:
    """Registered metric names: the plugins' in plugin order (fastamfm's own first, nlg-eval's
    metrics first among them), then those registered in this process by ``@register``."""
    _load_plugins()
    return tuple(_REGISTRY)


def default_names() -> tuple:
    """nlg-eval's metric set, the default of ``evaluate`` and ``compute_metrics``."""
    _load_plugins()
    return tuple(n for n, cls in _REGISTRY.items() if cls.default)


def metric_class(name: str) -> type:
    _load_plugins()
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
