"""AM-FM workloads and the toolkit-style peer, shared by bench.py and compare.py.

The peer is the AM-FM toolkit's recipe with today's standard tools: scikit-learn's
CountVectorizer for the bag of words, a numpy projection onto the same U_k and
cosines for AM; the ``kenlm`` module, one ``Model.score`` call per sentence, for FM
(the toolkit used SRILM's ``ngram -ppl``; kenlm is faster and pip-installable). It
reads the very models fastamfm trained (U_k and vocabulary; the LM as ARPA), so the
numbers must agree: ``check`` asserts they do.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from fastamfm import AMFM

from benchmarks.shared_data import (
    TWCS,
    dstc6_references,
    dstc6_style_agent_turns,
    dstc6_systems,
)

AM_TOLERANCE = 1e-5  # float32 U_k, float64 sums on both sides
FM_TOLERANCE = 1e-4  # kenlm stores float32 log-probabilities


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
        """(AM, FM, AM-FM) per response."""
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


def setup(workdir: Path):
    """Both scorers over the same models, trained by fastamfm on the twcs_airlines agent
    turns (100 LSI dimensions, raw counts; trigram Kneser-Ney LM, written as ARPA for
    kenlm; whitespace tokens, as the peer splits; FM with unknown words scored,
    ``fm_oov="score"``, as kenlm's sentence total includes them), and the DSTC-6 data:
    (scorer, peer, systems, refs)."""
    scorer = AMFM.train(dstc6_style_agent_turns(TWCS), dims=100, order=3, smoothing="kneser-ney",
                        tokenize="whitespace", lam=0.5, fm_oov="score")
    arpa = Path(workdir) / "lm.arpa"
    scorer.lm.save_arpa(arpa)
    return scorer, ToolkitPeer(scorer.lsi, arpa, lam=0.5), dstc6_systems(), dstc6_references()


def check(ours, peer_out, what: str = "scores") -> tuple[float, float]:
    """fastamfm's MetricResult (am, fm) against the peer's (AM, FM, AM-FM) arrays;
    returns the largest |AM| and |FM| differences (asserted within tolerance)."""
    am_err = float(np.max(np.abs(ours.am - peer_out[0])))
    fm_err = float(np.max(np.abs(ours.fm - peer_out[1])))
    assert am_err <= AM_TOLERANCE, f"{what}: AM differs by {am_err}"
    assert fm_err <= FM_TOLERANCE, f"{what}: FM differs by {fm_err}"
    return am_err, fm_err


def reward_batches(systems: dict, refs, count: int, size: int = 64, n_refs: int = 4, seed: int = 0) -> list:
    """``count`` batches of ``size`` responses (drawn from every system) x ``n_refs`` references."""
    rng = np.random.default_rng(seed)
    pool = [h for hyps in systems.values() for h in hyps]
    return [([pool[j] for j in rng.integers(0, len(pool), size)],
             [refs[j][:n_refs] for j in rng.integers(0, len(refs), size)]) for _ in range(count)]
