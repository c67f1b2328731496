"""The AM-FM pipeline as people run it today, as the peer of fastamfm's benchmarks.

The AM-FM toolkit's recipe with today's standard tools: scikit-learn's
CountVectorizer for the bag of words, a numpy projection onto the same U_k and
cosines for AM; the `kenlm` module, one ``Model.score`` call per sentence, for FM
(the toolkit used SRILM's ``ngram -ppl``; kenlm is faster and pip-installable). It
reads the very models fastamfm trained (U_k and vocabulary; the LM as ARPA), so the
numbers must agree: the benchmarks assert they do.
"""
from __future__ import annotations

import numpy as np


class ToolkitPeer:
    """AM (max over references), FM (per-word normalised, mean over references), λ-mix."""

    def __init__(self, lsi, arpa_path, *, dims: int | None = None, lam: float = 0.5):
        import kenlm
        from sklearn.feature_extraction.text import CountVectorizer

        dims = dims or lsi.dims
        self.vectorizer = CountVectorizer(vocabulary=lsi.vocabulary, tokenizer=str.split, lowercase=False,
                                          token_pattern=None)
        self.u = np.asarray(lsi.components[:, :dims], dtype=np.float64)
        self.lm = kenlm.Model(str(arpa_path))
        self.lam = lam

    def unit_vectors(self, sentences) -> np.ndarray:
        v = self.vectorizer.transform(sentences) @ self.u
        norms = np.linalg.norm(v, axis=1, keepdims=True)
        return np.divide(v, norms, out=np.zeros_like(v), where=norms > 0)

    def probabilities(self, sentences) -> np.ndarray:
        """exp of the mean natural log-probability per word (the </s> prediction included in the sum)."""
        return np.array([10.0 ** (self.lm.score(s, bos=True, eos=True) / max(len(s.split()), 1))
                         for s in sentences])

    def encode_references(self, refs) -> tuple:
        flat = [r for group in refs for r in group]
        offsets = np.cumsum([0] + [len(g) for g in refs])
        return self.unit_vectors(flat), self.probabilities(flat), offsets

    def score(self, hyps, refs, encoded=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        ref_vectors, ref_probs, offsets = encoded if encoded is not None else self.encode_references(refs)
        hyp_vectors = self.unit_vectors(hyps)
        hyp_probs = self.probabilities(hyps)
        counts = np.diff(offsets)
        cosines = np.maximum((np.repeat(hyp_vectors, counts, axis=0) * ref_vectors).sum(axis=1), 0.0)
        am = np.maximum.reduceat(cosines, offsets[:-1])
        h = np.repeat(hyp_probs, counts)
        ratios = np.minimum(h, ref_probs) / np.maximum(h, ref_probs)
        fm = np.add.reduceat(ratios, offsets[:-1]) / counts
        return am, fm, self.lam * am + (1 - self.lam) * fm
