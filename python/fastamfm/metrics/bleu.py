"""BLEU-1..n as pycocoevalcap 1.2 / nlg-eval compute it, and smoothed sentence BLEU.

Corpus BLEU is computed from summed per-segment statistics (``BleuStatistics``), so
scores of chunks added together give exactly the whole-corpus BLEU.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from .. import _core
from .._validation import check_choice, check_int, check_workers
from ..registry import Chunk, Metric, SentenceStatistics, Statistics, register, statistics_of
from ..result import MetricResult, make_signature
from ..tokenization import make_tokenizer, prepare_texts

REF_LENGTHS = ("closest", "shortest", "average")
SMOOTHING = ("none", "floor", "add-k", "exp")


@dataclass(frozen=True)
class BleuStatistics(Statistics):
    """Summable sufficient statistics of corpus BLEU.

    ``hyp_len``/``ref_len``: total hypothesis and effective reference lengths;
    ``guess``/``correct``: per order, hypothesis n-grams and those matched (clipped by
    the maximum count in any one reference). ``a + b`` pools two chunks.

    Parameters
    ----------
    hyp_len : float
        The total hypothesis length.
    ref_len : float
        The total effective reference length.
    guess : tuple of int
        Per order 1..max_order, the hypothesis n-grams.
    correct : tuple of int
        Per order, the clipped matches.

    Raises
    ------
    ValueError
        ``a + b`` of statistics of different ``max_order``.

    Examples
    --------
    >>> import fastamfm
    >>> hyps = ["the cat sat on the mat", "a dog ran"]
    >>> refs = [["the cat sat on a mat", "a cat was on the mat"], ["the dog ran away"]]
    >>> total = (fastamfm.bleu(hyps[:1], refs[:1]).extra["statistics"]
    ...          + fastamfm.bleu(hyps[1:], refs[1:]).extra["statistics"])
    >>> total
    BleuStatistics(hyp_len=9.0, ref_len=10.0, guess=(9, 7, 5, 3), correct=(7, 6, 3, 1))
    >>> total.score().round(6).tolist()  # the corpus BLEU-1..4 of both chunks scored together
    [0.695986, 0.730633, 0.659323, 0.540729]
    """

    hyp_len: float
    ref_len: float
    guess: tuple
    correct: tuple

    @classmethod
    def of_segments(cls, segments: dict) -> "BleuStatistics":
        return cls(hyp_len=float(segments["hyp_len"].sum()),
                   # Summed in segment order as pycocoevalcap does (exact for integer lengths).
                   ref_len=float(sum(segments["ref_len"].tolist())),
                   guess=tuple(int(x) for x in segments["guess"].sum(axis=0)),
                   correct=tuple(int(x) for x in segments["correct"].sum(axis=0)))

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

    def to_json(self) -> dict:
        return {"hyp_len": self.hyp_len, "ref_len": self.ref_len, "guess": list(self.guess),
                "correct": list(self.correct)}

    @classmethod
    def from_json(cls, data: dict) -> "BleuStatistics":
        return cls(float(data["hyp_len"]), float(data["ref_len"]), tuple(int(x) for x in data["guess"]),
                   tuple(int(x) for x in data["correct"]))


@register
class Bleu(Metric):
    """BLEU-1..max_order: pycocoevalcap's ``Bleu`` by default (see ``bleu``)."""

    name = "bleu"
    columns: tuple[str, ...] = ("Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4")
    renamed_columns = {f"bleu_{k}": f"Bleu_{k}" for k in range(1, 10)}
    default = True

    def __init__(self, *, max_order: int = 4, ref_length: str = "closest", smooth: str | None = None,
                 smooth_value: float | None = None, tokenize: str = "whitespace", lowercase: bool = False,
                 workers: int = -1):
        check_int(max_order, "max_order", 1, _core.MAX_NGRAM_ORDER, "bleu")
        check_choice(ref_length, "ref_length", REF_LENGTHS, "bleu")
        if smooth is not None and smooth not in SMOOTHING:
            raise ValueError(f"bleu: smooth must be None (pycocoevalcap) or one of {SMOOTHING}, got {smooth!r}")
        if smooth_value is not None and (smooth not in ("floor", "add-k") or smooth_value < 0):
            raise ValueError("bleu: smooth_value applies to smooth='floor' or 'add-k' and must be >= 0")
        self.max_order = max_order
        self.ref_length = ref_length
        self.smooth = smooth
        self.smooth_value = smooth_value
        self.tokenizer = make_tokenizer(tokenize, lowercase)
        self.workers = check_workers(workers, "bleu")
        self.columns = tuple(f"Bleu_{k}" for k in range(1, max_order + 1))

    def signature(self) -> str:
        settings = dict(max_order=self.max_order, ref_len=self.ref_length, tok=self.tokenizer.describe())
        if self.smooth is not None:
            settings["sentence"] = "sacrebleu"
            settings["smooth"] = self.smooth if self.smooth_value is None else f"{self.smooth}[{self.smooth_value}]"
        return make_signature("bleu", **settings)

    def reserve(self, batch) -> None:
        batch.hyps.reserve(self.tokenizer, self.max_order)

    def _clipping_source(self, refs):
        """What hypotheses are clipped against: the references themselves the first time
        a ``References`` is scored, the per-segment maxima table (built once, kept on the
        references) when it is scored again, e.g. for another system."""
        key = ("bleu.reference_maxima", self.tokenizer.describe(), self.max_order)
        encoded = refs.encoded_with(self.tokenizer, self.max_order)
        if next(refs.derived(key + ("uses",), itertools.count)) == 0:
            return encoded
        return refs.derived(key, lambda: _core.BleuReferenceCounts(encoded, self.max_order, self.workers))

    def update(self, batch) -> Chunk:
        hyps, refs = batch.hyps, batch.refs
        smooth_arg = -1.0 if self.smooth_value is None else float(self.smooth_value)
        if not refs.reusable and not refs.has_encoding(self.tokenizer):
            # References scored once: straight from text, no reference tables built.
            sentences, segments = _core.bleu_text(
                prepare_texts(hyps.texts, self.tokenizer, "hyps"),
                prepare_texts(refs.flat_texts, self.tokenizer, "references"), refs.segment_offsets, self.tokenizer,
                self.max_order, self.ref_length, self.smooth, smooth_arg, self.workers)
        else:
            sentences, segments = _core.bleu(hyps.encoded(self.tokenizer, self.max_order), self._clipping_source(refs),
                                             self.max_order, self.ref_length, self.smooth, smooth_arg, self.workers)
        columns = {c: sentences[:, k] for k, c in enumerate(self.columns)}
        return Chunk(columns, BleuStatistics.of_segments(segments), {"sentences": sentences, "segments": segments})

    def compute(self, statistics: Statistics) -> dict:
        scores = statistics_of(BleuStatistics, statistics, self.name).score()
        return {c: float(v) for c, v in zip(self.columns, scores)}

    def sentence_statistics(self, batch, chunk: Chunk) -> SentenceStatistics:
        """Rows: hypothesis length, effective reference length, then per order the
        hypothesis n-grams and the clipped matches; a sample's corpus BLEU comes from
        their sums, as sacrebleu's paired bootstrap does (not from sentence BLEU)."""
        segments = chunk.extra["segments"]
        values = np.column_stack([segments["hyp_len"], segments["ref_len"],
                                  segments["guess"].astype(np.float64), segments["correct"].astype(np.float64)])
        order, columns = self.max_order, self.columns

        def corpus(sums, keys=None):
            # Integer multiplicities of integer counts: the sums are exact integers.
            lengths = sums[:, :2].tolist()
            counts = np.rint(sums[:, 2:]).astype(np.uint64).tolist()
            # BleuStatistics.score's formula, called on plain lists (a few µs a sample).
            scores = np.array([_core.bleu_corpus(h, r, c[:order], c[order:])
                               for (h, r), c in zip(lengths, counts)]).reshape(len(sums), order)
            return {column: scores[:, k] for k, column in enumerate(columns)}

        return SentenceStatistics(values, corpus)

    def epsilon_columns(self, statistics: Statistics) -> frozenset:
        """Bleu_k for every k at or above the first n-gram order with no match: its
        precision is then pycocoevalcap's 1e-15 / (guess + 1e-9), and the score an artefact
        of those constants (at most 1e-15 ** (1/k))."""
        for order, correct in enumerate(statistics_of(BleuStatistics, statistics, self.name).correct, 1):
            if correct == 0:
                return frozenset(self.columns[order - 1:])
        return frozenset()

    def empty_statistics(self) -> BleuStatistics:
        zeros = (0,) * self.max_order
        return BleuStatistics(0.0, 0.0, zeros, zeros)

    def statistics_from_json(self, data: dict) -> BleuStatistics:
        return BleuStatistics.from_json(data)

    def result_extra(self, chunk: Chunk) -> dict:
        return {"statistics": chunk.statistics, "segments": chunk.extra["segments"]}


def bleu(hyps, refs, *, max_order: int = 4, ref_length: str = "closest", smooth: str | None = None,
         smooth_value: float | None = None, tokenize: str = "whitespace", lowercase: bool = False,
         workers: int = -1, layout: str | None = None) -> MetricResult:
    """Corpus and per-segment BLEU-1..max_order.

    Default: exactly pycocoevalcap 1.2's ``Bleu`` (nlg-eval's Bleu_1..Bleu_4): clipped
    n-gram counts against the maximum count in any reference, the reference length
    closest to the hypothesis (ties: the shorter), precisions ``(correct + 1e-15) /
    (guess + 1e-9)``. ``.corpus["Bleu_k"]`` is BLEU-k; ``.sentences["Bleu_k"][i]`` is
    pycocoevalcap's per-segment BLEU-k (its second return value).

    ``ref_length``: "closest" (pycocoevalcap's Bleu), "shortest" or "average" (the other
    options of pycocoevalcap's BleuScorer).

    ``smooth`` (not pycocoevalcap): when given, ``.sentences`` holds sacrebleu's
    ``sentence_bleu`` on a 0..1 scale with that smoothing: "none", "floor" (value 0.1),
    "add-k" (value 1) or "exp" (sacrebleu's default), effective order, brevity penalty
    ``exp(1 - ref/hyp)``; column Bleu_k uses n-gram orders 1..k. ``.corpus`` stays
    pycocoevalcap's corpus BLEU. ``smooth_value`` overrides the floor/add-k value.

    ``hyps``/``refs`` may be ``fastamfm.Hypotheses``/``fastamfm.References`` reused
    across calls. ``extra["statistics"]``: the corpus ``BleuStatistics``;
    ``extra["segments"]``: the per-segment statistics as arrays.

    Parameters
    ----------
    hyps : sequence of str or Hypotheses
        The n responses.
    refs : sequence of sequences of str, or References
        ``refs[i]``: the references of ``hyps[i]`` (any count >= 1).
    max_order : int, default 4
        The highest n-gram order (1..16): columns ``Bleu_1`` .. ``Bleu_<max_order>``.
    ref_length : {"closest", "shortest", "average"}, default "closest"
        The effective reference length of the brevity penalty.
    smooth : {None, "none", "floor", "add-k", "exp"}, default None
        None: pycocoevalcap's per-segment BLEU; otherwise sacrebleu's sentence BLEU with
        that smoothing in ``.sentences``.
    smooth_value : float, optional
        The value of "floor" (default 0.1) or "add-k" (default 1); only with those.
    tokenize : str, default "whitespace"
        A tokenizer preset (``fastamfm.TOKENIZER_PRESETS``).
    lowercase : bool, default False
        Lowercase before tokenizing.
    workers : int, default -1
        Threads (-1: every core).
    layout : {None, "responses", "streams"}, optional
        How a plain list ``refs`` is laid out (see ``References.of``).

    Returns
    -------
    MetricResult
        ``.corpus["Bleu_k"]`` and ``.sentences["Bleu_k"]`` (float64 [n]) for k = 1..max_order.

    Raises
    ------
    ValueError
        An option out of range or unknown; ``hyps`` empty, of another length than ``refs``,
        or a response without references.
    TypeError
        ``hyps`` or ``refs`` not a sequence of strings (of sequences of strings).

    Examples
    --------
    >>> import fastamfm
    >>> res = fastamfm.bleu(["the cat sat on the mat", "a dog ran"],
    ...                     [["the cat sat on a mat", "a cat was on the mat"], ["the dog ran away"]])
    >>> round(res.corpus["Bleu_4"], 6)
    0.540729
    >>> res.sentences["Bleu_2"].round(6).tolist()
    [0.912871, 0.41369]
    """
    return Bleu(max_order=max_order, ref_length=ref_length, smooth=smooth, smooth_value=smooth_value,
                tokenize=tokenize, lowercase=lowercase, workers=workers).score(hyps, refs, layout=layout)
