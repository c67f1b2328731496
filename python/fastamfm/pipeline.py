"""The one scoring pipeline: a set of registered metrics run over batches.

Every entry point builds a ``Pipeline`` from metric names and options and feeds it
batches: ``evaluate`` and ``compute_metrics`` one batch, ``score_files`` one batch per
chunk, ``fastamfm.distributed`` one per partition. Per batch the responses are checked
once and each tokenization is built once for all metrics (``Hypotheses``), the
references once per chunk (``References``); each metric returns its columns and its
summable statistics, and the corpus scores come from the statistics added over all
batches, so they do not depend on the batching.
"""
from __future__ import annotations

import logging
import warnings
from collections.abc import Mapping

from . import registry
from ._validation import check_workers
from .batch import Batch, make_batch
from .progress import ProgressOption, reporting, reports_progress, task
from .registry import Metric, Statistics
from .result import MetricResult

# Options every entry point accepts besides the metrics' own settings.
COMMON_OPTIONS = ("workers",)

log = logging.getLogger(__name__)


class Pipeline:
    """Registered metrics scored together; see the module docstring.

    Usually built with ``Pipeline.from_names``; ``score`` is then one ``evaluate`` call,
    and ``batch``/``score_batch``/``add``/``corpus`` score a corpus batch by batch.

    Parameters
    ----------
    metrics : iterable of Metric
        Configured metric instances (at least one).
    workers : int, default -1
        Threads (-1: every core).

    Raises
    ------
    ValueError
        No metric, or a bad ``workers``.

    Examples
    --------
    >>> from fastamfm import Pipeline
    >>> pipeline = Pipeline.from_names(["bleu", "rouge_l"], bleu={"max_order": 2})
    >>> pipeline.names, pipeline.columns
    (['bleu', 'rouge_l'], ['Bleu_1', 'Bleu_2', 'ROUGE_L'])
    >>> res = pipeline.score(["the cat sat on the mat", "a dog ran"],
    ...                      [["the cat sat on a mat", "a cat was on the mat"], ["the dog ran away"]])
    >>> {column: round(score, 6) for column, score in res.corpus.items()}
    {'Bleu_1': 0.695986, 'Bleu_2': 0.730633, 'ROUGE_L': 0.695205}
    """

    def __init__(self, metrics, *, workers: int = -1):
        self.metrics: list[Metric] = list(metrics)
        if not self.metrics:
            raise ValueError("no metric to score")
        self.workers = check_workers(workers, "pipeline")

    @classmethod
    def from_names(cls, names=None, *, warn: bool = True, strict: bool = False, what: str = "evaluate",
                   defaults: bool | None = None, **options) -> "Pipeline":
        """The metrics ``names`` (registry names, columns or aliases; None: nlg-eval's
        set) configured from ``options``. A metric that cannot run here (missing word
        vectors, METEOR resources, optional packages) is left out, saying how to enable
        it: with a warning -- or in one INFO log line when it only came with a default set
        (``defaults``: the names are a default set, as ``names=None`` is) and lacks an
        option nobody gave (``Metric.needs_option``: the embedding metrics without
        ``vectors=``), which is expected there.
        With ``strict=True`` (a reward or a training-time metric, where a silently missing
        term would change what is optimised) it is a ValueError saying the same. An option
        no chosen metric reads is a TypeError.

        Parameters
        ----------
        names : str or sequence of str, optional
            Registry names, nlg-eval keys or aliases; None: nlg-eval's default set.
        warn : bool, default True
            Warn (or log) about the metrics left out.
        strict : bool, default False
            A metric that cannot run is an error, not left out.
        what : str, default "evaluate"
            The name errors and warnings start with.
        defaults : bool, optional
            Whether ``names`` is a default set; None: when ``names`` is None.
        **options
            ``workers`` and the metrics' settings; a dict under a metric's name sets that one.

        Returns
        -------
        Pipeline
            The metrics that can run here, configured.

        Raises
        ------
        TypeError
            An option no chosen metric reads.
        ValueError
            An unknown metric, a setting a metric rejects, a metric that cannot run with
            ``strict=True``, or none of the metrics able to run.
        """
        if defaults is None:
            defaults = names is None
        names = registry.resolve(names)
        # A dict under a metric's name holds settings for that metric alone
        # (e.g. bleu={"max_order": 2} beside cider's own max_order).
        own = {n: options[n] for n in names if isinstance(options.get(n), dict)}
        shared = {k: v for k, v in options.items() if k not in own}
        known = registry.option_names(names) | set(COMMON_OPTIONS)
        unknown = sorted(set(shared) - known)
        for name, settings in own.items():
            unknown += [f"{name}[{k!r}]" for k in settings if k not in registry.metric_class(name).option_names()]
        if unknown:
            raise TypeError(f"{what}: unknown option(s) {unknown} for metrics {names}; accepted: {sorted(known)}")
        metrics: list[Metric] = []
        left_out: dict[str, list[str]] = {}     # why -> the columns left out for it
        expected: dict[str, list[str]] = {}     # those of left_out that only lack an option nobody gave
        for name in names:
            metric_class = registry.metric_class(name)
            settings = {**shared, **own.get(name, {})}
            reason = metric_class.missing(**settings)
            if reason is not None:
                if strict:
                    raise ValueError(f"{what}: {', '.join(metric_class.columns)} cannot run here: {reason}")
                quiet = defaults and metric_class.needs_option(**settings)
                if warn and not quiet:
                    warnings.warn(f"{', '.join(metric_class.columns)} left out: {reason}", RuntimeWarning,
                                  stacklevel=3)
                left_out.setdefault(reason, []).extend(metric_class.columns)
                if quiet:
                    expected.setdefault(reason, []).extend(metric_class.columns)
                continue
            metrics.append(metric_class.from_options(**settings))
        if warn and expected:
            log.info("%s: %s", what, "; ".join(f"{', '.join(columns)} left out ({reason})"
                                               for reason, columns in expected.items()))
        if not metrics:
            raise ValueError(f"{what}: none of the requested metrics {names} can run here: " + "; ".join(
                f"{', '.join(columns)}: {reason}" for reason, columns in left_out.items()))
        return cls(metrics, workers=options.get("workers", -1))

    # --- what it computes ---------------------------------------------------------
    @property
    def names(self) -> list[str]:
        return [m.name for m in self.metrics]

    @property
    def columns(self) -> list[str]:
        return [c for m in self.metrics for c in m.columns]

    @property
    def needs_reference_pass(self) -> bool:
        return any(m.reference_pass for m in self.metrics)

    def check_chunked(self, what: str) -> None:
        """Refuse metrics whose response scores depend on every other response of the call
        (``whole_set``: Self-BLEU) where the corpus is scored chunk by chunk."""
        whole = [m.name for m in self.metrics if getattr(m, "whole_set", False)]
        if whole:
            raise ValueError(f"{what}: {', '.join(whole)} compares each response with all the others of the set; "
                             f"scored chunk by chunk it would see only the chunk's. Score the whole set at once "
                             f"(fastamfm.evaluate, fastamfm.self_bleu)")

    def signatures(self) -> dict:
        return {m.name: m.signature() for m in self.metrics}

    # --- scoring --------------------------------------------------------------------
    def reference_statistics(self, refs) -> dict:
        """The first-pass statistics of one chunk's references, per metric that needs them."""
        return {m.name: m.reference_statistics(refs) for m in self.metrics if m.reference_pass}

    def reference_statistics_from_json(self, data: Mapping) -> dict:
        """The first-pass statistics ``statistics_to_json`` wrote, per metric that needs them."""
        by_name = {m.name: m for m in self.metrics if m.reference_pass}
        if set(data) != set(by_name):
            raise ValueError(f"reference statistics of {sorted(data)}, expected {sorted(by_name)}")
        return {name: by_name[name].reference_statistics_from_json(value) for name, value in data.items()}

    def with_reference_statistics(self, statistics: Mapping) -> "Pipeline":
        """This pipeline with its reference-pass metrics configured from the whole corpus."""
        metrics = [m.with_reference_statistics(statistics[m.name]) if m.reference_pass else m for m in self.metrics]
        return Pipeline(metrics, workers=self.workers)

    def batch(self, hyps, refs=None, contexts=None, *, what: str = "evaluate", layout: str | None = None) -> Batch:
        return make_batch(hyps, refs, contexts, self.metrics, what=what, workers=self.workers, layout=layout)

    def score_chunks(self, batch: Batch) -> dict:
        """{metric name: Chunk} of one batch, in metric order (a progress step per metric)."""
        for metric in self.metrics:
            metric.reserve(batch)
        chunks = {}
        with task("metrics", total=len(self.metrics), unit="metric") as scored:
            for metric in self.metrics:
                chunks[metric.name] = metric.update(batch)
                scored.advance()
        return chunks

    def score_batch(self, batch: Batch) -> tuple[dict, dict]:
        """({column: ndarray[n]} in metric order, {metric name: Statistics})."""
        columns, statistics = {}, {}
        for name, chunk in self.score_chunks(batch).items():
            columns.update(chunk.columns)
            statistics[name] = chunk.statistics
        return columns, statistics

    def empty_statistics(self) -> dict:
        return {m.name: m.empty_statistics() for m in self.metrics}

    @staticmethod
    def add(total: dict, statistics: dict) -> dict:
        """Per metric, the sum of two statistics dicts."""
        return {name: total[name] + statistics[name] for name in total}

    def corpus(self, statistics: Mapping[str, Statistics]) -> dict:
        """{column: corpus score} from the statistics summed over every batch."""
        out = {}
        for metric in self.metrics:
            out.update(metric.compute(statistics[metric.name]))
        return out

    def statistics_to_json(self, statistics: Mapping[str, Statistics]) -> dict:
        return {name: s.to_json() for name, s in statistics.items()}

    def statistics_from_json(self, data: Mapping) -> dict:
        by_name = {m.name: m for m in self.metrics}
        return {name: by_name[name].statistics_from_json(value) for name, value in data.items()}

    @reports_progress
    def score(self, hyps, refs=None, contexts=None, *, what: str = "evaluate",
              layout: str | None = None, progress: ProgressOption = None) -> MetricResult:
        """Every metric on one batch: a table ``MetricResult`` (``.sentences`` column ->
        ndarray, ``.corpus`` column -> float); ``layout`` of ``refs``: see ``References.of``;
        ``progress``: per metric and, inside the neural ones, per forward batch (``fastamfm.progress``).

        Parameters
        ----------
        hyps : sequence of str or Hypotheses
            The n responses.
        refs : sequence of sequences of str, or References, optional
            ``refs[i]``: the references of ``hyps[i]``; None for metrics that need none.
        contexts : sequence, optional
            Per response the dialogue before it, for the reference-free metrics.
        what : str, default "evaluate"
            The result's name, and the name errors start with.
        layout : {None, "responses", "streams"}, optional
            How a plain list ``refs`` is laid out.
        progress : bool or callable, optional
            ``fastamfm.progress``'s option.

        Returns
        -------
        MetricResult
            Every metric's columns, named ``what``; the signature joins the metrics' signatures.

        Raises
        ------
        ValueError
            Lengths that do not match, empty input, references or contexts missing for a
            metric that needs them.
        TypeError
            Inputs that are not strings or sequences of strings.
        """
        batch = self.batch(hyps, refs, contexts, what=what, layout=layout)
        pipeline = self
        if self.needs_reference_pass:
            pipeline = self.with_reference_statistics(self.reference_statistics(batch.refs))
        columns, statistics = pipeline.score_batch(batch)
        signatures = pipeline.signatures()
        return MetricResult(what, pipeline.corpus(statistics), columns, " + ".join(signatures.values()),
                            {"signatures": signatures, "statistics": statistics})


def evaluate(hyps, refs=None, metrics=None, *, contexts=None, layout: str | None = None,
             progress: ProgressOption = None, **options) -> MetricResult:
    """Per-response and corpus scores of the requested metrics, as one table.

    ``metrics``: registry names, nlg-eval keys or aliases, as a list or a comma-separated
    string (``fastamfm.registry.names()`` lists them); default: nlg-eval's set (BLEU-1..4,
    METEOR, ROUGE-L, CIDEr, and the embedding metrics when ``vectors=`` is given).
    ``refs``: per-response reference lists or a ``fastamfm.References`` reused across
    calls; ``layout="streams"`` takes sacrebleu's reference streams instead (``refs[j][i]``:
    the j-th reference of ``hyps[i]``), ``layout="responses"`` says per response (lists
    that fit both layouts otherwise warn, ``AmbiguousReferencesWarning``); ``contexts``: per-response dialogue so far, for reference-free metrics.
    ``progress``: a bar on stderr when it is a terminal (default), ``False``, ``True`` or a
    callable: per metric and per forward batch of the neural ones (``fastamfm.progress``).
    ``options``: ``workers`` and the metrics' settings (``model=`` for AM/FM/AM-FM,
    ``vectors=`` for the embedding metrics, ``tokenize=``, ...; a dict under a metric's
    name sets that metric alone, e.g. ``bleu={"max_order": 2}``).

    Returns a ``MetricResult``: ``.sentences`` {column: ndarray[n]}, ``.corpus`` {column:
    corpus score from the metrics' exact statistics}, ``.to_frame()``/``.to_dict()``.
    A metric that cannot run here (missing resources) is left out with a warning.

    Parameters
    ----------
    hyps : sequence of str
        The n responses.
    refs : sequence of sequences of str, or References, optional
        ``refs[i]``: the references of ``hyps[i]`` (any count >= 1); ``None`` for metrics
        that need none.
    metrics : str or sequence of str, optional
        Registry names, nlg-eval keys or aliases; ``None``: nlg-eval's default set.
    contexts : sequence, optional
        Per response the dialogue before it (a str with newlines between turns, or a list
        of turns), for the reference-free metrics.
    layout : str, optional
        How ``refs`` is laid out when it is a plain list: ``"responses"`` (``refs[i]``
        belongs to ``hyps[i]``) or ``"streams"`` (``refs[j][i]``, sacrebleu's layout).
    progress : bool or callable, optional
        ``fastamfm.progress``: ``None`` a bar on a terminal, ``False`` none, ``True`` always,
        or a callable of ``ProgressUpdate``.
    **options
        ``workers`` and the metrics' settings; a dict under a metric's name sets that one.

    Returns
    -------
    MetricResult
        Per-response columns (``.sentences``, ``res[column]``), corpus scores (``.corpus``)
        and the signature of every metric (``.signature``).

    Raises
    ------
    ValueError
        Lengths that do not match, an unknown metric or option, an empty reference list;
        the message names the argument and index (``refs[3]``).
    TypeError
        Inputs that are not strings or sequences of strings.

    Examples
    --------
    >>> import fastamfm
    >>> res = fastamfm.evaluate(["the cat sat"], [["the cat sat", "a cat sat"]], metrics=["bleu"])
    >>> round(res.corpus["Bleu_1"], 6)
    1.0
    """
    # The option covers the metrics' model loads too, which happen as they are built.
    with reporting(progress):
        pipeline = Pipeline.from_names(metrics, what="evaluate", **options)
        return pipeline.score(hyps, refs, contexts, layout=layout)
