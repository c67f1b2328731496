"""Paired resampling of corpus scores, every resample at once.

A metric's ``SentenceStatistics`` gives one row per response; the corpus score of any
sample of responses is a function of the sum of the sample's rows. So every resample of
a system is one row of a weight matrix (how many times each response is drawn), all the
resamples' sums are one matrix product (numpy BLAS, or scipy.sparse for keyed rows),
and the scores follow from the sums -- corpus BLEU from summed n-gram counts, METEOR
from summed statistics, never from averaged sentence scores.

The draws are sacrebleu's (``numpy.random.default_rng(seed)``; ``choice(n, (R, n))`` for
the bootstrap, ``integers(2, (R, n), bool)`` for approximate randomization), so the
same seed resamples exactly as ``sacrebleu --paired-bs`` / ``--paired-ar`` do.

p-values (both with the +1 of a valid Monte-Carlo test, so never 0):

- paired bootstrap (Koehn 2004; sacrebleu's and Moses' rule): the resampled absolute
  differences, shifted to mean 0 (the null hypothesis), are compared with the observed
  absolute difference: ``p = (1 + #{|d_r| − mean|d| ≥ |d|}) / (R + 1)``;
- approximate randomization (Noreen 1989; Riezler & Maxwell 2005): each response's two
  outputs are swapped between the systems with probability 1/2:
  ``p = (1 + #{|d_r| ≥ |d|}) / (R + 1)``.

A resampled statistic equal to the observed one counts as at least as extreme (sacrebleu
counts only ``>``, which calls a system compared with itself different at p = 1/(R+1));
equal means equal within 1e-9 of the statistics' scale, so a tie is not lost to the
rounding of sums taken in another order.
"""
from __future__ import annotations

import numpy as np

from ..progress import task
from ..registry import SentenceStatistics

# Resamples are summed in blocks of at most this many weights or sums (memory bound).
BLOCK_VALUES = 1 << 22
# Relative width of "equal" when a resampled statistic is compared with the observed one.
TIE_TOLERANCE = 1e-9


def check_resamples(resamples) -> int:
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)) or resamples < 1:
        raise ValueError(f"resamples must be a positive integer, got {resamples!r}")
    return int(resamples)


def check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def check_confidence(confidence) -> float:
    if not isinstance(confidence, (int, float)) or not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    return float(confidence)


def bootstrap_draws(rng: np.random.Generator, n: int, resamples: int) -> np.ndarray:
    """[resamples, n] response indices drawn with replacement (sacrebleu's draws)."""
    return rng.choice(n, size=(resamples, n), replace=True)


def randomization_swaps(rng: np.random.Generator, n: int, resamples: int) -> np.ndarray:
    """[resamples, n] booleans: True where a trial takes the response from the other system."""
    return rng.integers(2, size=(resamples, n), dtype=bool)


def _blocks(resamples: int, width: int):
    step = max(1, BLOCK_VALUES // max(1, width))
    for start in range(0, resamples, step):
        yield start, min(resamples, start + step)


def _weighted_sums(weights: np.ndarray, values) -> np.ndarray:
    """weights [b, n] @ values [n, k] (values dense or scipy.sparse) -> dense [b, k]."""
    if isinstance(values, np.ndarray):
        return weights @ values
    return np.asarray((values.T @ weights.T).T)


def _column_sums(values) -> np.ndarray:
    return np.asarray(values.sum(axis=0)).reshape(-1)


def _concatenate(parts: list) -> dict:
    return {c: np.concatenate([p[c] for p in parts]) for c in parts[0]}


def bootstrap_scores(statistics: list, draws: np.ndarray) -> list:
    """Per entry of ``statistics`` (``SentenceStatistics`` of the same n responses), the
    {column: ndarray [R]} corpus scores of the R samples ``draws`` picks. The weights of
    a block of resamples are built once for all of them; dense rows are summed by one
    matrix product over all of them side by side."""
    resamples, n = draws.shape
    for stats in statistics:
        if len(stats) != n:
            raise ValueError(f"{len(stats)} responses' statistics but draws over {n}")
    dense = [k for k, stats in enumerate(statistics) if isinstance(stats.values, np.ndarray)]
    stacked = np.hstack([statistics[k].values for k in dense]) if dense else None
    bounds = np.cumsum([0] + [statistics[k].values.shape[1] for k in dense])
    parts: list[list[dict]] = [[] for _ in statistics]
    with task("bootstrap resamples", total=resamples, unit="resample") as resampled:
        for start, stop in _blocks(resamples, n):
            rows = stop - start
            flat = (draws[start:stop] + n * np.arange(rows)[:, None]).ravel()
            weights = np.bincount(flat, minlength=rows * n).reshape(rows, n).astype(np.float64)
            if stacked is not None:
                sums = weights @ stacked
                for k, low, high in zip(dense, bounds[:-1], bounds[1:]):
                    parts[k].append(statistics[k].scores(sums[:, low:high]))
            for k, stats in enumerate(statistics):
                if k not in dense:
                    parts[k].append(stats.scores(_weighted_sums(weights, stats.values)))
            resampled.advance(rows)
    return [_concatenate(p) for p in parts]


def randomization_scores(first: SentenceStatistics, second: SentenceStatistics, swaps: np.ndarray) -> tuple:
    """({column: [R]}, {column: [R]}): the scores of the two pseudo-systems of each trial;
    the first takes ``second``'s response where ``swaps`` is True and its own elsewhere,
    the second the rest (sacrebleu's ``shuf_a`` and ``shuf_b``)."""
    first, second = first.aligned(second)
    if len(first) != len(second) or len(first) != swaps.shape[1]:
        raise ValueError(f"cannot swap the responses of systems of {len(first)} and {len(second)} responses "
                         f"in trials over {swaps.shape[1]}")
    own = _column_sums(first.values)
    total = own + _column_sums(second.values)
    change = second.values - first.values
    parts_a, parts_b = [], []
    with task("randomization trials", total=len(swaps), unit="trial") as tried:
        for start, stop in _blocks(len(swaps), max(len(first), first.values.shape[1])):
            sums = own + _weighted_sums(swaps[start:stop].astype(np.float64), change)
            parts_a.append(first.scores(sums))
            parts_b.append(first.scores(total - sums))
            tried.advance(stop - start)
    return _concatenate(parts_a), _concatenate(parts_b)


def _monte_carlo_p(statistics: np.ndarray, observed: float) -> float:
    """(1 + #{statistic >= observed}) / (R + 1), ties within rounding included; nan when
    a score is not a number (a metric that gives nan for some sample tests nothing)."""
    if not (np.isfinite(observed) and np.isfinite(statistics).all()):
        return float("nan")
    scale = max(abs(observed), float(np.max(np.abs(statistics), initial=0.0)))
    at_least = int(np.count_nonzero(statistics >= observed - TIE_TOLERANCE * scale))
    return (1 + at_least) / (len(statistics) + 1)


def bootstrap_p_value(resampled_differences: np.ndarray, observed_difference: float) -> float:
    """Two-sided paired bootstrap p-value (sacrebleu's rule; see the module docstring)."""
    spread = np.abs(resampled_differences)
    return _monte_carlo_p(spread - spread.mean(), abs(observed_difference))


def randomization_p_value(trial_differences: np.ndarray, observed_difference: float) -> float:
    """Two-sided approximate randomization p-value (see the module docstring)."""
    return _monte_carlo_p(np.abs(trial_differences), abs(observed_difference))


def percentile_interval(samples: np.ndarray, confidence: float) -> tuple[float, float]:
    """The central ``confidence`` interval of ``samples`` (numpy's linear quantiles)."""
    tail = (1 - confidence) / 2
    low, high = np.quantile(samples, [tail, 1 - tail])
    return float(low), float(high)
