"""Shared inputs and CPU baselines of bench.py and compare.py.

The CPU baselines are the vectorised numpy/scipy pipelines a user would write
(sparse product, normalise, row-wise dot, reduceat), so the GPU is raced against a
fast CPU path, not against a Python loop.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse


class RaggedCorpus:
    """Hypotheses with a fixed number of references each, as token-id lists, with
    Zipf-distributed words (as real text has)."""

    def __init__(self, n: int, refs_per_hyp: int, words: int, *, mean_len: int = 12, seed: int = 0):
        rng = np.random.default_rng(seed)
        self.words = words

        def sentences(count):
            lengths = rng.poisson(mean_len, count).clip(1, None)
            ids = (rng.zipf(1.3, int(lengths.sum())) - 1) % words
            offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
            return ids.astype(np.int32), offsets

        self.hyp_ids, self.hyp_offsets = sentences(n)
        self.ref_ids, self.ref_token_offsets = sentences(n * refs_per_hyp)
        self.ref_offsets = np.arange(0, n * refs_per_hyp + 1, refs_per_hyp, dtype=np.int64)

    def csr(self, ids, offsets) -> scipy.sparse.csr_matrix:
        """Count rows (duplicates summed) over the vocabulary."""
        data = np.ones(len(ids), dtype=np.float32)
        # Copies: sum_duplicates sorts the index arrays in place, which must not reorder our tokens.
        m = scipy.sparse.csr_matrix((data, ids.copy(), offsets.copy()), shape=(len(offsets) - 1, self.words))
        m.sum_duplicates()
        return m

    @property
    def hyp_rows(self):
        return self.csr(self.hyp_ids, self.hyp_offsets)

    @property
    def ref_rows(self):
        return self.csr(self.ref_ids, self.ref_token_offsets)


def unit_rows(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return np.divide(x, norms, out=np.zeros_like(x), where=norms > 0)


def cpu_cosine_over_references(queries, refs, ref_offsets, *, clip: bool) -> np.ndarray:
    """Equal-size or ragged reference groups, every group non-empty."""
    owner = np.repeat(np.arange(len(queries)), np.diff(ref_offsets))
    cos = np.einsum("ij,ij->i", unit_rows(queries)[owner], unit_rows(refs))
    if clip:
        np.clip(cos, 0.0, 1.0, out=cos)
    return np.maximum.reduceat(cos, ref_offsets[:-1])


def cpu_am_scores(hyp_rows, ref_rows, ref_offsets, components) -> np.ndarray:
    return cpu_cosine_over_references(np.asarray(hyp_rows @ components), np.asarray(ref_rows @ components),
                                      ref_offsets, clip=True)


def cpu_embedding_average(corpus: RaggedCorpus, vectors) -> np.ndarray:
    # Sums of token vectors as (token-count rows) x (vector table): no gathered copy.
    hyps = np.asarray(corpus.hyp_rows @ vectors)
    refs = np.asarray(corpus.ref_rows @ vectors)
    return cpu_cosine_over_references(hyps, refs, corpus.ref_offsets, clip=False)


def _nlg_eval_extrema(hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
    return np.where(lo > 0, hi, np.where(lo < 0, np.where(hi > -lo, hi, lo), lo))


def cpu_vector_extrema(corpus: RaggedCorpus, vectors) -> np.ndarray:
    def pooled(ids, offsets):
        rows = vectors[ids]
        return _nlg_eval_extrema(np.maximum.reduceat(rows, offsets[:-1]), np.minimum.reduceat(rows, offsets[:-1]))

    return cpu_cosine_over_references(pooled(corpus.hyp_ids, corpus.hyp_offsets),
                                      pooled(corpus.ref_ids, corpus.ref_token_offsets), corpus.ref_offsets,
                                      clip=False)


def cpu_greedy_matching(corpus: RaggedCorpus, vectors) -> np.ndarray:
    unit = unit_rows(vectors)
    scores = np.empty(len(corpus.hyp_offsets) - 1)
    for i in range(len(scores)):
        hyp = unit[corpus.hyp_ids[corpus.hyp_offsets[i]:corpus.hyp_offsets[i + 1]]]
        best = -np.inf
        for j in range(corpus.ref_offsets[i], corpus.ref_offsets[i + 1]):
            ref = unit[corpus.ref_ids[corpus.ref_token_offsets[j]:corpus.ref_token_offsets[j + 1]]]
            sim = ref @ hyp.T
            best = max(best, (sim.max(axis=0).mean() + sim.max(axis=1).mean()) / 2)
        scores[i] = best
    return scores


def clustered_vectors(n: int, dims: int, *, centers: int = 1000, seed: int = 0) -> np.ndarray:
    """Embeddings gathered around topics (what a pool of responses looks like)."""
    rng = np.random.default_rng(seed)
    middles = rng.standard_normal((centers, dims)).astype(np.float32)
    out = middles[rng.integers(0, centers, n)]
    out += 0.5 * rng.standard_normal((n, dims)).astype(np.float32)
    return out


def brute_force_top1(pool: np.ndarray, queries: np.ndarray, chunk: int = 100_000) -> tuple[np.ndarray, np.ndarray]:
    """Exact best cosine and its row, in pool chunks to bound memory (pool rows unit)."""
    q = unit_rows(queries)
    best = np.full(len(q), -np.inf, dtype=np.float32)
    arg = np.zeros(len(q), dtype=np.int64)
    for start in range(0, len(pool), chunk):
        sims = q @ pool[start:start + chunk].T
        local = sims.argmax(axis=1)
        values = sims[np.arange(len(q)), local]
        better = values > best
        best[better] = values[better]
        arg[better] = local[better] + start
    return best, arg
