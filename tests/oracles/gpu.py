"""Readable numpy versions of what the CUDA kernels compute, one sentence at a time.

Sentences are lists of row numbers (term ids for AM, word-vector rows for the
embedding metrics); ``refs[i]`` is the list of reference sentences of hypothesis i.
Written from the metric definitions (metric-conventions.md, nlg-eval's formulas),
in float64, with no shared code with fastamfm.
"""
from __future__ import annotations

import numpy as np


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """cos(a, b), 0 when either is the zero vector (scikit-learn's convention)."""
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 or nb == 0:
        return 0.0
    return float(a @ b / (na * nb))


def am_vector(terms: list[int], components: np.ndarray) -> np.ndarray:
    """Sum of U_k rows, one per token occurrence (count weighting), L2-normalised."""
    v = np.zeros(components.shape[1])
    for t in terms:
        v += components[t]
    n = np.linalg.norm(v)
    return v / n if n > 0 else v


def combine(values: list[float], how: str) -> float:
    if not values:
        return 0.0
    return max(values) if how == "max" else sum(values) / len(values)


def am_scores(hyps, refs, components, how="max") -> np.ndarray:
    out = []
    for hyp, group in zip(hyps, refs):
        h = am_vector(hyp, components)
        cosines = [min(max(cosine(h, am_vector(r, components)), 0.0), 1.0) for r in group]
        out.append(combine(cosines, how))
    return np.array(out)


def cosine_over_references(queries, refs, ref_offsets, how="max", clip=True) -> np.ndarray:
    out = []
    for i, q in enumerate(queries):
        cosines = [cosine(q, r) for r in refs[ref_offsets[i]:ref_offsets[i + 1]]]
        if clip:
            cosines = [min(max(c, 0.0), 1.0) for c in cosines]
        out.append(combine(cosines, how))
    return np.array(out)


def extrema_vector(rows: np.ndarray) -> np.ndarray:
    """nlg-eval's choice per dimension between the max (hi) and the min (lo)."""
    hi, lo = rows.max(axis=0), rows.min(axis=0)
    chosen = []
    for h, l in zip(hi, lo):
        if l > 0:
            chosen.append(h)
        elif l < 0:
            chosen.append(h if h > -l else l)
        else:
            chosen.append(l)
    return np.array(chosen)


def _pooled_scores(hyps, refs, vectors, pool) -> np.ndarray:
    out = []
    for hyp, group in zip(hyps, refs):
        if not group:
            out.append(0.0)
            continue
        scores = []
        for ref in group:
            if not hyp or not ref:
                scores.append(0.0)
            else:
                scores.append(cosine(pool(vectors[hyp]), pool(vectors[ref])))
        out.append(max(scores))
    return np.array(out)


def embedding_average(hyps, refs, vectors) -> np.ndarray:
    return _pooled_scores(hyps, refs, vectors, lambda rows: rows.mean(axis=0))


def vector_extrema(hyps, refs, vectors) -> np.ndarray:
    return _pooled_scores(hyps, refs, vectors, extrema_vector)


def greedy_pair(hyp: list[int], ref: list[int], vectors: np.ndarray) -> float:
    if not hyp or not ref:
        return 0.0
    sim = np.array([[cosine(vectors[r], vectors[h]) for h in hyp] for r in ref])  # refs x hyps
    return (sim.max(axis=0).mean() + sim.max(axis=1).mean()) / 2


def greedy_matching(hyps, refs, vectors) -> np.ndarray:
    return np.array([max((greedy_pair(h, r, vectors) for r in group), default=0.0)
                     for h, group in zip(hyps, refs)])
