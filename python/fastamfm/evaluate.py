"""Every available metric in one call: ``fastamfm.evaluate(hyps, refs, metrics=...)``.

Metrics are looked up by name in the package at call time, so a build without one of
them (or without its resources: word vectors for the embedding metrics) still scores
the others and says, in a warning, what was left out and why. The chunked scorer
behind ``fastamfm score`` (``streaming.py``) uses the same machinery through
``score_chunk`` and ``ChunkTotals``, whose sums give corpus scores independent of the
chunking.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from ._validation import as_text_list

# metric name -> output columns, named as nlg-eval names them.
METRIC_COLUMNS = {
    "bleu": ("Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4"),
    "meteor": ("METEOR",),
    "rouge_l": ("ROUGE_L",),
    "cider": ("CIDEr",),
    "embedding_average": ("EmbeddingAverageCosineSimilarity",),
    "vector_extrema": ("VectorExtremaCosineSimilarity",),
    "greedy_matching": ("GreedyMatchingScore",),
    "am": ("AM",),
    "fm": ("FM",),
    "amfm": ("AM-FM",),
}
METRICS = tuple(METRIC_COLUMNS)
_EMBEDDING = ("embedding_average", "vector_extrema", "greedy_matching")
_AMFM_PARTS = {"am": "am", "fm": "fm", "amfm": "amfm"}
# Corpus scores that are not the mean of the sentence scores: corpus BLEU comes from
# summed n-gram statistics, CIDEr's idf from the whole corpus' references.
_NOT_A_MEAN = ("bleu", "cider", "meteor")


def _aliases() -> dict:
    out = {name: name for name in METRICS}
    for name, columns in METRIC_COLUMNS.items():
        for column in columns:
            out[column.lower()] = name
    out.update({"am-fm": "amfm", "am_fm": "amfm", "rouge-l": "rouge_l", "rougel": "rouge_l"})
    return out


_ALIASES = _aliases()


def parse_metrics(metrics) -> list[str]:
    """Metric names (a comma-separated string or a list; nlg-eval keys accepted) -> canonical names."""
    if metrics is None:
        return list(METRICS)
    if isinstance(metrics, str):
        metrics = [m for m in metrics.split(",") if m.strip()]
    names = []
    for m in metrics:
        if not isinstance(m, str):
            raise TypeError(f"metric names must be strings, got {type(m).__name__}")
        key = _ALIASES.get(m.strip().lower())
        if key is None:
            raise ValueError(f"unknown metric {m!r}; choose from {', '.join(METRICS)}")
        if key not in names:
            names.append(key)
    if not names:
        raise ValueError("no metric named")
    return names


@dataclass
class ScoringContext:
    """What the metrics of one run share: the AM-FM model, word vectors, workers."""

    model: object = "default"
    vectors: object = None
    workers: int = -1
    _scorer: object = field(default=None, repr=False)

    def scorer(self):
        if self._scorer is None:
            from .amfm import resolve_model

            self._scorer = resolve_model(self.model)
        return self._scorer


def available_metrics(requested, context: ScoringContext, *, warn: bool = True) -> list[str]:
    """The requested metrics this build and these resources can compute (others warned about)."""
    import fastamfm

    out = []
    for name in requested:
        if name in _AMFM_PARTS:
            out.append(name)
            continue
        if not callable(getattr(fastamfm, name, None)):
            if warn:
                warnings.warn(f"metric {name!r} is not available in this build of fastamfm; skipped",
                              RuntimeWarning, stacklevel=3)
            continue
        if name in _EMBEDDING and context.vectors is None:
            if warn:
                warnings.warn(f"metric {name!r} needs word vectors: pass vectors=fastamfm.WordVectors.load(path) "
                              f"(GloVe text, word2vec binary or fastText .vec); skipped", RuntimeWarning, stacklevel=3)
            continue
        out.append(name)
    return out


def _metric_sentences(name: str, hyps, refs, encoded, context: ScoringContext):
    """Run one nlg-eval metric; returns its MetricResult."""
    import fastamfm

    fn = getattr(fastamfm, name)
    if name == "meteor":
        return fn(hyps, refs)
    if name in _EMBEDDING:
        return fn(hyps, refs, vectors=context.vectors)
    return fn(hyps, encoded, workers=context.workers)


@dataclass
class ChunkTotals:
    """Summable statistics of scored chunks: per column the sum of the sentence scores,
    and for BLEU its sufficient statistics (``BleuStatistics``), so that corpus scores
    do not depend on how the responses were chunked."""

    n: int = 0
    sums: dict = field(default_factory=dict)
    bleu: object = None
    columns: list = field(default_factory=list)  # corpus score names, in the order asked for

    def add(self, other: "ChunkTotals") -> None:
        self.n += other.n
        if not self.columns:
            self.columns = list(other.columns)
        for k, v in other.sums.items():
            self.sums[k] = self.sums.get(k, 0.0) + v
        if other.bleu is not None:
            self.bleu = other.bleu if self.bleu is None else self.bleu + other.bleu

    def to_json(self) -> dict:
        out = {"n": self.n, "sums": self.sums, "columns": self.columns}
        if self.bleu is not None:
            b = self.bleu
            out["bleu"] = {"hyp_len": b.hyp_len, "ref_len": b.ref_len, "guess": list(b.guess),
                           "correct": list(b.correct)}
        return out

    @classmethod
    def from_json(cls, data: dict) -> "ChunkTotals":
        bleu = data.get("bleu")
        if bleu is not None:
            from .metrics.bleu import BleuStatistics

            bleu = BleuStatistics(float(bleu["hyp_len"]), float(bleu["ref_len"]), tuple(bleu["guess"]),
                                  tuple(bleu["correct"]))
        return cls(n=int(data["n"]), sums={k: float(v) for k, v in data["sums"].items()}, bleu=bleu,
                   columns=list(data.get("columns", [])))

    def corpus(self) -> dict:
        """Corpus scores: corpus BLEU from the summed statistics, the mean otherwise."""
        if self.n == 0:
            return {}
        values = {column: total / self.n for column, total in self.sums.items()}
        if self.bleu is not None:
            values.update({f"Bleu_{k}": float(v) for k, v in enumerate(self.bleu.score(), 1)})
        return {c: values[c] for c in self.columns if c in values}


def score_chunk(hyps, refs, metrics, context: ScoringContext) -> tuple[dict, ChunkTotals]:
    """Score one chunk: ({column: per-response array}, its ChunkTotals).

    ``metrics`` must come from ``available_metrics``. CIDEr and METEOR corpus scores
    are not sums over responses, so totals carry the mean of their sentence scores,
    labelled ``CIDEr (mean)`` / ``METEOR (mean)`` (and ``Bleu_k (mean)`` if a BLEU
    result lacks its statistics).
    """
    from .references import References

    per_metric: dict = {}
    totals = ChunkTotals(n=len(hyps))
    wanted_amfm = [m for m in metrics if m in _AMFM_PARTS]
    if wanted_amfm:
        res = context.scorer().score(hyps, refs, workers=context.workers)
        for m in wanted_amfm:
            per_metric[m] = {METRIC_COLUMNS[m][0]: getattr(res, _AMFM_PARTS[m])}
    others = [m for m in metrics if m not in _AMFM_PARTS]
    encoded = References(refs, workers=context.workers) if any(m in ("bleu", "rouge_l", "cider")
                                                              for m in others) else None
    for name in others:
        result = _metric_sentences(name, hyps, refs, encoded, context)
        sentences = np.asarray(result.sentences, dtype=np.float64)
        if name == "bleu":
            per_metric[name] = {c: sentences[:, k] for k, c in enumerate(METRIC_COLUMNS["bleu"])}
            totals.bleu = result.extra.get("statistics") if isinstance(result.extra, dict) else None
        else:
            per_metric[name] = {METRIC_COLUMNS[name][0]: sentences}
    # Columns in the order the metrics were asked for.
    columns = {c: v for m in metrics for c, v in per_metric[m].items()}
    for column, values in columns.items():
        if column.startswith("Bleu_") and totals.bleu is not None:
            totals.columns.append(column)  # corpus BLEU comes from the statistics
            continue
        label = column if not any(column in METRIC_COLUMNS[m] for m in _NOT_A_MEAN) else f"{column} (mean)"
        totals.sums[label] = float(np.sum(values))
        totals.columns.append(label)
    return columns, totals


def evaluate(hyps, refs, metrics=None, *, model="default", vectors=None, workers: int = -1, frame: bool | None = None):
    """Per-response scores of every requested (default: every available) metric.

    Returns ``{column: ndarray[n]}`` with nlg-eval's column names plus ``AM``, ``FM``,
    ``AM-FM``; a pandas DataFrame instead when pandas is installed (``frame=None``)
    or ``frame=True``. Metrics missing from this build or lacking resources are
    skipped with a warning. ``model``: "default", a model directory or an ``AMFM``.
    """
    hyps = as_text_list(hyps, "hyps")
    requested = parse_metrics(metrics)
    context = ScoringContext(model=model, vectors=vectors, workers=workers)
    names = available_metrics(requested, context)
    if not names:
        raise ValueError(f"none of the requested metrics {requested} is available")
    if not isinstance(refs, (list, tuple)) and not hasattr(refs, "encoded"):
        refs = list(refs)
    columns, _ = score_chunk(hyps, refs, names, context)
    if frame is False:
        return columns
    try:
        import pandas as pd
    except ImportError:
        if frame:
            raise ImportError("evaluate(frame=True) needs pandas: pip install 'fastamfm[analysis]'") from None
        return columns
    return pd.DataFrame(columns)
