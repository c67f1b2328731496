"""Is metric X really closer to people than metric Y? Tests of the difference between two
metrics' correlations with the same human ratings (``compare_metrics``).

The two correlations share the human ratings and the items, so they are dependent and a
test for independent correlations would be wrong. Two tests:

- ``method="williams"``: Williams' (1959) t-test for dependent Pearson correlations with
  one variable in common, as WMT's metrics task uses it (Graham & Baldwin 2014). With
  r12 = corr(human, X), r13 = corr(human, Y), r23 = corr(X, Y) over n items::

      t = (r12 − r13) √((n − 1)(1 + r23)) / √(2 (n − 1)/(n − 3) |R| + (r12 + r13)²/4 · (1 − r23)³)
      |R| = 1 − r12² − r13² − r23² + 2 r12 r13 r23,    t ~ Student t with n − 3 df.

- ``method="bootstrap"``: paired bootstrap over the items (any coefficient: Spearman,
  Kendall, Pearson): the items are resampled, the same draws for every metric, the
  difference of the two coefficients is recomputed on each resample; shifted to mean 0
  (the null hypothesis), the one-sided p-value is ``(1 + #{δ_r − mean δ ≥ δ}) / (R + 1)``.

Both give one-sided p-values: ``p_values[i, j]`` is the p-value of "metric i correlates
better (higher) with people than metric j". Correlations are signed: a metric that
ranks systems backwards (a negative correlation) is worse than one that does not.

The coefficients, the items' alignment and the bootstrap resamples are those of
``fastamfm.correlate`` (the same functions).
"""
from __future__ import annotations

import json
import math

import numpy as np

from .correlation import (
    _aligned,
    _bootstrap_samples,
    _check_methods,
    _coefficient,
    _stats,
)
from .multiple_testing import adjust_p_values, check_correction
from .resampling import check_resamples, check_seed

METHODS = ("williams", "bootstrap")
ALTERNATIVES = ("greater", "two-sided")


def williams_test(r12: float, r13: float, r23: float, n: int, *, alternative: str = "greater") -> tuple:
    """Williams' t for dependent correlations r12 and r13 sharing variable 1, given r23,
    over n items: ``(t, p)``. ``alternative="greater"``: p of r12 > r13 (one-sided);
    ``"two-sided"``: of r12 ≠ r13. (t, p) are nan when the correlations are not a
    possible correlation matrix (|R| < 0) or the statistic is undefined."""
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {ALTERNATIVES}, got {alternative!r}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 4:
        raise ValueError(f"the Williams test needs n >= 4 items (n - 3 degrees of freedom), got {n!r}")
    for name, r in (("r12", r12), ("r13", r13), ("r23", r23)):
        if not -1 <= r <= 1:
            raise ValueError(f"{name} must be a correlation in [-1, 1], got {r!r}")
    determinant = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    denominator = 2 * (n - 1) / (n - 3) * determinant + (r12 + r13) ** 2 / 4 * (1 - r23) ** 3
    if determinant < -1e-12 or denominator <= 0:
        return math.nan, math.nan
    t = (r12 - r13) * math.sqrt((n - 1) * (1 + r23)) / math.sqrt(denominator)
    tail = _stats().t.sf
    p = tail(t, n - 3) if alternative == "greater" else 2 * tail(abs(t), n - 3)
    return float(t), float(p)


def _shifted_one_sided_p(differences: np.ndarray, observed: float) -> float:
    valid = differences[np.isfinite(differences)]
    if not len(valid):
        return math.nan
    return (1 + int(np.count_nonzero(valid - valid.mean() >= observed))) / (len(valid) + 1)


class MetricComparison:
    """The result of ``compare_metrics``: the metric x metric matrices of one-sided
    p-values (``p_values[i, j]``: metric i correlates better with people than metric j),
    adjusted p-values and significance; ``table.p_value("METEOR", "Bleu_2")``."""

    def __init__(self, names, correlations, p_values, p_adjusted, *, method: str, correlation: str, level: str,
                 n: int, resamples: int, seed: int, correction: str, alpha: float, points: list):
        self.names = list(names)
        self.correlations = np.asarray(correlations, dtype=np.float64)
        self.p_values = p_values
        self.p_adjusted = p_adjusted
        self.significant = p_adjusted < alpha
        self.method = method
        self.correlation = correlation
        self.level = level
        self.n = n
        self.resamples = resamples
        self.seed = seed
        self.correction = correction
        self.alpha = alpha
        self.points = points

    def _index(self, metric: str) -> int:
        try:
            return self.names.index(metric)
        except ValueError:
            raise KeyError(f"no metric {metric!r}; metrics {self.names}") from None

    def p_value(self, better: str, worse: str) -> float:
        """The (uncorrected) one-sided p-value of ``better`` correlating better than ``worse``."""
        return float(self.p_values[self._index(better), self._index(worse)])

    def better_than(self, metric: str) -> list:
        """The metrics whose correlation is significantly higher than ``metric``'s."""
        j = self._index(metric)
        return [name for i, name in enumerate(self.names) if self.significant[i, j]]

    def describe(self) -> str:
        test = "williams" if self.method == "williams" else f"bootstrap:{self.resamples}|seed:{self.seed}"
        return (f"{test}|{self.correlation}|{self.level}:{self.n}|correction:{self.correction}|"
                f"alpha:{self.alpha:g}")

    def to_dict(self) -> dict:
        def matrix(values):
            return [[None if not np.isfinite(v) else float(v) for v in row] for row in values]

        return {"metrics": self.names, "correlations": [float(c) for c in self.correlations],
                "method": self.method, "correlation": self.correlation, "level": self.level, "n": self.n,
                "resamples": self.resamples, "seed": self.seed, "correction": self.correction, "alpha": self.alpha,
                "settings": self.describe(), "p_values": matrix(self.p_values), "p_adjusted": matrix(self.p_adjusted),
                "significant": self.significant.tolist()}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def __str__(self) -> str:
        test = ("Williams test (Pearson)" if self.method == "williams"
                else f"paired bootstrap ({self.resamples} resamples, seed {self.seed}, {self.correlation})")
        adjusted = "" if self.correction == "none" else f" ({self.correction}-adjusted)"
        lines = [f"{test}, {self.level} level, n={self.n}: one-sided p{adjusted} that the row metric correlates "
                 f"better with people than the column metric; * p < {self.alpha:g}"]
        label = max(len(n) for n in self.names) + 6
        lines.append(" " * label + f"{'corr':>9}" + "".join(f"{f'({i + 1})':>10}" for i in range(len(self.names))))
        for i, name in enumerate(self.names):
            cells = []
            for j in range(len(self.names)):
                if i == j:
                    cells.append(f"{'—':>10}")
                else:
                    mark = "*" if self.significant[i, j] else " "
                    cells.append(f"{self.p_adjusted[i, j]:>9.4f}{mark}")
            lines.append(f"{f'({i + 1}) ' + name:<{label}}{self.correlations[i]:>9.4f}" + "".join(cells))
        return "\n".join(lines)

    __repr__ = __str__


def _adjust_matrix(p_values: np.ndarray, correction: str) -> np.ndarray:
    """Each pair of metrics is one test, in the direction of the observed difference (the
    smaller of its two one-sided p-values); the opposite direction is not tested (1)."""
    if correction == "none":
        return p_values.copy()
    m = len(p_values)
    pairs = [(i, j) if p_values[i, j] <= p_values[j, i] else (j, i) for i in range(m) for j in range(i + 1, m)]
    adjusted = adjust_p_values([p_values[i, j] for i, j in pairs], correction)
    out = np.ones_like(p_values)
    np.fill_diagonal(out, math.nan)
    for (i, j), p in zip(pairs, adjusted):
        out[i, j] = p
    return out


def compare_metrics(scores, human, *, method: str = "williams", level: str = "utterance", systems=None,
                    correlation: str | None = None, resamples: int = 1000, seed: int = 0, correction: str = "holm",
                    alpha: float = 0.05) -> MetricComparison:
    """Which metrics correlate significantly better with ``human`` than which others.

    ``scores``/``human``/``level``/``systems`` as for ``fastamfm.correlate``: at
    ``level="utterance"`` one point per response, at ``"system"`` one per system (each
    system's score formed as ``correlate``'s default ``system_score="corpus"`` forms it: the
    corpus score where the metric has one, else the mean of the sentence scores; ``human``
    as ``{system: rating}`` or aligned with ``systems`` labels).
    ``method="williams"`` tests Pearson correlations (Williams' t); ``"bootstrap"``
    resamples the items (``resamples`` draws from ``numpy.random.default_rng(seed)``)
    for ``correlation`` = "spearman" (its default), "kendall" or "pearson".
    ``correction`` ("holm" default, "bonferroni", "none") runs over the metric pairs.

    Parameters
    ----------
    scores : mapping, DataFrame or mapping of str to MetricResult
        At least two metrics' scores (the forms ``correlate`` takes).
    human : array or mapping of str to float
        The human judgements.
    method : {"williams", "bootstrap"}, default "williams"
        Williams' test of Pearson correlations, or a paired bootstrap.
    level : {"utterance", "system"}, default "utterance"
        One point per response, or per system.
    systems : sequence, optional
        Per response its system (system level).
    correlation : {"pearson", "spearman", "kendall"}, optional
        The coefficient compared; None: "pearson" (Williams) or "spearman" (bootstrap).
    resamples : int, default 1000
        Bootstrap resamples.
    seed : int, default 0
        The bootstrap's seed.
    correction : {"holm", "bonferroni", "none"}, default "holm"
        The multiple-comparison correction over the metric pairs.
    alpha : float, default 0.05
        Adjusted p-values below it are significant.

    Returns
    -------
    MetricComparison
        ``correlations``, the one-sided ``p_values``/``p_adjusted`` matrices, ``significant``;
        ``p_value(better, worse)``, ``better_than(metric)``; ``str()`` prints the table.

    Raises
    ------
    ValueError
        An unknown method, correlation or correction, Williams with another coefficient,
        fewer than two metrics or too few points, constant scores or ratings, misaligned inputs.
    ImportError
        scipy not installed (the ``analysis`` extra).

    Examples
    --------
    >>> import fastamfm
    >>> human = [1, 2, 3, 4, 5, 2, 4, 1, 5, 3]
    >>> scores = {"good": [1.1, 2.2, 2.9, 4.1, 4.8, 2.1, 3.7, 1.2, 5.2, 3.1],
    ...           "noisy": [2, 1, 4, 3, 5, 4, 2, 1, 3, 5]}
    >>> comparison = fastamfm.compare_metrics(scores, human)
    >>> comparison.correlations.round(4).tolist(), round(comparison.p_value("good", "noisy"), 6)
    ([0.9938, 0.5], 0.000367)
    >>> comparison.better_than("noisy")
    ['good']
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if correlation is None:
        correlation = "pearson" if method == "williams" else "spearman"
    (correlation,) = _check_methods(correlation)
    if method == "williams" and correlation != "pearson":
        raise ValueError(f"the Williams test compares Pearson correlations; for {correlation} use "
                         f"method='bootstrap'")
    resamples = check_resamples(resamples)
    seed = check_seed(seed)
    correction = check_correction(correction)
    if not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    points, xs, y = _aligned(scores, human, level, systems)
    n = len(y)
    if len(xs) < 2:
        raise ValueError(f"compare_metrics needs at least two metrics, got {list(xs)}")
    if n < (4 if method == "williams" else 3):
        raise ValueError(f"compare_metrics ({method}) needs at least {4 if method == 'williams' else 3} points, got "
                         f"{n} at {level} level")
    unit = "systems" if level == "system" else "items"
    if np.ptp(y) == 0:
        raise ValueError(f"the human ratings are constant over the {n} {unit}: no correlation is defined")
    for name, x in xs.items():
        if np.ptp(x) == 0:
            raise ValueError(f"scores[{name!r}] is constant over the {n} {unit}: its correlation with the human "
                             f"ratings is undefined; leave it out")

    names = list(xs)
    m = len(names)
    correlations = np.array([_coefficient(correlation, xs[a], y)[0] for a in names])
    p_values = np.full((m, m), math.nan)
    if method == "williams":
        for i in range(m):
            for j in range(m):
                if i != j:
                    r23 = _coefficient("pearson", xs[names[i]], xs[names[j]])[0]
                    p_values[i, j] = williams_test(correlations[i], correlations[j], r23, n)[1]
    else:
        draws = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
        samples = [_bootstrap_samples(correlation, xs[a], y, draws) for a in names]
        for i in range(m):
            for j in range(m):
                if i != j:
                    p_values[i, j] = _shifted_one_sided_p(samples[i] - samples[j], correlations[i] - correlations[j])
    return MetricComparison(names, correlations, p_values, _adjust_matrix(p_values, correction), method=method,
                            correlation=correlation, level=level, n=n, resamples=resamples, seed=seed,
                            correction=correction, alpha=alpha, points=points)


__all__ = ["METHODS", "MetricComparison", "compare_metrics", "williams_test"]
