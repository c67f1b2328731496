"""How well metric scores agree with human judgements, and with each other.

``correlate`` gives Pearson, Spearman and Kendall coefficients with the p-values
``scipy.stats`` reports (the numbers are scipy's own: ``pearsonr``, ``spearmanr``,
``kendalltau``), at system level (one point per system: its system score, below) or
at utterance level (one point per response), with percentile bootstrap confidence
intervals.

A system's score at system level -- ONE rule, the same in ``correlate``,
``metric_correlations``, ``fastamfm correlate`` and ``fastamfm report``
(``system_score="corpus"``, the default): the metric's CORPUS score where the metric has
one (BLEU and METEOR from pooled statistics, as published tables report them; given as
a ``MetricResult`` per system, or a ``fastamfm score`` output with its summary), else the
mean of the system's sentence scores (which is the corpus score of every mean-type
metric: ROUGE-L, CIDEr, AM, FM...). ``system_score="mean"`` takes the mean of the sentence
scores for every metric instead (what averaging sentence-BLEU gives: a different number
for BLEU and METEOR). Each table says which rule it used (docs/reading-the-numbers.md).

``metric_correlations`` is the metric x metric matrix (any of the three
coefficients, with p-values): how consistent the metrics are with each other, and
``cluster_metrics`` groups the metrics that say the same thing (hierarchical
clustering, average linkage on 1 − correlation, as Feng & Rong's "Yet Another Problem
of Automatic Evaluation of Generative Dialogue Systems" does).

Inputs, all aligned by this module:

- ``scores``: ``{metric: values}``, a single array (named ``"score"``), a pandas
  DataFrame (one column per metric), or ``{system: MetricResult}`` (every column of the
  results, system level). ``values`` is an array (one entry per point, or per response
  when ``systems`` labels the responses) or ``{system: value, array or MetricResult}``
  (a value: the system score itself; an array: sentence scores).
- ``human``: an array aligned with the scores, or ``{system: rating}`` (system level).
  Systems the human file rates but the scores lack (e.g. DSTC-6's S_21, the human
  reference) are ignored; a scored system without a rating is an error.

The bootstrap resamples the points of the chosen level (systems at system level),
with the same draws for every metric and method so that metrics can be compared.
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Literal, cast

import numpy as np

METHODS = ("pearson", "spearman", "kendall")
LEVELS = ("system", "utterance")
# How a system's score is formed at system level (see the module docstring).
SYSTEM_SCORES = ("corpus", "mean")
SYSTEM_SCORE_RULES = {
    "corpus": "each system's corpus score (the mean of its sentence scores where the metric has no other)",
    "mean": "each system's mean sentence score (system_score='mean')",
}
# Resamples are evaluated in blocks of at most this many values to bound memory.
_BOOTSTRAP_BLOCK_VALUES = 1 << 22


def _stats():
    try:
        import scipy.stats
    except ImportError:
        raise ImportError("fastamfm.correlate needs scipy: pip install '.[analysis]' in the fastamfm "
                          "checkout") from None
    return scipy.stats


@dataclass(frozen=True)
class Correlation:
    """One coefficient. ``ci_low``/``ci_high`` are nan when no bootstrap was asked for."""

    metric: str
    method: str
    level: str
    n: int
    coefficient: float
    p_value: float
    ci_low: float = math.nan
    ci_high: float = math.nan


class CorrelationTable:
    """Rows of ``Correlation``; ``table["AM-FM", "pearson"]`` picks one."""

    def __init__(self, rows, *, bootstrap: int, confidence: float, points: list, system_score: str | None = None):
        self.rows = tuple(rows)
        self.bootstrap = bootstrap
        self.confidence = confidence
        self.points = points  # the system names (system level) or response indices
        self.system_score = system_score  # the rule of the system scores (system level), else None

    def __getitem__(self, key) -> Correlation:
        metric, method = key
        for row in self.rows:
            if row.metric == metric and row.method == method:
                return row
        raise KeyError(f"no correlation for metric {metric!r} and method {method!r}")

    def __iter__(self):
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def metrics(self) -> list[str]:
        return list(dict.fromkeys(r.metric for r in self.rows))

    def to_records(self) -> list[dict]:
        return [asdict(r) for r in self.rows]

    def to_pandas(self):
        import pandas as pd

        return pd.DataFrame(self.to_records())

    def __str__(self) -> str:
        width = max([8] + [len(r.metric) + 2 for r in self.rows])
        head = f"{'metric':<{width}}{'method':<10}{'n':>7}{'coef':>10}{'p-value':>12}"
        if self.bootstrap:
            head += f"   {int(self.confidence * 100)}% CI ({self.bootstrap} resamples)"
        lines = [head]
        for r in self.rows:
            line = f"{r.metric:<{width}}{r.method:<10}{r.n:>7}{r.coefficient:>10.4f}{r.p_value:>12.3g}"
            if self.bootstrap:
                line += f"   [{r.ci_low:.4f}, {r.ci_high:.4f}]"
            lines.append(line)
        if self.system_score is not None:
            lines.append(f"system level: {SYSTEM_SCORE_RULES[self.system_score]}")
        return "\n".join(lines)

    __repr__ = __str__


@dataclass(frozen=True)
class SystemScores:
    """One system's scores of one metric column: its corpus score (None when the
    metric's corpus score is unknown) and its sentence scores. ``value(rule)`` is its
    system-level score under ``system_score`` rule ``rule``."""

    corpus: float | None
    sentences: np.ndarray

    def value(self, rule: str) -> float:
        if rule == "corpus" and self.corpus is not None:
            return float(self.corpus)
        return float(np.mean(self.sentences))


def result_columns(result) -> dict:
    """{column: SystemScores} of a ``MetricResult`` (every column it has)."""
    corpus, sentences = result.corpus, result.sentences
    if isinstance(sentences, Mapping):
        return {c: SystemScores(float(corpus[c]) if isinstance(corpus, Mapping) and c in corpus else None,
                                np.asarray(v, dtype=np.float64)) for c, v in sentences.items()}
    values = np.asarray(sentences, dtype=np.float64)
    if values.ndim == 2:
        corpus = np.atleast_1d(np.asarray(corpus, dtype=np.float64))
        return {f"{result.name}_{k + 1}": SystemScores(float(corpus[k]), values[:, k]) for k in range(values.shape[1])}
    return {result.name: SystemScores(float(corpus), values)}


def _check_system_score(system_score) -> str:
    if system_score not in SYSTEM_SCORES:
        raise ValueError(f"system_score must be one of {SYSTEM_SCORES}, got {system_score!r}")
    return system_score


@dataclass(frozen=True)
class CorrelationMatrix:
    """``values[i, j]``: correlation of metric ``names[i]`` with metric ``names[j]``;
    ``p_values[i, j]`` its two-sided p-value (scipy's; 0 on the diagonal). An entry
    involving a constant metric is nan."""

    names: list
    values: np.ndarray
    p_values: np.ndarray
    method: str
    level: str

    def reordered(self, order) -> "CorrelationMatrix":
        """The same matrix with the metrics in ``order`` (names or indices)."""
        index = [self.names.index(o) if isinstance(o, str) else int(o) for o in order]
        if sorted(index) != list(range(len(self.names))):
            raise ValueError(f"order must list each of the {len(self.names)} metrics once, got {list(order)}")
        grid = np.ix_(index, index)
        return CorrelationMatrix([self.names[i] for i in index], self.values[grid], self.p_values[grid],
                                 self.method, self.level)

    def to_pandas(self):
        import pandas as pd

        return pd.DataFrame(self.values, index=self.names, columns=self.names)

    def __str__(self) -> str:
        # Full names label the rows; columns carry the row numbers to stay narrow.
        label = max(len(n) for n in self.names) + 6
        lines = [" " * label + "".join(f"{f'({i + 1})':>9}" for i in range(len(self.names)))]
        for i, (name, row) in enumerate(zip(self.names, self.values)):
            lines.append(f"{f'({i + 1}) ' + name:<{label}}" + "".join(f"{v:>9.4f}" for v in row))
        return "\n".join(lines)


@dataclass(frozen=True)
class MetricClustering:
    """Hierarchical clustering of metrics: ``linkage`` is scipy's (n − 1) x 4 linkage
    matrix over ``names`` (for ``scipy.cluster.hierarchy.dendrogram``), ``order`` the
    names in dendrogram leaf order (the order to draw an ordered heatmap in), and
    ``distances`` the square matrix 1 − correlation it was built from."""

    names: list
    linkage: np.ndarray
    order: list
    distances: np.ndarray
    method: str


# --- aligning inputs -------------------------------------------------------------

def _as_float_array(values, what: str) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must hold numbers") from None
    if arr.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional, got shape {arr.shape}")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise ValueError(f"{what}[{bad[0]}] is {arr[bad[0]]}: scores must be finite numbers")
    return arr


def _is_result(value) -> bool:
    from ..result import MetricResult

    return isinstance(value, MetricResult)


def _as_metric_mapping(scores) -> dict:
    if _is_result(scores):
        raise TypeError("scores is one MetricResult: give {system: MetricResult} (system level) or its columns")
    if hasattr(scores, "columns") and hasattr(scores, "__getitem__"):  # a pandas DataFrame
        return {str(c): scores[c].to_numpy() for c in scores.columns}
    if isinstance(scores, Mapping):
        if not scores:
            raise ValueError("scores is empty")
        if all(_is_result(v) for v in scores.values()):      # {system: MetricResult}
            out: dict = {}
            for system, result in scores.items():
                for column, value in result_columns(result).items():
                    out.setdefault(column, {})[system] = value
            return out
        return {str(k): v for k, v in scores.items()}
    if isinstance(scores, (str, bytes)):
        raise TypeError("scores must be {metric: values}, an array or a DataFrame, not a string")
    return {"score": scores}


def _group_means(values: np.ndarray, systems, what: str) -> dict:
    labels = list(systems)
    if len(labels) != len(values):
        raise ValueError(f"{what}: {len(values)} scores but {len(labels)} system labels")
    order = list(dict.fromkeys(labels))
    index = {s: i for i, s in enumerate(order)}
    codes = np.fromiter((index[s] for s in labels), dtype=np.int64, count=len(labels))
    means = np.bincount(codes, weights=values) / np.bincount(codes)
    return dict(zip(order, means))


def _system_values(metric: str, values, systems, rule: str = "corpus") -> dict:
    """One metric's scores as {system: system score} under ``rule`` (``SYSTEM_SCORES``)."""
    what = f"scores[{metric!r}]"
    if isinstance(values, Mapping):
        out = {}
        for system, v in values.items():
            if _is_result(v):
                columns = result_columns(v)
                if metric not in columns:
                    raise ValueError(f"{what}[{system!r}] is a result without a column {metric!r} "
                                     f"(it has {list(columns)})")
                v = columns[metric]
            if isinstance(v, SystemScores):
                value = v.value(rule)
                if not math.isfinite(value):
                    raise ValueError(f"{what}[{system!r}] is {value}: scores must be finite numbers")
                out[system] = value
                continue
            arr = np.atleast_1d(_as_float_array(np.atleast_1d(v), f"{what}[{system!r}]"))
            if arr.size == 0:
                raise ValueError(f"{what}[{system!r}] is empty")
            out[system] = float(arr.mean())
        return out
    arr = _as_float_array(values, what)
    if systems is None:
        raise ValueError(f"{what} is a plain array: give human as an aligned array, or systems= labels")
    return _group_means(arr, systems, what)


def _aligned(scores, human, level: str, systems, rule: str = "corpus") -> tuple[list, dict, np.ndarray]:
    """-> (points, {metric: x}, y) with x and y aligned point by point."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    metrics = _as_metric_mapping(scores)
    if isinstance(human, Mapping):
        if level != "system":
            raise ValueError("human ratings given per system ({system: rating}) need level='system'")
        ratings = {s: float(v) for s, v in human.items()}
        per_metric = {m: _system_values(m, v, systems, rule) for m, v in metrics.items()}
        points = list(next(iter(per_metric.values())))
        for m, table in per_metric.items():
            if set(table) != set(points):
                raise ValueError(f"scores[{m!r}] covers systems {sorted(table)} but scores"
                                 f"[{next(iter(per_metric))!r}] covers {sorted(points)}")
        unrated = [s for s in points if s not in ratings]
        if unrated:
            raise ValueError(f"no human rating for systems {unrated} (human rates {sorted(ratings)})")
        y = _as_float_array([ratings[s] for s in points], "human")
        xs = {m: np.array([t[s] for s in points]) for m, t in per_metric.items()}
        return points, xs, y

    y = _as_float_array(human, "human")
    xs = {}
    for m, v in metrics.items():
        if isinstance(v, Mapping):
            raise TypeError(f"scores[{m!r}] is per system but human is an array; give human as {{system: rating}}")
        if _is_result(v):
            columns = result_columns(v)
            if m not in columns:
                raise ValueError(f"scores[{m!r}] is a result without a column {m!r} (it has {list(columns)})")
            v = columns[m].sentences
        x = _as_float_array(v, f"scores[{m!r}]")
        if len(x) != len(y):
            raise ValueError(f"scores[{m!r}] has {len(x)} values but human has {len(y)}")
        xs[m] = x
    if level == "system" and systems is not None:
        hum = _group_means(y, systems, "human")
        points = list(hum)
        # _group_means keeps the order of first appearance, the same for every metric.
        xs = {m: np.array(list(_group_means(x, systems, f"scores[{m!r}]").values())) for m, x in xs.items()}
        return points, xs, np.array(list(hum.values()))
    return list(range(len(y))), xs, y


# --- coefficients ---------------------------------------------------------------

def _coefficient(method: str, x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    stats = _stats()
    fn = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}[method]
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan, math.nan
    res = fn(x, y)
    return float(res[0]), float(res[1])


def _pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of each row of x with the same row of y (nan for a constant row)."""
    xc = x - x.mean(axis=1, keepdims=True)
    yc = y - y.mean(axis=1, keepdims=True)
    denom = np.sqrt((xc * xc).sum(axis=1) * (yc * yc).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (xc * yc).sum(axis=1) / denom
    r[denom == 0] = np.nan
    return np.clip(r, -1.0, 1.0)


def _bootstrap_samples(method: str, x: np.ndarray, y: np.ndarray, draws: np.ndarray) -> np.ndarray:
    stats = _stats()
    out = np.empty(len(draws))
    block = max(1, _BOOTSTRAP_BLOCK_VALUES // max(1, draws.shape[1]))
    for start in range(0, len(draws), block):
        idx = draws[start:start + block]
        xb, yb = x[idx], y[idx]
        if method == "pearson":
            out[start:start + len(idx)] = _pearson_rows(xb, yb)
        elif method == "spearman":
            out[start:start + len(idx)] = _pearson_rows(stats.rankdata(xb, axis=1), stats.rankdata(yb, axis=1))
        else:
            for j in range(len(idx)):
                out[start + j] = _coefficient("kendall", xb[j], yb[j])[0]
    return out


def _check_methods(methods) -> tuple:
    if isinstance(methods, str):
        methods = (methods,)
    methods = tuple(methods)
    for m in methods:
        if m not in METHODS:
            raise ValueError(f"unknown correlation method {m!r}; choose from {METHODS}")
    if not methods:
        raise ValueError("methods is empty")
    return methods


def correlate(scores, human, *, level: str = "system", systems=None,
              methods=("pearson", "spearman", "kendall"), bootstrap: int = 0,
              confidence: float = 0.95, seed: int = 0, system_score: str = "corpus") -> CorrelationTable:
    """Correlation of every metric in ``scores`` with ``human``, one row per metric and method.

    ``bootstrap``: number of resamples for percentile confidence intervals at
    ``confidence`` (0: none). Coefficients and p-values are those of scipy.stats;
    a constant metric gives nan (with a warning) rather than a made-up number.
    ``system_score`` (system level): "corpus" (default: each system's corpus score where
    the metric has one, else the mean of its sentence scores) or "mean" (the mean of the
    sentence scores for every metric); see the module docstring. Sentence scores given
    as plain arrays have no corpus score: their mean is taken either way.

    Parameters
    ----------
    scores : mapping, array, DataFrame or mapping of str to MetricResult
        The metric scores (see the module docstring for every form).
    human : array or mapping of str to float
        The human judgements, aligned with ``scores``, or ``{system: rating}``.
    level : {"system", "utterance"}, default "system"
        One point per system or per response.
    systems : sequence, optional
        Per response its system, to group per-response arrays into systems.
    methods : sequence of str, default ("pearson", "spearman", "kendall")
        The coefficients computed.
    bootstrap : int, default 0
        Resamples for percentile confidence intervals (0: none).
    confidence : float, default 0.95
        The level of the intervals, in (0, 1).
    seed : int, default 0
        The seed of the bootstrap draws.
    system_score : {"corpus", "mean"}, default "corpus"
        How a system's score is formed at system level.

    Returns
    -------
    CorrelationTable
        One ``Correlation`` (``coefficient``, ``p_value``, ``ci_low``, ``ci_high``, ``n``) per
        metric and method: ``table["bleu", "pearson"]``; ``str(table)`` prints them.

    Raises
    ------
    ValueError
        An unknown level, method or ``system_score``, a bad ``bootstrap`` or ``confidence``,
        misaligned inputs, a scored system without a rating, fewer than 3 points.
    TypeError
        ``scores`` as one ``MetricResult``, or per system while ``human`` is an array.
    ImportError
        scipy not installed (the ``analysis`` extra).

    Examples
    --------
    >>> import fastamfm
    >>> scores = {"bleu": {"A": 0.21, "B": 0.25, "C": 0.30, "D": 0.28},
    ...           "rouge_l": {"A": 0.40, "B": 0.38, "C": 0.47, "D": 0.45}}
    >>> human = {"A": 3.1, "B": 3.4, "C": 3.9, "D": 3.6}
    >>> table = fastamfm.correlate(scores, human, methods=["pearson", "kendall"])
    >>> [(row.metric, row.method, round(row.coefficient, 4)) for row in table]  # doctest: +NORMALIZE_WHITESPACE
    [('bleu', 'pearson', 0.9862), ('bleu', 'kendall', 1.0),
     ('rouge_l', 'pearson', 0.8245), ('rouge_l', 'kendall', 0.6667)]
    >>> round(table["bleu", "pearson"].p_value, 4)
    0.0138
    """
    rule = _check_system_score(system_score)
    methods = _check_methods(methods)
    if not isinstance(bootstrap, (int, np.integer)) or bootstrap < 0:
        raise ValueError(f"bootstrap must be a non-negative integer, got {bootstrap!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    points, xs, y = _aligned(scores, human, level, systems, rule)
    n = len(y)
    if n < 3:
        raise ValueError(f"correlation needs at least 3 points, got {n} at {level} level")
    draws = np.random.default_rng(seed).integers(0, n, size=(bootstrap, n)) if bootstrap else None
    alpha = (1 - confidence) / 2
    rows = []
    for metric, x in xs.items():
        if np.ptp(x) == 0:
            warnings.warn(f"metric {metric!r} is constant over the {n} points: its correlation is undefined (nan)",
                          RuntimeWarning, stacklevel=2)
        for method in methods:
            coef, p = _coefficient(method, x, y)
            low = high = math.nan
            if draws is not None:
                samples = _bootstrap_samples(method, x, y, draws)
                if np.isfinite(samples).any():
                    low, high = (float(v) for v in np.nanquantile(samples, [alpha, 1 - alpha]))
            rows.append(Correlation(metric, method, level, n, coef, p, low, high))
    return CorrelationTable(rows, bootstrap=int(bootstrap), confidence=confidence, points=points,
                            system_score=rule if level == "system" else None)


def metric_correlations(scores, *, method: str = "pearson", level: str = "utterance",
                        systems=None, system_score: str = "corpus") -> CorrelationMatrix:
    """The metric x metric correlation matrix of ``scores`` (at least two metrics).

    At ``level="system"`` with ``systems`` labels (or per-system mappings), each metric
    is first reduced to one score per system (``system_score``, as ``correlate``).

    Parameters
    ----------
    scores : mapping, DataFrame or mapping of str to MetricResult
        At least two metrics' scores (the forms ``correlate`` takes).
    method : {"pearson", "spearman", "kendall"}, default "pearson"
        The coefficient.
    level : {"utterance", "system"}, default "utterance"
        One point per response, or per system.
    systems : sequence, optional
        Per response its system (system level).
    system_score : {"corpus", "mean"}, default "corpus"
        How a system's score is formed at system level.

    Returns
    -------
    CorrelationMatrix
        ``names``, ``values`` [m, m] and ``p_values``; ``str()`` prints the matrix.

    Raises
    ------
    ValueError
        Fewer than two metrics or three points, metrics of different lengths or systems,
        an unknown method, level or ``system_score``.
    ImportError
        scipy not installed (the ``analysis`` extra).

    Examples
    --------
    >>> import fastamfm
    >>> matrix = fastamfm.metric_correlations({"bleu": [0.1, 0.4, 0.35, 0.8, 0.6],
    ...                                        "chrf": [20, 45, 40, 70, 66], "length": [9, 3, 7, 4, 2]})
    >>> matrix.names, matrix.values.round(4).tolist()
    (['bleu', 'chrf', 'length'], [[1.0, 0.9796, -0.7454], [0.9796, 1.0, -0.8322], [-0.7454, -0.8322, 1.0]])
    """
    rule = _check_system_score(system_score)
    (method,) = _check_methods(method)
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    metrics = _as_metric_mapping(scores)
    if len(metrics) < 2:
        raise ValueError(f"metric_correlations needs at least two metrics, got {list(metrics)}")
    if level == "system" and (systems is not None or any(isinstance(v, Mapping) for v in metrics.values())):
        tables = {m: _system_values(m, v, systems, rule) for m, v in metrics.items()}
        points = list(next(iter(tables.values())))
        xs = {}
        for m, t in tables.items():
            if set(t) != set(points):
                raise ValueError(f"scores[{m!r}] covers systems {sorted(t)}, others cover {sorted(points)}")
            xs[m] = np.array([t[s] for s in points])
    else:
        xs = {m: _as_float_array(v, f"scores[{m!r}]") for m, v in metrics.items()}
        sizes = {m: len(x) for m, x in xs.items()}
        if len(set(sizes.values())) > 1:
            raise ValueError(f"metrics have different lengths: {sizes}")
    names = list(xs)
    n = len(xs[names[0]])
    if n < 3:
        raise ValueError(f"correlation needs at least 3 points, got {n}")
    values = np.eye(len(names))
    p_values = np.zeros((len(names), len(names)))
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            coefficient, p = _coefficient(method, xs[names[i]], xs[names[j]])
            values[i, j] = values[j, i] = coefficient
            p_values[i, j] = p_values[j, i] = p
    constant = [m for m in names if np.ptp(xs[m]) == 0]
    for m in constant:
        k = names.index(m)
        values[k, k], p_values[k, k] = math.nan, math.nan
    if constant:
        warnings.warn(f"metrics {constant} are constant over the {n} points: their correlations are undefined (nan)",
                      RuntimeWarning, stacklevel=2)
    return CorrelationMatrix(names, values, p_values, method, level)


def cluster_metrics(matrix: CorrelationMatrix, *, linkage: str = "average") -> MetricClustering:
    """Agglomerative clustering of the metrics of ``matrix`` with distance 1 − correlation
    (0 for identical rankings, 2 for opposite ones) and ``linkage`` ("average": UPGMA,
    as Feng & Rong; or "single", "complete", "weighted"). Leaves are ordered so that
    neighbours are as close as possible (scipy's optimal leaf ordering).

    Parameters
    ----------
    matrix : CorrelationMatrix
        A ``metric_correlations`` result (at least two metrics, none constant).
    linkage : {"average", "single", "complete", "weighted"}, default "average"
        scipy's linkage method.

    Returns
    -------
    MetricClustering
        ``names``, scipy's ``linkage`` matrix, the leaf ``order``, the ``distances`` and the ``method``.

    Raises
    ------
    ValueError
        An unknown ``linkage``, fewer than two metrics, a metric with undefined correlations.
    ImportError
        scipy not installed (the ``analysis`` extra).

    Examples
    --------
    >>> import fastamfm
    >>> matrix = fastamfm.metric_correlations({"bleu": [0.1, 0.4, 0.35, 0.8, 0.6],
    ...                                        "chrf": [20, 45, 40, 70, 66], "length": [9, 3, 7, 4, 2]})
    >>> fastamfm.cluster_metrics(matrix).order
    ['length', 'bleu', 'chrf']
    """
    try:
        from scipy.cluster import hierarchy
        from scipy.spatial.distance import squareform
    except ImportError:
        raise ImportError("cluster_metrics needs scipy: pip install '.[analysis]' in the fastamfm checkout") from None
    if linkage not in ("average", "single", "complete", "weighted"):
        raise ValueError(f"linkage must be 'average', 'single', 'complete' or 'weighted', got {linkage!r}")
    if len(matrix.names) < 2:
        raise ValueError("clustering needs at least two metrics")
    undefined = [m for m, v in zip(matrix.names, np.diag(matrix.values)) if not np.isfinite(v)]
    if undefined:
        raise ValueError(f"metrics {undefined} have undefined correlations (constant scores); leave them out "
                         f"before clustering")
    distances = 1.0 - matrix.values
    np.fill_diagonal(distances, 0.0)
    distances = np.clip((distances + distances.T) / 2, 0.0, 2.0)
    method = cast('Literal["average", "single", "complete", "weighted"]', linkage)   # checked above
    tree = hierarchy.linkage(squareform(distances, checks=False), method=method, optimal_ordering=True)
    order = [matrix.names[i] for i in hierarchy.leaves_list(tree)]
    return MetricClustering(list(matrix.names), tree, order, distances, linkage)
