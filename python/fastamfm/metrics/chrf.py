"""chrF and chrF++ exactly as sacrebleu (2.x) computes them.

Per segment the statistics of its best reference (hypothesis, reference and matched
n-grams per character and word order) are kept; the corpus score is chrF of their sums,
so chunks, streams and Dask partitions add up to the whole-corpus number, and
``compare_systems`` resamples those sums as sacrebleu's paired bootstrap does.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _core
from .._validation import check_int, check_workers
from ..registry import Chunk, Metric, SentenceStatistics, Statistics, register, statistics_of
from ..result import MetricResult, make_signature
from ..tokenization import make_tokenizer, prepare_texts
from .sacrebleu import format_signature, nrefs_text


def lowered(texts: list, lowercase: bool, what: str) -> list:
    """Texts as sacrebleu's chrF sees them: str.lower() when lowercase (the core lowers
    ASCII; text outside ASCII is lowered here, with Python's own tables)."""
    return prepare_texts(texts, make_tokenizer("whitespace", True), what) if lowercase else texts


def check_beta(beta, what: str) -> float:
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not beta >= 0:
        raise ValueError(f"{what}: beta must be a number >= 0, got {beta!r}")
    return beta


@dataclass(frozen=True)
class ChrfStatistics(Statistics):
    """Summable chrF statistics: per order [hypothesis, reference, matched] n-grams
    (character orders first, then word orders), and the smallest and largest reference
    count of a segment (for the signature's nrefs)."""

    values: tuple
    refs_min: int = 0
    refs_max: int = 0

    def __add__(self, other: "ChrfStatistics") -> "ChrfStatistics":
        if not isinstance(other, ChrfStatistics):
            return NotImplemented
        if len(self.values) != len(other.values):
            raise ValueError("cannot add chrF statistics of different orders")
        if not self.refs_max:
            return other
        if not other.refs_max:
            return self
        return ChrfStatistics(tuple(a + b for a, b in zip(self.values, other.values)),
                              min(self.refs_min, other.refs_min), max(self.refs_max, other.refs_max))

    def to_json(self) -> dict:
        return {"values": list(self.values), "refs_min": self.refs_min, "refs_max": self.refs_max}

    @classmethod
    def from_json(cls, data: dict) -> "ChrfStatistics":
        return cls(tuple(int(x) for x in data["values"]), int(data["refs_min"]), int(data["refs_max"]))


@register
class Chrf(Metric):
    """sacrebleu's chrF on its 0..100 scale (see ``chrf``)."""

    name = "chrf"
    columns = ("chrF",)
    renamed_columns = {"chrf": "chrF"}
    WORD_ORDER = 0

    def __init__(self, *, char_order: int = 6, word_order: int | None = None, beta: float = 2,
                 lowercase: bool = False, whitespace: bool = False, eps_smoothing: bool = False, workers: int = -1):
        self.char_order = check_int(char_order, "char_order", 0, _core.MAX_NGRAM_ORDER, self.name)
        self.word_order = check_int(self.WORD_ORDER if word_order is None else word_order, "word_order", 0, _core.MAX_NGRAM_ORDER,
                                    self.name)
        if self.char_order + self.word_order == 0:
            raise ValueError(f"{self.name}: char_order and word_order cannot both be 0")
        self.beta = check_beta(beta, self.name)
        self.lowercase = bool(lowercase)
        self.whitespace = bool(whitespace)
        self.eps_smoothing = bool(eps_smoothing)
        self.workers = check_workers(workers, self.name)

    @property
    def orders(self) -> int:
        return self.char_order + self.word_order

    def signature(self) -> str:
        return make_signature(self.name, beta=self.beta, case="lc" if self.lowercase else "mixed",
                              eff="no" if self.eps_smoothing else "yes", nc=self.char_order, nw=self.word_order,
                              space="yes" if self.whitespace else "no")

    def sacrebleu_signature(self, statistics: ChrfStatistics) -> str:
        """The signature sacrebleu prints (``CHRF.get_signature()``)."""
        return format_signature({"nrefs": nrefs_text(statistics.refs_min, statistics.refs_max),
                                 "case": "lc" if self.lowercase else "mixed",
                                 "eff": "no" if self.eps_smoothing else "yes", "nc": self.char_order,
                                 "nw": self.word_order, "space": "yes" if self.whitespace else "no"})

    def _options(self) -> tuple[int, int, float, bool, bool, bool]:
        return (self.char_order, self.word_order, float(self.beta), self.whitespace, self.eps_smoothing,
                self.lowercase)

    def update(self, batch) -> Chunk:
        refs = batch.refs
        hyps = lowered(batch.hyps.texts, self.lowercase, "hyps")
        if refs.reusable:
            # Characters and words of the references, kept for every system scored against them.
            key = ("chrf.texts", self.char_order, self.word_order, self.whitespace, self.lowercase)
            prepared = refs.derived(key, lambda: _core.ChrfTexts(lowered(refs.flat_texts, self.lowercase, "references"),
                                                                 self.char_order, self.word_order, self.whitespace,
                                                                 self.lowercase, self.workers))
            sentences, segments = _core.chrf(hyps, prepared, refs.segment_offsets, float(self.beta),
                                             self.eps_smoothing, self.workers)
        else:
            sentences, segments = _core.chrf(hyps, lowered(refs.flat_texts, self.lowercase, "references"),
                                             refs.segment_offsets, *self._options(), self.workers)
        counts = np.diff(np.asarray(refs.segment_offsets))
        column = self.columns[0]
        stats = ChrfStatistics(tuple(int(x) for x in segments.sum(axis=0)), int(counts.min()), int(counts.max()))
        return Chunk({column: sentences}, stats, {"segments": segments})

    def _score(self, values) -> float:
        return _core.chrf_corpus(list(values), self.char_order, self.word_order, float(self.beta), self.eps_smoothing)

    def compute(self, statistics: Statistics) -> dict:
        return {self.columns[0]: self._score(statistics_of(ChrfStatistics, statistics, self.name).values)}

    def sentence_statistics(self, batch, chunk: Chunk) -> SentenceStatistics:
        """Rows: each segment's [hypothesis, reference, matched] counts per order; a
        sample's chrF comes from their sums (sacrebleu's paired bootstrap)."""
        column = self.columns[0]

        def corpus(sums, keys=None):
            ints = np.rint(sums).astype(np.int64).tolist()
            return {column: np.asarray([self._score(row) for row in ints], dtype=np.float64)}

        return SentenceStatistics(chunk.extra["segments"].astype(np.float64), corpus)

    def empty_statistics(self) -> ChrfStatistics:
        return ChrfStatistics((0,) * (3 * self.orders))

    def statistics_from_json(self, data: dict) -> ChrfStatistics:
        return ChrfStatistics.from_json(data)

    def result_extra(self, chunk: Chunk) -> dict:
        return {"statistics": chunk.statistics, "segments": chunk.extra["segments"],
                "sacrebleu_signature": self.sacrebleu_signature(
                    statistics_of(ChrfStatistics, chunk.statistics, self.name))}

    def pairwise(self, candidates: list, references: list) -> np.ndarray:
        """Sentence chrF of every candidate against every reference alone: float32 [n, m]."""
        return _core.chrf_pairwise(lowered(candidates, self.lowercase, "candidates"),
                                   lowered(references, self.lowercase, "references"), *self._options(), self.workers)


@register
class ChrfPlusPlus(Chrf):
    """chrF++: chrF with word unigrams and bigrams (``word_order=2``)."""

    name = "chrf_plus"
    columns = ("chrF++",)
    renamed_columns = {"chrf_plus": "chrF++"}
    aliases = ("chrf++", "chrfpp")
    WORD_ORDER = 2


def chrf(hyps, refs, *, char_order: int = 6, word_order: int = 0, beta: float = 2, lowercase: bool = False,
         whitespace: bool = False, eps_smoothing: bool = False, workers: int = -1,
         layout: str | None = None) -> MetricResult:
    """sacrebleu's chrF (0..100): ``.corpus["chrF"]`` (``"chrF++"`` with ``word_order=2``) =
    ``CHRF(...).corpus_score(hyps, refs).score``, ``.sentences["chrF"][i]`` =
    ``CHRF(...).sentence_score(hyps[i], refs[i]).score``.

    ``word_order=2`` is chrF++ (also the registry metric ``chrf_plus``, alias ``chrf++``);
    ``char_order`` (6), ``beta`` (2), ``lowercase``, ``whitespace`` (keep whitespace in
    character n-grams), ``eps_smoothing`` (chrF++.py's epsilon smoothing instead of
    sacrebleu's default effective order). Several references: each segment keeps the
    statistics of its best reference (first on ties), as sacrebleu does. ``refs[i]``: the
    references of response i; sacrebleu's reference streams need ``layout="streams"``.
    ``extra["sacrebleu_signature"]``: the signature sacrebleu prints.

    Parameters
    ----------
    hyps : sequence of str or Hypotheses
        The n responses.
    refs : sequence of sequences of str, or References
        ``refs[i]``: the references of ``hyps[i]`` (any count >= 1).
    char_order : int, default 6
        The highest character n-gram order (0..16).
    word_order : int, default 0
        The highest word n-gram order (0..16); 2 is chrF++. Not both orders 0.
    beta : float, default 2
        The weight of recall in the F-score (a number >= 0).
    lowercase : bool, default False
        Lowercase first.
    whitespace : bool, default False
        Keep whitespace in the character n-grams.
    eps_smoothing : bool, default False
        chrF++.py's epsilon smoothing instead of the effective order.
    workers : int, default -1
        Threads (-1: every core).
    layout : {None, "responses", "streams"}, optional
        How a plain list ``refs`` is laid out (see ``References.of``).

    Returns
    -------
    MetricResult
        Column ``chrF`` (``chrF++`` with ``word_order=2``), 0..100: ``.sentences`` (float64 [n])
        and the corpus score ``.corpus``.

    Raises
    ------
    ValueError
        An order out of range, both orders 0, a negative ``beta``; ``hyps`` empty, of another
        length than ``refs``, or a response without references.
    TypeError
        ``hyps`` or ``refs`` not a sequence of strings (of sequences of strings).

    Examples
    --------
    >>> import fastamfm
    >>> hyps = ["the cat sat on the mat", "a dog ran"]
    >>> refs = [["the cat sat on a mat", "a cat was on the mat"], ["the dog ran away"]]
    >>> res = fastamfm.chrf(hyps, refs)
    >>> round(res.corpus["chrF"], 4), res.sentences["chrF"].round(4).tolist()
    (57.42, [72.0848, 36.965])
    >>> round(fastamfm.chrf(hyps, refs, word_order=2).corpus["chrF++"], 4)
    58.4128
    """
    # word_order=2 is the registered chrf_plus: its result is named and keyed as evaluate's.
    metric = ChrfPlusPlus if word_order == ChrfPlusPlus.WORD_ORDER else Chrf
    return metric(char_order=char_order, word_order=word_order, beta=beta, lowercase=lowercase, whitespace=whitespace,
                  eps_smoothing=eps_smoothing, workers=workers).score(hyps, refs, layout=layout)
