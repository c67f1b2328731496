"""CIDEr-D as pycocoevalcap 1.2's ``Cider`` (nlg-eval's "CIDEr"), with streaming.

CIDEr's idf comes from document frequencies over the references of the whole
evaluated corpus, so a corpus too large to hold is scored in two passes: feed every
reference chunk to a ``DocumentFrequencies``, then score each chunk with
``cider(..., document_frequencies=df)``; the per-segment scores are exactly those of
the whole-corpus run and the corpus score is their mean.
"""
from __future__ import annotations

import math
import weakref

import numpy as np

from .. import _core
from ..references import References, as_references
from ..result import MetricResult, make_signature
from ..tokenize import make_tokenizer
from ._inputs import check_workers, prepare

# Reference tf-idf vectors built from the references' own document frequencies,
# kept while the References object lives: scoring 20 systems against one References
# builds them once.
_OWN_DF_MODELS: "weakref.WeakKeyDictionary[References, dict]" = weakref.WeakKeyDictionary()


class DocumentFrequencies:
    """In how many segments each n-gram occurs among the references (CIDEr's idf).

    ``update(refs)`` adds a chunk of segments (raw ragged lists or ``References``,
    encoded with this object's tokenizer); ``num_segments`` is the N of ``log N``.
    """

    def __init__(self, *, max_order: int = 4, tokenize: str = "whitespace", lowercase: bool = False):
        self._tokenizer = make_tokenizer(tokenize, lowercase)
        self._tokenize, self._lowercase = tokenize, lowercase
        self._table = _core.DocumentFrequency(max_order)

    def update(self, refs, *, workers: int = -1) -> "DocumentFrequencies":
        check_workers(workers, "DocumentFrequencies.update")
        if not isinstance(refs, References):
            refs = list(refs)
        refs = as_references(refs, len(refs), tokenize=self._tokenize, lowercase=self._lowercase,
                             max_order=self.max_order, workers=workers, what="DocumentFrequencies.update")
        self._table.add(refs.encoded, workers)
        return self

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

    def count(self, ngram) -> int:
        """Segments whose references contain ``ngram`` (a str or a list of tokens)."""
        tokens = ngram.split() if isinstance(ngram, str) else list(ngram)
        return self._table.count(tokens)

    def __repr__(self) -> str:
        return (f"DocumentFrequencies({self.num_segments} segments, {self.num_ngrams} n-grams, "
                f"max_order={self.max_order}, {self._tokenizer.describe()})")


def _reference_model(refs: References, max_order: int, df: DocumentFrequencies | None, workers: int):
    if df is not None:
        if df.max_order != max_order:
            raise ValueError(f"cider: document_frequencies were counted up to order {df.max_order}, "
                             f"max_order is {max_order}")
        if df.tokenizer.describe() != refs.tokenizer.describe():
            raise ValueError(f"cider: document_frequencies use {df.tokenizer.describe()} but the references "
                             f"{refs.tokenizer.describe()}")
        if df.num_segments == 0:
            raise ValueError("cider: document_frequencies is empty; update() it with the references first")
        return _core.CiderReferenceModel(refs.encoded, df._table, workers)
    models = _OWN_DF_MODELS.setdefault(refs, {})
    if max_order not in models:
        table = _core.DocumentFrequency(max_order)
        table.add(refs.encoded, workers)
        models[max_order] = _core.CiderReferenceModel(refs.encoded, table, workers)
    return models[max_order]


def cider(hyps, refs, *, sigma: float = 6.0, max_order: int = 4,
          document_frequencies: DocumentFrequencies | None = None, tokenize: str = "whitespace",
          lowercase: bool = False, workers: int = -1) -> MetricResult:
    """CIDEr-D per hypothesis and its mean: pycocoevalcap's ``Cider`` exactly.

    tf-idf weights ``tf * (log N - log max(1, df))`` with df counted over the given
    references (one count per segment; N = number of segments), clipped cosine per
    order, Gaussian length penalty ``e^(-d^2 / (2 sigma^2))`` where d is the difference
    of the *bigram* counts, mean over orders 1..max_order, mean over references, x10.
    A single segment scores 0 (log 1 = 0), as in nlg-eval.

    ``document_frequencies``: counts from a larger corpus (see ``DocumentFrequencies``)
    for chunked scoring; by default they come from ``refs`` themselves.
    """
    if isinstance(sigma, bool) or not isinstance(sigma, (int, float)) or not (math.isfinite(sigma) and sigma > 0):
        raise ValueError(f"cider: sigma must be a positive number, got {sigma!r}")
    if isinstance(max_order, bool) or not isinstance(max_order, int) or not 1 <= max_order <= 16:
        raise ValueError(f"cider: max_order must be an int in 1..16, got {max_order!r}")
    if document_frequencies is not None and not isinstance(document_frequencies, DocumentFrequencies):
        raise TypeError("cider: document_frequencies must be a fastamfm.DocumentFrequencies, got "
                        f"{type(document_frequencies).__name__}")
    hyps, refs = prepare(hyps, refs, what="cider", tokenize=tokenize, lowercase=lowercase,
                          max_order=max_order, workers=workers)
    model = _reference_model(refs, max_order, document_frequencies, workers)
    sentences = _core.cider(hyps.encoded, model, float(sigma), workers)
    df_source = "refs" if document_frequencies is None else f"external[{document_frequencies.num_segments}]"
    signature = make_signature("cider_d", sigma=sigma, max_order=max_order, df=df_source,
                               tok=refs.tokenizer.describe())
    # np.mean, as pycocoevalcap, so the corpus value matches to the last bit.
    return MetricResult(name="cider_d", corpus=float(np.mean(sentences)), sentences=sentences,
                        signature=signature)
