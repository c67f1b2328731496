"""BLEU exactly as sacrebleu (2.x) computes it: its tokenizers, smoothing methods,
effective order, multi-reference rules and signature.

The corpus score comes from summed integer statistics (hypothesis and closest
reference lengths, matched and total n-grams per order), so chunks, streams and Dask
partitions add up to the whole-corpus number, and paired bootstrap resampling
(``compare_systems``) resamples them as ``sacrebleu --paired-bs`` does.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _core
from .._validation import check_choice, check_int, check_workers
from ..registry import Chunk, Metric, SentenceStatistics, Statistics, register, statistics_of
from ..result import MetricResult, make_signature
from ..tokenization import make_tokenizer, prepare_texts

# The sacrebleu release whose numbers and signature format these are (the tests compare).
SACREBLEU_VERSION = "2.6.0"
# sacrebleu's tokenizer names -> fastamfm's presets ("none" only splits on whitespace).
TOKENIZERS = {"13a": "13a", "intl": "intl", "char": "char", "zh": "zh", "none": "whitespace"}
SMOOTH_METHODS = ("exp", "floor", "add-k", "none")
SMOOTH_DEFAULTS = {"floor": 0.1, "add-k": 1}


def sacrebleu_tokenizer(tokenize: str, lowercase: bool, what: str):
    check_choice(tokenize, "tokenize", tuple(TOKENIZERS), what)
    return make_tokenizer(TOKENIZERS[tokenize], lowercase)


def check_smoothing(smooth_method: str, smooth_value, what: str) -> float:
    """sacrebleu's smoothing settings; the value the core takes (-1: the method's default)."""
    check_choice(smooth_method, "smooth_method", SMOOTH_METHODS, what)
    if smooth_value is None:
        return -1.0
    if smooth_method not in SMOOTH_DEFAULTS:
        raise ValueError(f"{what}: smooth_value applies to smooth_method 'floor' or 'add-k', not {smooth_method!r}")
    if isinstance(smooth_value, bool) or not isinstance(smooth_value, (int, float)) or not smooth_value >= 0:
        raise ValueError(f"{what}: smooth_value must be a number >= 0, got {smooth_value!r}")
    return float(smooth_value)


def format_signature(info: dict) -> str:
    """sacrebleu's ``Signature.format()``: ``key:value`` pairs, the version last."""
    return "|".join(f"{k}:{v}" for k, v in info.items()) + f"|version:{SACREBLEU_VERSION}"


def nrefs_text(refs_min: int, refs_max: int):
    return refs_min if refs_min == refs_max else "var"


@dataclass(frozen=True)
class SacreBleuStatistics(Statistics):
    """Summable corpus statistics of sacrebleu's BLEU: ``sys_len``, ``ref_len`` (closest
    reference lengths summed), per order the matched (``correct``) and total n-grams, and
    the smallest and largest reference count of a segment (for the signature's nrefs).

    Parameters
    ----------
    sys_len : int
        The total hypothesis length.
    ref_len : int
        The summed closest reference lengths.
    correct : tuple of int
        Per order, the matched n-grams.
    total : tuple of int
        Per order, the hypothesis n-grams.
    refs_min, refs_max : int
        The smallest and largest reference count of a segment.

    Raises
    ------
    ValueError
        ``a + b`` of statistics of different ``max_ngram_order``.

    Examples
    --------
    >>> import fastamfm
    >>> hyps = ["the cat sat on the mat", "a dog ran"]
    >>> refs = [["the cat sat on a mat", "a cat was on the mat"], ["the dog ran away"]]
    >>> (fastamfm.sacrebleu(hyps[:1], refs[:1]).extra["statistics"]
    ...  + fastamfm.sacrebleu(hyps[1:], refs[1:]).extra["statistics"])  # doctest: +NORMALIZE_WHITESPACE
    SacreBleuStatistics(sys_len=9, ref_len=10, correct=(7, 6, 3, 1), total=(9, 7, 5, 3),
                        refs_min=1, refs_max=2)
    """

    sys_len: int
    ref_len: int
    correct: tuple
    total: tuple
    refs_min: int
    refs_max: int

    @classmethod
    def of_segments(cls, segments: dict, counts: np.ndarray) -> "SacreBleuStatistics":
        return cls(int(segments["hyp_len"].sum()), int(segments["ref_len"].sum()),
                   tuple(int(x) for x in segments["correct"].sum(axis=0)),
                   tuple(int(x) for x in segments["guess"].sum(axis=0)), int(counts.min()), int(counts.max()))

    def __add__(self, other: "SacreBleuStatistics") -> "SacreBleuStatistics":
        if not isinstance(other, SacreBleuStatistics):
            return NotImplemented
        if len(self.correct) != len(other.correct):
            raise ValueError("cannot add sacreBLEU statistics of different max_ngram_order")
        if not self.refs_max:
            return other
        if not other.refs_max:
            return self
        return SacreBleuStatistics(self.sys_len + other.sys_len, self.ref_len + other.ref_len,
                                   tuple(a + b for a, b in zip(self.correct, other.correct)),
                                   tuple(a + b for a, b in zip(self.total, other.total)),
                                   min(self.refs_min, other.refs_min), max(self.refs_max, other.refs_max))

    def to_json(self) -> dict:
        return {"sys_len": self.sys_len, "ref_len": self.ref_len, "correct": list(self.correct),
                "total": list(self.total), "refs_min": self.refs_min, "refs_max": self.refs_max}

    @classmethod
    def from_json(cls, data: dict) -> "SacreBleuStatistics":
        return cls(int(data["sys_len"]), int(data["ref_len"]), tuple(int(x) for x in data["correct"]),
                   tuple(int(x) for x in data["total"]), int(data["refs_min"]), int(data["refs_max"]))


@register
class SacreBleu(Metric):
    """sacrebleu's BLEU on its 0..100 scale (see ``sacrebleu``)."""

    name = "sacrebleu"
    columns = ("sacreBLEU",)
    renamed_columns = {"sacrebleu": "sacreBLEU"}
    aliases = ("sacre_bleu",)

    def __init__(self, *, tokenize: str = "13a", lowercase: bool = False, smooth_method: str = "exp",
                 smooth_value: float | None = None, max_ngram_order: int = 4, effective_order: bool | None = None,
                 workers: int = -1):
        self.tokenize = tokenize
        self.lowercase = bool(lowercase)
        self.tokenizer = sacrebleu_tokenizer(tokenize, lowercase, "sacrebleu")
        self.smooth_method = smooth_method
        self.smooth_value = smooth_value
        self._smooth_arg = check_smoothing(smooth_method, smooth_value, "sacrebleu")
        self.max_ngram_order = check_int(max_ngram_order, "max_ngram_order", 1, _core.MAX_NGRAM_ORDER, "sacrebleu")
        if effective_order is not None and not isinstance(effective_order, bool):
            raise TypeError("sacrebleu: effective_order must be True, False or None")
        self.effective_order = effective_order
        self.workers = check_workers(workers, "sacrebleu")

    # sacrebleu's corpus_bleu and sentence_bleu defaults: no effective order for the
    # corpus, effective order for sentences, unless told otherwise.
    @property
    def corpus_effective_order(self) -> bool:
        return bool(self.effective_order)

    @property
    def sentence_effective_order(self) -> bool:
        return True if self.effective_order is None else self.effective_order

    def signature(self) -> str:
        return make_signature("sacrebleu", tok=self.tokenize, case="lc" if self.lowercase else "mixed",
                              eff="default" if self.effective_order is None else self.effective_order,
                              smooth=self._smooth_text(), order=self.max_ngram_order)

    def _smooth_text(self) -> str:
        if self.smooth_method not in SMOOTH_DEFAULTS:
            return self.smooth_method
        value = SMOOTH_DEFAULTS[self.smooth_method] if self.smooth_value is None else self.smooth_value
        return f"{self.smooth_method}[{value:.2f}]"

    def sacrebleu_signature(self, statistics: SacreBleuStatistics, *, sentence: bool = False) -> str:
        """The signature sacrebleu prints for this corpus (``BLEU.get_signature()``)."""
        eff = self.sentence_effective_order if sentence else self.corpus_effective_order
        return format_signature({"nrefs": nrefs_text(statistics.refs_min, statistics.refs_max),
                                 "case": "lc" if self.lowercase else "mixed", "eff": "yes" if eff else "no",
                                 "tok": self.tokenize, "smooth": self._smooth_text()})

    def _references(self, refs):
        """The references as text (scored once) or, on a reusable ``References``, their
        token ids, tokenized once for every system scored against them."""
        if not refs.reusable:
            return prepare_texts(refs.flat_texts, self.tokenizer, "references")
        return refs.derived(("sacrebleu.token_ids", self.tokenizer.describe()), lambda: _core.TokenIdBatch(
            prepare_texts(refs.flat_texts, self.tokenizer, "references"), self.tokenizer, self.workers))

    def update(self, batch) -> Chunk:
        refs = batch.refs
        sentences, segments = _core.sacrebleu(
            prepare_texts(batch.hyps.texts, self.tokenizer, "hyps"), self._references(refs), refs.segment_offsets,
            self.tokenizer, self.max_ngram_order, self.smooth_method, self._smooth_arg,
            self.sentence_effective_order, self.workers)
        counts = np.diff(np.asarray(refs.segment_offsets))
        columns = {"sacreBLEU": sentences}
        return Chunk(columns, SacreBleuStatistics.of_segments(segments, counts), {"segments": segments})

    def compute(self, statistics: Statistics) -> dict:
        statistics = statistics_of(SacreBleuStatistics, statistics, self.name)
        return {"sacreBLEU": _core.sacrebleu_corpus(statistics.sys_len, statistics.ref_len, list(statistics.total),
                                                    list(statistics.correct), self.smooth_method, self._smooth_arg,
                                                    self.corpus_effective_order)}

    def sentence_statistics(self, batch, chunk: Chunk) -> SentenceStatistics:
        """Rows: hypothesis length, closest reference length, then per order the total
        and the matched n-grams: a sample's corpus BLEU comes from their sums, as
        sacrebleu's paired bootstrap computes it."""
        s = chunk.extra["segments"]
        values = np.column_stack([s["hyp_len"], s["ref_len"], s["guess"].astype(np.float64),
                                  s["correct"].astype(np.float64)])
        order = self.max_ngram_order

        def corpus(sums, keys=None):
            ints = np.rint(sums).astype(np.int64).tolist()
            scores = [_core.sacrebleu_corpus(r[0], r[1], r[2:2 + order], r[2 + order:], self.smooth_method,
                                             self._smooth_arg, self.corpus_effective_order) for r in ints]
            return {"sacreBLEU": np.asarray(scores, dtype=np.float64)}

        return SentenceStatistics(values, corpus)

    def empty_statistics(self) -> SacreBleuStatistics:
        zeros = (0,) * self.max_ngram_order
        return SacreBleuStatistics(0, 0, zeros, zeros, 0, 0)

    def statistics_from_json(self, data: dict) -> SacreBleuStatistics:
        return SacreBleuStatistics.from_json(data)

    def result_extra(self, chunk: Chunk) -> dict:
        stats = statistics_of(SacreBleuStatistics, chunk.statistics, self.name)
        return {"statistics": stats, "segments": chunk.extra["segments"],
                "sacrebleu_signature": self.sacrebleu_signature(stats),
                "sentence_signature": self.sacrebleu_signature(stats, sentence=True)}


def sacrebleu(hyps, refs, *, tokenize: str = "13a", lowercase: bool = False, smooth_method: str = "exp",
              smooth_value: float | None = None, max_ngram_order: int = 4, effective_order: bool | None = None,
              workers: int = -1, layout: str | None = None) -> MetricResult:
    """sacrebleu's BLEU (0..100): ``.corpus["sacreBLEU"]`` = ``BLEU(...).corpus_score(hyps, refs).score``
    and ``.sentences["sacreBLEU"][i]`` = ``BLEU(...).sentence_score(hyps[i], refs[i]).score``.

    ``refs[i]``: the references of response i (any count; sacrebleu's ``None`` padding of
    missing references is a shorter list here; an empty string is a reference of length 0).
    sacrebleu's own layout, reference streams (``refs[j][i]``: the j-th reference of
    ``hyps[i]``), needs ``layout="streams"`` or ``fastamfm.References.from_streams(refs)``.
    ``tokenize``: "13a" (default), "intl", "char", "zh" or "none"; ``lowercase``;
    ``smooth_method``: "exp" (default), "floor" (``smooth_value`` 0.1), "add-k" (1) or "none";
    ``max_ngram_order``; ``effective_order``: None keeps sacrebleu's function defaults (off
    for the corpus score as ``corpus_bleu``, on for sentences as ``sentence_bleu``),
    True/False sets both. ``extra["sacrebleu_signature"]`` is the signature sacrebleu
    prints for the corpus score (``nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0``),
    ``extra["statistics"]`` the summable ``SacreBleuStatistics``.

    Parameters
    ----------
    hyps : sequence of str or Hypotheses
        The n responses.
    refs : sequence of sequences of str, or References
        ``refs[i]``: the references of ``hyps[i]`` (any count >= 1); reference streams with
        ``layout="streams"``.
    tokenize : {"13a", "intl", "char", "zh", "none"}, default "13a"
        sacrebleu's tokenizer.
    lowercase : bool, default False
        Lowercase before tokenizing.
    smooth_method : {"exp", "floor", "add-k", "none"}, default "exp"
        sacrebleu's smoothing.
    smooth_value : float, optional
        The value of "floor" (default 0.1) or "add-k" (default 1); only with those.
    max_ngram_order : int, default 4
        The highest n-gram order (1..16).
    effective_order : bool, optional
        None: sacrebleu's defaults (off for the corpus, on for sentences); True/False: both.
    workers : int, default -1
        Threads (-1: every core).
    layout : {None, "responses", "streams"}, optional
        How a plain list ``refs`` is laid out (see ``References.of``).

    Returns
    -------
    MetricResult
        Column ``sacreBLEU`` (0..100): ``.sentences["sacreBLEU"]`` (float64 [n]) and the corpus
        BLEU ``.corpus["sacreBLEU"]``.

    Raises
    ------
    ValueError
        An option out of range or unknown, ``smooth_value`` with "exp" or "none"; ``hyps``
        empty, of another length than ``refs``, or a response without references.
    TypeError
        ``effective_order`` not a bool or None; ``hyps`` or ``refs`` not a sequence of
        strings (of sequences of strings).

    Examples
    --------
    >>> import fastamfm
    >>> res = fastamfm.sacrebleu(["the cat sat on the mat", "a dog ran"],
    ...                          [["the cat sat on a mat", "a cat was on the mat"], ["the dog ran away"]])
    >>> round(res.corpus["sacreBLEU"], 4), res.sentences["sacreBLEU"].round(4).tolist()
    (54.0729, [67.56, 39.4322])
    >>> res.extra["sacrebleu_signature"]
    'nrefs:var|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0'

    The same references as sacrebleu's streams (``None``: no second reference):

    >>> streams = [["the cat sat on a mat", "the dog ran away"], ["a cat was on the mat", None]]
    >>> round(fastamfm.sacrebleu(["the cat sat on the mat", "a dog ran"], streams, layout="streams")
    ...       .corpus["sacreBLEU"], 4)
    54.0729
    """
    return SacreBleu(tokenize=tokenize, lowercase=lowercase, smooth_method=smooth_method, smooth_value=smooth_value,
                     max_ngram_order=max_ngram_order, effective_order=effective_order,
                     workers=workers).score(hyps, refs, layout=layout)
