"""CIDEr-D as pycocoevalcap 1.2's ``Cider`` (nlg-eval's "CIDEr"), with streaming.

CIDEr's idf comes from document frequencies over the references of the whole
evaluated corpus, so a corpus too large to hold is scored in two passes: every chunk's
references are counted into a ``DocumentFrequencies`` (the pipeline's reference pass;
tables of separate chunks add up), then each chunk is scored with the total; the
per-segment scores are exactly those of the whole-corpus run.
"""
from __future__ import annotations

import base64

import numpy as np

from .. import _core
from .._validation import check_int, check_positive, check_workers
from ..references import References
from ..registry import Chunk, MeanStatistics, Metric, Statistics, register, statistics_of
from ..result import MetricResult, make_signature
from ..tokenization import make_tokenizer


class DocumentFrequencies(Statistics):
    """In how many segments each n-gram occurs among the references (CIDEr's idf).

    ``update(refs)`` adds a chunk of segments (raw ragged lists or ``References``);
    ``a + b`` merges tables counted over disjoint segments; ``num_segments`` is the N
    of ``log N``.

    Parameters
    ----------
    max_order : int, default 4
        The n-gram orders counted (1..16); the ``max_order`` of the CIDEr they serve.
    tokenize : str, default "whitespace"
        The tokenizer preset, the same as the CIDEr they serve.
    lowercase : bool, default False
        Lowercase before tokenizing.

    Raises
    ------
    ValueError
        ``max_order`` out of range, an unknown ``tokenize``; ``a + b`` of tables of another
        order or tokenizer.

    Examples
    --------
    Counted once over all the references, then used chunk by chunk (the same scores as one call):

    >>> import fastamfm
    >>> hyps = ["the cat sat on the mat", "a dog ran"]
    >>> refs = [["the cat sat on a mat", "a cat was on the mat"], ["the dog ran away"]]
    >>> frequencies = fastamfm.DocumentFrequencies().update(refs)
    >>> frequencies
    DocumentFrequencies(2 segments, 40 n-grams, max_order=4, tok:whitespace)
    >>> frequencies.count("the cat"), frequencies.count(["dog"])
    (1, 1)
    >>> [round(float(fastamfm.cider(hyps[i:i + 1], refs[i:i + 1], document_frequencies=frequencies)), 6)
    ...  for i in range(2)]
    [4.560726, 2.650222]
    """

    def __init__(self, *, max_order: int = 4, tokenize: str = "whitespace", lowercase: bool = False):
        self._tokenizer = make_tokenizer(tokenize, lowercase)
        self._table = _core.DocumentFrequency(max_order)

    def update(self, refs, *, workers: int = -1) -> "DocumentFrequencies":
        check_workers(workers, "DocumentFrequencies.update")
        if not isinstance(refs, References):
            refs = list(refs)
        refs = References.of(refs, what="DocumentFrequencies.update", workers=workers)
        self._table.add(refs.encoded_with(self._tokenizer, self.max_order), workers)
        return self

    def _empty_like(self) -> "DocumentFrequencies":
        out = DocumentFrequencies.__new__(DocumentFrequencies)
        out._tokenizer = self._tokenizer
        out._table = _core.DocumentFrequency(self.max_order)
        return out

    def __add__(self, other: "DocumentFrequencies") -> "DocumentFrequencies":
        if not isinstance(other, DocumentFrequencies):
            return NotImplemented
        if other.max_order != self.max_order or other.tokenizer.describe() != self.tokenizer.describe():
            raise ValueError(f"cannot add document frequencies of {self!r} and {other!r}")
        out = self._empty_like()
        for table in (self._table, other._table):
            keys, counts = table.entries()
            out._table.add_entries(keys, counts, table.num_segments)
        return out

    def to_json(self) -> dict:
        keys, counts = self._table.entries()
        return {"max_order": self.max_order, "tokenizer": [self._tokenizer.preset, self._tokenizer.lowercase],
                "segments": self.num_segments, "keys": base64.b64encode(keys.tobytes()).decode("ascii"),
                "counts": base64.b64encode(counts.tobytes()).decode("ascii")}

    @classmethod
    def from_json(cls, data: dict) -> "DocumentFrequencies":
        preset, lowercase = data["tokenizer"]
        out = cls(max_order=int(data["max_order"]), tokenize=preset, lowercase=bool(lowercase))
        keys = np.frombuffer(base64.b64decode(data["keys"]), dtype=np.uint64)
        counts = np.frombuffer(base64.b64decode(data["counts"]), dtype=np.uint32)
        out._table.add_entries(keys, counts, int(data["segments"]))
        return out

    @property
    def max_order(self) -> int:
        return self._table.max_order

    @property
    def num_segments(self) -> int:
        return self._table.num_segments

    @property
    def num_ngrams(self) -> int:
        return self._table.num_ngrams

    @property
    def tokenizer(self) -> _core.Tokenizer:
        return self._tokenizer

    @property
    def table(self) -> _core.DocumentFrequency:
        return self._table

    def count(self, ngram) -> int:
        """Segments whose references contain ``ngram`` (a str or a list of tokens)."""
        tokens = ngram.split() if isinstance(ngram, str) else list(ngram)
        return self._table.count(tokens)

    def __repr__(self) -> str:
        return (f"DocumentFrequencies({self.num_segments} segments, {self.num_ngrams} n-grams, "
                f"max_order={self.max_order}, {self._tokenizer.describe()})")


@register
class Cider(Metric):
    """CIDEr-D (see ``cider``)."""

    name = "cider"
    columns = ("CIDEr",)
    renamed_columns = {"cider_d": "CIDEr"}
    aliases = ("cider_d", "cider-d")
    default = True
    reference_pass = True

    def __init__(self, *, sigma: float = 6.0, max_order: int = 4,
                 document_frequencies: DocumentFrequencies | None = None, tokenize: str = "whitespace",
                 lowercase: bool = False, workers: int = -1):
        self.sigma = check_positive(sigma, "sigma", "cider")
        self.max_order = check_int(max_order, "max_order", 1, _core.MAX_NGRAM_ORDER, "cider")
        self.tokenizer = make_tokenizer(tokenize, lowercase)
        self.workers = check_workers(workers, "cider")
        if document_frequencies is not None:
            self._check_document_frequencies(document_frequencies)
            # Given from a larger corpus: no pass over these references.
            self.reference_pass = False
        self.document_frequencies = document_frequencies

    def _check_document_frequencies(self, df) -> None:
        if not isinstance(df, DocumentFrequencies):
            raise TypeError(f"cider: document_frequencies must be a fastamfm.DocumentFrequencies, got "
                            f"{type(df).__name__}")
        if df.max_order != self.max_order:
            raise ValueError(f"cider: document_frequencies were counted up to order {df.max_order}, "
                             f"max_order is {self.max_order}")
        if df.tokenizer.describe() != self.tokenizer.describe():
            raise ValueError(f"cider: document_frequencies use {df.tokenizer.describe()} but the metric "
                             f"{self.tokenizer.describe()}")
        if df.num_segments == 0:
            raise ValueError("cider: document_frequencies is empty; update() it with the references first")

    def signature(self) -> str:
        df = self.document_frequencies
        return make_signature("cider_d", sigma=self.sigma, max_order=self.max_order,
                              df="refs" if df is None else f"corpus[{df.num_segments}]",
                              tok=self.tokenizer.describe())

    def reserve(self, batch) -> None:
        batch.hyps.reserve(self.tokenizer, self.max_order)

    def reference_statistics(self, refs) -> DocumentFrequencies:
        """The document frequencies of these references alone (kept on them)."""
        def count():
            df = DocumentFrequencies(max_order=self.max_order, tokenize=self.tokenizer.preset,
                                     lowercase=self.tokenizer.lowercase)
            return df.update(refs, workers=self.workers)

        return refs.derived(("cider.document_frequencies", self.tokenizer.describe(), self.max_order), count)

    def reference_statistics_from_json(self, data: dict) -> DocumentFrequencies:
        frequencies = DocumentFrequencies.from_json(data)
        if frequencies.max_order != self.max_order or frequencies.tokenizer.describe() != self.tokenizer.describe():
            raise ValueError(f"document frequencies of order {frequencies.max_order} "
                             f"({frequencies.tokenizer.describe()}), expected {self.max_order} "
                             f"({self.tokenizer.describe()})")
        return frequencies

    def with_reference_statistics(self, statistics: Statistics) -> "Cider":
        return Cider(sigma=self.sigma, max_order=self.max_order,
                     document_frequencies=statistics_of(DocumentFrequencies, statistics, self.name),
                     tokenize=self.tokenizer.preset, lowercase=self.tokenizer.lowercase, workers=self.workers)

    def update(self, batch) -> Chunk:
        df = self.document_frequencies
        if df is None:
            raise RuntimeError("cider: document frequencies missing (the pipeline runs the reference pass first)")
        refs = batch.refs
        encoded = refs.encoded_with(self.tokenizer, self.max_order)
        model = refs.derived(("cider.reference_model", df),
                             lambda: _core.CiderReferenceModel(encoded, df.table, self.workers))
        sentences = _core.cider(batch.hyps.encoded(self.tokenizer, self.max_order), model, self.sigma, self.workers)
        columns = {"CIDEr": sentences}
        return Chunk(columns, MeanStatistics.of(columns))



def cider(hyps, refs, *, sigma: float = 6.0, max_order: int = 4,
          document_frequencies: DocumentFrequencies | None = None, tokenize: str = "whitespace",
          lowercase: bool = False, workers: int = -1, layout: str | None = None) -> MetricResult:
    """CIDEr-D per hypothesis and its mean: pycocoevalcap's ``Cider`` exactly.

    tf-idf weights ``tf * (log N - log max(1, df))`` with df counted over the given
    references (one count per segment; N = number of segments), clipped cosine per
    order, Gaussian length penalty ``e^(-d^2 / (2 sigma^2))`` where d is the difference
    of the *bigram* counts, mean over orders 1..max_order, mean over references, x10.
    A single segment scores 0 (log 1 = 0), as in nlg-eval. The corpus score is the
    correctly rounded mean of the sentence scores.

    ``document_frequencies``: counts from a larger corpus (see ``DocumentFrequencies``)
    for chunked scoring; by default they come from ``refs`` themselves.

    Parameters
    ----------
    hyps : sequence of str or Hypotheses
        The n responses.
    refs : sequence of sequences of str, or References
        ``refs[i]``: the references of ``hyps[i]`` (any count >= 1).
    sigma : float, default 6.0
        The width of the Gaussian length penalty (a positive number).
    max_order : int, default 4
        The highest n-gram order (1..16).
    document_frequencies : DocumentFrequencies, optional
        Document frequencies counted elsewhere, with the same ``max_order`` and tokenizer;
        None: counted over ``refs``.
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
        Column ``CIDEr``: ``.sentences["CIDEr"]`` (float64 [n]) and its mean ``.corpus["CIDEr"]``.

    Raises
    ------
    ValueError
        An option out of range or unknown; ``document_frequencies`` of another order or
        tokenizer, or empty; ``hyps`` empty, of another length than ``refs``, or a response
        without references.
    TypeError
        ``document_frequencies`` that is not a ``DocumentFrequencies``; ``hyps`` or ``refs``
        not a sequence of strings (of sequences of strings).

    Examples
    --------
    >>> import fastamfm
    >>> res = fastamfm.cider(["the cat sat on the mat", "a dog ran"],
    ...                      [["the cat sat on a mat", "a cat was on the mat"], ["the dog ran away"]])
    >>> res.sentences["CIDEr"].round(6).tolist()
    [4.560726, 2.650222]
    >>> round(res.corpus["CIDEr"], 6)
    3.605474
    >>> fastamfm.cider(["a dog ran"], [["the dog ran away"]]).corpus["CIDEr"]  # one segment: idf log(1) = 0
    0.0
    """
    return Cider(sigma=sigma, max_order=max_order, document_frequencies=document_frequencies, tokenize=tokenize,
                 lowercase=lowercase, workers=workers).score(hyps, refs, layout=layout)
