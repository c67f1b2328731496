"""Plain loops for the significance tests: one resample at a time, the corpus score of
each sample recomputed from its rows, the p-value rules written out.

``corpus`` below is any function list-of-rows -> float (the mean of sentence scores,
BLEU from summed counts...). Draws: ``numpy.random.default_rng(seed)`` as sacrebleu
uses it: for randomization first the swaps ``integers(2, (R, n), bool)``, then the
bootstrap indices ``choice(n, (R, n))`` (used for the intervals).
"""
from __future__ import annotations

import math

import numpy as np
import scipy.stats

TIE = 1e-9   # a resampled statistic within TIE x scale of the observed one counts as a tie


def _count_at_least(stats, observed):
    scale = max([abs(observed)] + [abs(s) for s in stats])
    return sum(1 for s in stats if s >= observed - TIE * scale)


def paired_bootstrap(corpus, base_rows, system_rows, resamples, seed):
    """(p-value, resampled differences system - baseline) of the paired bootstrap."""
    n = len(base_rows)
    draws = np.random.default_rng(seed).choice(n, size=(resamples, n), replace=True)
    differences = []
    for r in range(resamples):
        picked = draws[r]
        differences.append(corpus([system_rows[i] for i in picked]) - corpus([base_rows[i] for i in picked]))
    observed = corpus(system_rows) - corpus(base_rows)
    spread = [abs(d) for d in differences]
    mean = sum(spread) / len(spread)
    p = (1 + _count_at_least([s - mean for s in spread], abs(observed))) / (resamples + 1)
    return p, differences


def paired_randomization(corpus, base_rows, system_rows, resamples, seed):
    """p-value of approximate randomization: each response's pair swapped with probability 1/2."""
    n = len(base_rows)
    swaps = np.random.default_rng(seed).integers(2, size=(resamples, n), dtype=bool)
    trial = []
    for r in range(resamples):
        first, second = [], []
        for i in range(n):
            if swaps[r, i]:
                first.append(system_rows[i])
                second.append(base_rows[i])
            else:
                first.append(base_rows[i])
                second.append(system_rows[i])
        trial.append(abs(corpus(first) - corpus(second)))
    observed = abs(corpus(system_rows) - corpus(base_rows))
    return (1 + _count_at_least(trial, observed)) / (resamples + 1)


def holm(p_values):
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        out[i] = running
    return out


def bonferroni(p_values):
    return [min(1.0, len(p_values) * p) for p in p_values]


def williams_t(r12, r13, r23, n):
    """Williams' t (Steiger 1980, eq. 7 with Williams' correction), written out."""
    det = 1 - r12 * r12 - r13 * r13 - r23 * r23 + 2 * r12 * r13 * r23
    mean = (r12 + r13) / 2
    return (r12 - r13) * math.sqrt((n - 1) * (1 + r23) / (2 * (n - 1) / (n - 3) * det + mean * mean * (1 - r23) ** 3))


def bootstrap_correlation_p(x1, x2, y, method, resamples, seed):
    """One-sided p that corr(x1, y) > corr(x2, y): items resampled one draw at a time."""
    fn = {"pearson": scipy.stats.pearsonr, "spearman": scipy.stats.spearmanr, "kendall": scipy.stats.kendalltau}[method]
    n = len(y)
    draws = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    deltas = []
    for r in range(resamples):
        idx = draws[r]
        a, b, h = x1[idx], x2[idx], y[idx]
        if np.ptp(a) == 0 or np.ptp(b) == 0 or np.ptp(h) == 0:
            continue
        deltas.append(fn(a, h)[0] - fn(b, h)[0])
    observed = fn(x1, y)[0] - fn(x2, y)[0]
    mean = sum(deltas) / len(deltas)
    return (1 + sum(1 for d in deltas if d - mean >= observed)) / (len(deltas) + 1)
