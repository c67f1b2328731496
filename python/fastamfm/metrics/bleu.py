"""BLEU-1..n as pycocoevalcap 1.2 / nlg-eval compute it, and smoothed sentence BLEU.

Corpus BLEU is computed from summed per-segment statistics (``BleuStatistics``), so
scores of chunks added together give exactly the whole-corpus BLEU.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from .. import _core
from ..references import References
from ..result import MetricResult, make_signature
from ._inputs import prepare, raw_texts

REF_LENGTHS = ("closest", "shortest", "average")
SMOOTHING = ("none", "floor", "add-k", "exp")

# Per segment the largest count of each reference n-gram, kept while the References
# object lives. Built when a References is scored a second time: a one-off scoring
# clips against each reference directly, which is cheaper than building the table.
_REFERENCE_COUNTS: "weakref.WeakKeyDictionary[References, dict]" = weakref.WeakKeyDictionary()


def _clipping_source(refs: References, max_order: int, workers: int):
    """The per-segment maxima table when refs are being reused, else the References themselves."""
    by_order = _REFERENCE_COUNTS.setdefault(refs, {})
    if max_order not in by_order:
        by_order[max_order] = None  # first use: remember it, build nothing
        return refs.encoded
    if by_order[max_order] is None:
        by_order[max_order] = _core.BleuReferenceCounts(refs.encoded, max_order, workers)
    return by_order[max_order]


@dataclass(frozen=True)
class BleuStatistics:
    """Summable sufficient statistics of corpus BLEU.

    ``hyp_len``/``ref_len``: total hypothesis and effective reference lengths;
    ``guess``/``correct``: per order, hypothesis n-grams and those matched (clipped by
    the maximum count in any one reference). ``a + b`` pools two chunks.
    """

    hyp_len: float
    ref_len: float
    guess: tuple
    correct: tuple

    def __add__(self, other: "BleuStatistics") -> "BleuStatistics":
        if not isinstance(other, BleuStatistics):
            return NotImplemented
        if len(self.guess) != len(other.guess):
            raise ValueError(f"cannot add BLEU statistics of max_order {len(self.guess)} and {len(other.guess)}")
        return BleuStatistics(self.hyp_len + other.hyp_len, self.ref_len + other.ref_len,
                              tuple(a + b for a, b in zip(self.guess, other.guess)),
                              tuple(a + b for a, b in zip(self.correct, other.correct)))

    def score(self) -> np.ndarray:
        """Corpus BLEU-1..max_order (pycocoevalcap's formula and 1e-15/1e-9 guards)."""
        return _core.bleu_corpus(self.hyp_len, self.ref_len, list(self.guess), list(self.correct))


def bleu(hyps, refs, *, max_order: int = 4, ref_length: str = "closest", smooth: str | None = None,
         smooth_value: float | None = None, tokenize: str = "whitespace", lowercase: bool = False,
         workers: int = -1) -> MetricResult:
    """Corpus and per-segment BLEU-1..max_order.

    Default: exactly pycocoevalcap 1.2's ``Bleu`` (nlg-eval's Bleu_1..Bleu_4): clipped
    n-gram counts against the maximum count in any reference, the reference length
    closest to the hypothesis (ties: the shorter), precisions ``(correct + 1e-15) /
    (guess + 1e-9)``. ``.corpus[k-1]`` is BLEU-k; ``.sentences[i, k-1]`` is
    pycocoevalcap's per-segment BLEU-k (its second return value).

    ``ref_length``: "closest" (pycocoevalcap's Bleu), "shortest" or "average" (the other
    options of pycocoevalcap's BleuScorer).

    ``smooth`` (not pycocoevalcap): when given, ``.sentences`` holds sacrebleu's
    ``sentence_bleu`` on a 0..1 scale with that smoothing: "none", "floor" (value 0.1),
    "add-k" (value 1) or "exp" (sacrebleu's default), effective order, brevity penalty
    ``exp(1 - ref/hyp)``; column k-1 uses n-gram orders 1..k. ``.corpus`` stays
    pycocoevalcap's corpus BLEU. ``smooth_value`` overrides the floor/add-k value.

    ``extra["statistics"]``: the corpus ``BleuStatistics``; ``extra["segments"]``: the
    per-segment statistics as arrays.
    """
    if isinstance(max_order, bool) or not isinstance(max_order, int) or not 1 <= max_order <= 16:
        raise ValueError(f"bleu: max_order must be an int in 1..16, got {max_order!r}")
    if ref_length not in REF_LENGTHS:
        raise ValueError(f"bleu: ref_length must be one of {REF_LENGTHS}, got {ref_length!r}")
    if smooth is not None and smooth not in SMOOTHING:
        raise ValueError(f"bleu: smooth must be None (pycocoevalcap) or one of {SMOOTHING}, got {smooth!r}")
    if smooth_value is not None and (smooth not in ("floor", "add-k") or smooth_value < 0):
        raise ValueError("bleu: smooth_value applies to smooth='floor' or 'add-k' and must be >= 0")
    smooth_arg = -1.0 if smooth_value is None else float(smooth_value)
    text = raw_texts(hyps, refs, what="bleu", tokenize=tokenize, lowercase=lowercase, workers=workers)
    if text is not None:
        tokenizer = text.tokenizer
        sentences, segments = _core.bleu_text(text.hyps, text.flat_refs, text.offsets, tokenizer, max_order,
                                              ref_length, smooth, smooth_arg, workers)
    else:
        hyps, refs = prepare(hyps, refs, what="bleu", tokenize=tokenize, lowercase=lowercase,
                             max_order=max_order, workers=workers)
        tokenizer = refs.tokenizer
        sentences, segments = _core.bleu(hyps.encoded, _clipping_source(refs, max_order, workers), max_order,
                                         ref_length, smooth, smooth_arg, workers)
    statistics = BleuStatistics(
        hyp_len=float(segments["hyp_len"].sum()),
        # Summed in segment order as pycocoevalcap does (exact for integer lengths).
        ref_len=float(sum(segments["ref_len"].tolist())),
        guess=tuple(int(x) for x in segments["guess"].sum(axis=0)),
        correct=tuple(int(x) for x in segments["correct"].sum(axis=0)),
    )
    settings = dict(max_order=max_order, ref_len=ref_length, tok=tokenizer.describe())
    if smooth is not None:
        settings["sentence"] = "sacrebleu"
        settings["smooth"] = smooth if smooth_value is None else f"{smooth}[{smooth_value}]"
    return MetricResult(name="bleu", corpus=statistics.score(), sentences=sentences,
                        signature=make_signature("bleu", **settings),
                        extra={"statistics": statistics, "segments": segments})
