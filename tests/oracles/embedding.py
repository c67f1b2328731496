"""A deliberately plain numpy port of nlg-eval's embedding metrics, the oracle of
tests/test_embedding.py and the baseline of benchmarks/embedding/compare.py.

It follows the formulas of nlg-eval's ``eval_emb_metrics`` (nlgeval/word2vec/evaluate.py)
one sentence at a time, with these documented choices:
- tokens are the whitespace split of the text (lowercased when ``lowercase``);
- arithmetic in float64 (nlg-eval mixes in float32; the difference is ~1e-7);
- a text without tokens scores 0 (nlg-eval's assertion fails on it), which is
  what fastamfm's ``empty="zero"`` does; a cosine with a zero vector is 0, as
  sklearn's ``cosine_similarity`` gives.
"""
from __future__ import annotations

import numpy as np


class Lookup:
    """Word -> vector as nlg-eval's ``Embedding.vec``: exact lookup, else the OOV vector."""

    def __init__(self, words, matrix, *, oov: str = "mean", lowercase: bool = False):
        self.matrix = np.asarray(matrix, dtype=np.float32)
        self.row = {}
        for i, w in enumerate(words):
            self.row.setdefault(w, i)  # a repeated word keeps its first vector
        kept = sorted(self.row.values())
        self.mean = self.matrix[kept].astype(np.float64).mean(axis=0)
        self.oov = oov
        self.lowercase = lowercase

    def sentence(self, text: str) -> np.ndarray:
        """The token vectors of ``text``, [tokens, dim] float64 (tokens without a vector
        dropped under oov="skip")."""
        rows = []
        for token in (text.lower() if self.lowercase else text).split():
            if token in self.row:
                rows.append(self.matrix[self.row[token]].astype(np.float64))
            elif self.oov == "mean":
                rows.append(self.mean)
            elif self.oov == "zero":
                rows.append(np.zeros(self.matrix.shape[1]))
        return np.array(rows).reshape(len(rows), self.matrix.shape[1])


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 or nb == 0:
        return 0.0
    return float(a @ b / (na * nb))


def unit_rows(m: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return np.divide(m, norms, out=np.zeros_like(m), where=norms > 0)


def extrema_vector(embs: np.ndarray) -> np.ndarray:
    """nlg-eval's per-dimension rule: the max if min > 0; if min < 0 the max when
    max > -min, else the min; and 0 when the min is exactly 0."""
    hi, lo = embs.max(axis=0), embs.min(axis=0)
    return np.where(lo > 0, hi, np.where(lo < 0, np.where(hi > -lo, hi, lo), 0.0))


def pair_scores(h: np.ndarray, r: np.ndarray) -> tuple[float, float, float]:
    """(embedding average, vector extrema, greedy matching) of one hypothesis/reference pair."""
    if len(h) == 0 or len(r) == 0:
        return 0.0, 0.0, 0.0
    average = cosine(h.sum(axis=0), r.sum(axis=0))
    extrema = cosine(extrema_vector(h), extrema_vector(r))
    sim = unit_rows(r) @ unit_rows(h).T  # [ref tokens, hyp tokens]
    greedy = (sim.max(axis=0).mean() + sim.max(axis=1).mean()) / 2
    return average, extrema, float(greedy)


def sentence_scores(hyps, refs, lookup: Lookup) -> dict[str, np.ndarray]:
    """Per hypothesis the max over its references of each metric."""
    out = {"average": [], "extrema": [], "greedy": []}
    for hyp, group in zip(hyps, refs):
        h = lookup.sentence(hyp)
        per_ref = np.array([pair_scores(h, lookup.sentence(ref)) for ref in group])
        best = per_ref.max(axis=0)
        for name, value in zip(("average", "extrema", "greedy"), best):
            out[name].append(value)
    return {name: np.array(values) for name, values in out.items()}
