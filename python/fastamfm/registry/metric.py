"""``Metric``: the protocol every registered metric follows, and ``Chunk``, what scoring one
batch returns. Scoring a chunk of responses is always the same three steps (sacrebleu's
statistics -> aggregate -> compute, torchmetrics' summable state):

1. What the metric derives from the references (n-gram tables, LSI projections,
   reference embeddings...) is cached on the ``References`` object itself
   (``refs.derived(key, build)``), so scoring many systems against one ``References``
   prepares once, and the state dies with the references. What it derives from the
   responses (tokens, projections) is shared by the metrics of one call through
   ``Hypotheses.encoded``/``Hypotheses.derived``.
2. ``update(batch)`` scores one ``Batch`` and returns a ``Chunk``: per-response columns
   and the chunk's summable ``statistics``.
3. ``compute(statistics)`` turns the statistics of any number of chunks, added with
   ``+``, into the corpus scores.

A metric whose scores depend on all references at once (CIDEr's document frequencies)
declares ``reference_pass = True``: the pipeline sums its ``reference_statistics`` over
every chunk's references first and scores with ``with_reference_statistics(total)``.

Significance tests resample a metric's corpus score: ``sentence_statistics(batch, chunk)``
says how (``SentenceStatistics``). Mean-type metrics need nothing (the default).

Settings: a metric's ``__init__`` keyword arguments. ``from_options(**options)`` passes each
metric the options it accepts (by default: those named in its ``__init__``), so one option
dict (``model=``, ``vectors=``, ``tokenize=``, ``workers=``...) configures a whole metric set.

Models: a metric that scores with a model directory (``fastamfm.models.directory``) names
its ``model_kind`` and says how one loads (``load_model``); the registry then resolves any
``model=DIR`` of that kind to it (``fastamfm.registry.load_model``).
"""
from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import ClassVar

from ..batch import Batch, make_batch
from ..result import MetricResult
from .statistics import MeanStatistics, SentenceStatistics, Statistics, statistics_of


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
    of ``evaluate``/``compute_metrics``: nlg-eval's metrics only), ``model_kind`` (the kind
    of model directory it scores with, None for none; see ``load_model``), ``column_notes``
    (what a column's number means where its scale is not self-evident).
    Instances hold the settings (``__init__`` keyword arguments) and are immutable.
    """

    name: ClassVar[str] = ""
    # Instance attributes with class defaults: an instance may narrow its columns (BLEU with
    # max_order=2) or need a reference pass only with some settings (CIDEr's given frequencies).
    columns: tuple[str, ...] = ()
    aliases: ClassVar[tuple] = ()
    needs_references: ClassVar[bool] = True
    needs_contexts: ClassVar[bool] = False
    reference_pass: bool = False
    default: ClassVar[bool] = False
    model_kind: ClassVar[str | None] = None
    # {column: what its number means} for a column whose scale is not self-evident (printed
    # beside the column by ``fastamfm score``; DeepAMFM's calibrated scale).
    column_notes: ClassVar[dict] = {}
    # Whether ``compare_systems`` scores every system's responses in one ``update``, reference-free
    # (contexts, no references): a metric whose LM reads each dialogue context then reads a context
    # that several systems answer once (the prefix tree of ``NeuralLM``). Only for metrics whose
    # chunk is per-response columns and their means (``MeanStatistics``), so it splits back exactly.
    scores_systems_together: ClassVar[bool] = False
    # {column name before 0.2: column}: the names this metric's function gave its columns
    # before the one naming rule, readable with a DeprecationWarning until 0.3.
    renamed_columns: ClassVar[dict] = {}

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

    @classmethod
    def needs_option(cls, **options) -> bool:
        """Whether ``missing`` only says that an option nobody gave is absent (the embedding
        metrics without ``vectors=``): in a default metric set that is expected, and the
        metric is left out with an INFO log line instead of a warning. False by default."""
        return False

    @classmethod
    def load_model(cls, path, **settings):
        """The model in directory ``path`` (of this metric's ``model_kind``), loaded with
        ``settings``: what ``model=`` then holds. The registry calls it for ``model=DIR``
        (``fastamfm.registry.load_model``), once per process and Dask worker."""
        raise TypeError(f"metric {cls.name!r} scores with no model directory")

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
        return statistics_of(MeanStatistics, statistics, self.name).mean()

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

    def epsilon_columns(self, statistics: Statistics) -> frozenset:
        """The columns whose corpus score, given these summed ``statistics``, is set by the
        metric's own smoothing constants rather than by the data (BLEU-k when an n-gram
        order up to k matched nothing: pycocoevalcap's 1e-15/1e-9 guards then give a tiny
        number that stands for zero). A difference between two such scores is no finding:
        ``compare_systems`` never marks it significant. None by default."""
        return frozenset()

    # --- metrics that need a first pass over all references (CIDEr) -------------------
    def reference_statistics(self, refs) -> Statistics:
        """Summable statistics of one chunk's references (only when ``reference_pass``)."""
        raise TypeError(f"metric {self.name!r} needs no pass over the references")

    def with_reference_statistics(self, statistics: Statistics) -> "Metric":
        """This metric configured with the reference statistics of the whole corpus."""
        raise TypeError(f"metric {self.name!r} needs no pass over the references")

    def reference_statistics_from_json(self, data: dict) -> Statistics:
        """The reference statistics ``to_json`` wrote (a resumed ``score_files`` reads its
        first pass back)."""
        raise TypeError(f"metric {self.name!r} needs no pass over the references")

    # --- one call -----------------------------------------------------------------------
    def score(self, hyps, refs=None, contexts=None, *, what: str | None = None,
              layout: str | None = None) -> MetricResult:
        """Score ``hyps`` (against ``refs`` / given ``contexts``) as one chunk; errors
        name ``what`` (default: the metric's name); ``layout`` of ``refs``: see ``References.of``."""
        metric = self
        batch = make_batch(hyps, refs, contexts, [self], what=what or self.name, workers=getattr(self, "workers", -1),
                           layout=layout)
        if self.reference_pass:
            metric = self.with_reference_statistics(self.reference_statistics(batch.refs))
        metric.reserve(batch)
        chunk = metric.update(batch)
        return metric.result(chunk, metric.compute(chunk.statistics))

    def result(self, chunk: Chunk, corpus: dict) -> MetricResult:
        """The ``MetricResult`` of one call: every column under the name ``evaluate`` gives it,
        with the metric's supplementary outputs (``result_extra``)."""
        return MetricResult(self.name, dict(corpus), dict(chunk.columns), self.signature(), self.result_extra(chunk),
                            renamed=self.renamed_columns)

    def result_extra(self, chunk: Chunk) -> dict:
        """A one-call result's ``extra`` (e.g. BLEU's summable statistics); none by default."""
        return {}
