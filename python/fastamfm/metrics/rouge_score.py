"""ROUGE-1, ROUGE-2, ROUGE-L and ROUGE-Lsum exactly as Google's rouge-score computes them
(what ``evaluate.load("rouge")`` and most TRL ROUGE rewards run).

Tokens are rouge-score's: the text lowercased (``str.lower``), every run of characters
other than a-z and 0-9 a separator; ``use_stemmer=True`` replaces each token longer than
three characters by its stem under NLTK's Porter stemmer (default mode), as rouge-score
does. Every type has precision, recall and F1 per response; with several references a
type keeps the reference with the highest F1 (``RougeScorer.score_multi``). The corpus
score of each column is the mean over responses: what rouge-score's
``BootstrapAggregator`` reports as ``mid`` up to its resampling noise (its mid is the
median of 1,000 bootstrap means; the mean is what that estimates, and what
``evaluate``'s ``use_aggregator=False`` scores average to).

fastamfm's own ``rouge_l`` is pycocoevalcap's ROUGE-L (beta 1.2, nlg-eval): a different number.
"""
from __future__ import annotations

import re

import numpy as np

from .. import _core
from .._validation import check_workers
from ..registry import Chunk, MeanStatistics, Metric, register
from ..result import MetricResult, make_signature
from ..tokenization import make_tokenizer, prepare_texts

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
_NGRAM_TYPE = re.compile(r"rouge([1-9])$")


def type_code(rouge_type: str, what: str = "rouge") -> int:
    """The core's code of a rouge type: n for rougeN, 0 for rougeL, -1 for rougeLsum."""
    if rouge_type == "rougeL":
        return 0
    if rouge_type == "rougeLsum":
        return -1
    match = _NGRAM_TYPE.match(rouge_type) if isinstance(rouge_type, str) else None
    if match is None:
        raise ValueError(f"{what}: unknown rouge type {rouge_type!r}; choose rouge1..rouge9, rougeL or rougeLsum")
    return int(match.group(1))


def rouge_tokenizer(use_stemmer: bool):
    return make_tokenizer("rouge-stem" if use_stemmer else "rouge")


def column_names(rouge_types) -> tuple:
    return tuple(c for t in rouge_types for c in (t, f"{t}_precision", f"{t}_recall"))


@register
class RougeScore(Metric):
    """rouge-score's ROUGE (see ``rouge``): per type the F1 column (``rouge1``) and its
    ``_precision`` and ``_recall`` columns."""

    name = "rouge"
    columns = column_names(ROUGE_TYPES)
    aliases = ("rouge_score", "rouge-score")

    def __init__(self, *, rouge_types=ROUGE_TYPES, use_stemmer: bool = False, split_summaries: bool = False,
                 workers: int = -1):
        if isinstance(rouge_types, str):
            rouge_types = [t for t in rouge_types.split(",") if t.strip()]
        self.rouge_types = tuple(rouge_types)
        if not self.rouge_types:
            raise ValueError("rouge: no rouge type given")
        self.codes = [type_code(t) for t in self.rouge_types]
        if split_summaries:
            raise ValueError("rouge: split_summaries=True needs NLTK's punkt sentence splitter, which fastamfm does not "
                             "carry; put one sentence per line ('\\n') for rougeLsum instead")
        self.use_stemmer = bool(use_stemmer)
        self.tokenizer = rouge_tokenizer(self.use_stemmer)
        self.workers = check_workers(workers, "rouge")
        self.columns = column_names(self.rouge_types)

    def signature(self) -> str:
        return make_signature("rouge", types="+".join(self.rouge_types), stem=self.use_stemmer, tok="rouge-score",
                              multi_ref="max-f", corpus="mean")

    def update(self, batch) -> Chunk:
        refs = batch.refs
        texts = prepare_texts(refs.flat_texts, self.tokenizer, "references") if not refs.reusable else None
        if refs.reusable:
            # Tokens and lines of the references, kept for every system scored against them.
            texts = refs.derived(("rouge.documents", self.tokenizer.describe()), lambda: _core.RougeDocuments(
                prepare_texts(refs.flat_texts, self.tokenizer, "references"), self.tokenizer, self.workers))
        scores = _core.rouge_score(prepare_texts(batch.hyps.texts, self.tokenizer, "hyps"), texts,
                                   refs.segment_offsets, self.tokenizer, self.codes, self.workers)
        columns = {}
        for k, t in enumerate(self.rouge_types):
            columns[t] = scores[:, k, 2].copy()
            columns[f"{t}_precision"] = scores[:, k, 0].copy()
            columns[f"{t}_recall"] = scores[:, k, 1].copy()
        return Chunk(columns, MeanStatistics.of(columns))

    def result(self, chunk: Chunk, corpus: dict) -> MetricResult:
        return MetricResult("rouge", dict(corpus), dict(chunk.columns), self.signature())

    def pairwise(self, candidates: list, references: list, rouge_type: str = "rougeL") -> np.ndarray:
        """F1 of every candidate against every reference alone, for one type: float32 [n, m]."""
        return _core.rouge_pairwise(prepare_texts(candidates, self.tokenizer, "candidates"),
                                    prepare_texts(references, self.tokenizer, "references"), self.tokenizer,
                                    type_code(rouge_type), self.workers)


def rouge(hyps, refs, *, rouge_types=ROUGE_TYPES, use_stemmer: bool = False, workers: int = -1,
          layout: str | None = None) -> MetricResult:
    """rouge-score's ROUGE: ``res["rouge1"][i]`` = ``RougeScorer(types, use_stemmer).score_multi(refs[i],
    hyps[i])["rouge1"].fmeasure`` (``res["rouge1_precision"]``, ``res["rouge1_recall"]``
    likewise), ``res.corpus["rouge1"]`` their mean.

    ``rouge_types``: any of rouge1..rouge9, rougeL, rougeLsum (lines split at "\\n", as
    rouge-score does without ``split_summaries``).

    Parameters
    ----------
    hyps : sequence of str or Hypotheses
        The n responses.
    refs : sequence of sequences of str, or References
        ``refs[i]``: the references of ``hyps[i]`` (any count >= 1; the best by F1 counts).
    rouge_types : str or sequence of str, default ("rouge1", "rouge2", "rougeL", "rougeLsum")
        The types to score, as a sequence or a comma-separated string.
    use_stemmer : bool, default False
        Porter-stem tokens longer than three characters, as rouge-score does.
    workers : int, default -1
        Threads (-1: every core).
    layout : {None, "responses", "streams"}, optional
        How a plain list ``refs`` is laid out (see ``References.of``).

    Returns
    -------
    MetricResult
        Per type three columns, ``<type>`` (F1), ``<type>_precision`` and ``<type>_recall``:
        ``.sentences`` (float64 [n]) and their means in ``.corpus``.

    Raises
    ------
    ValueError
        An unknown or no rouge type; ``hyps`` empty, of another length than ``refs``, or a
        response without references.
    TypeError
        ``hyps`` or ``refs`` not a sequence of strings (of sequences of strings).

    Examples
    --------
    >>> import fastamfm
    >>> res = fastamfm.rouge(["The cat sat on the mat.", "a dog ran"],
    ...                      [["the cat sat on a mat", "a cat was on the mat"], ["the dog ran away"]],
    ...                      rouge_types=["rouge1", "rougeL"])
    >>> res["rougeL"].round(6).tolist()
    [0.833333, 0.571429]
    >>> {column: round(score, 6) for column, score in res.corpus.items()}  # doctest: +NORMALIZE_WHITESPACE
    {'rouge1': 0.702381, 'rouge1_precision': 0.75, 'rouge1_recall': 0.666667,
     'rougeL': 0.702381, 'rougeL_precision': 0.75, 'rougeL_recall': 0.666667}
    """
    return RougeScore(rouge_types=rouge_types, use_stemmer=use_stemmer,
                      workers=workers).score(hyps, refs, layout=layout)
