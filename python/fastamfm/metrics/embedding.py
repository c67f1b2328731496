"""Embedding Average, Vector Extrema and Greedy Matching (Liu et al. 2016) as nlg-eval computes them.

Per hypothesis and reference (tokens: whitespace split, lowercased when the
vectors were loaded with ``lowercase=True``; words looked up in ``vectors``):

- Embedding Average: cosine of the sums of the token vectors;
- Vector Extrema: cosine of the per-dimension extrema (the value of largest
  magnitude; nlg-eval's rule gives 0 to a dimension whose minimum is exactly 0,
  and so does this);
- Greedy Matching: (mean over hypothesis tokens of the best cosine with a
  reference token + mean over reference tokens of the best cosine with a
  hypothesis token) / 2.

The sentence score is the maximum over the references; the corpus score the mean
over hypotheses. A cosine involving a zero vector is 0 (as sklearn's
``cosine_similarity`` gives). Unknown words follow ``vectors.oov``.

Empty texts: nlg-eval fails (an assertion) on a hypothesis or reference without
tokens. Here ``empty="error"`` (default) raises a ValueError naming it
(``hyps[3]`` / ``refs[3][0]``); ``empty="zero"`` scores such a text 0 against
anything. Under ``oov="skip"`` a text whose every word lacks a vector counts as
empty.

Tokenization note: nlg-eval itself splits with ``nltk.word_tokenize``; these
functions use the whitespace split of the other nlg-eval metrics, which is the same
on pre-tokenized text but splits e.g. ``<USER>`` and ``don't`` differently.
"""
from __future__ import annotations

import numpy as np

from .. import _core
from .._validation import as_text_list
from ..references import References, as_references
from ..result import MetricResult, make_signature
from ..tokenize import prepare_texts
from ..vectors import WordVectors

NLGEVAL_KEYS = {
    "average": "EmbeddingAverageCosineSimilarity",
    "extrema": "VectorExtremaCosineSimilarity",
    "greedy": "GreedyMatchingScore",
}
EMPTY_POLICIES = ("error", "zero")


def _sentence_scores(hyps, refs, vectors, which: tuple[str, ...], workers: int, empty: str, what: str):
    if not isinstance(vectors, WordVectors):
        raise TypeError(f"{what}: vectors must be a fastamfm.WordVectors (WordVectors.load(path) or "
                        f"WordVectors.from_lsi(model)), got {type(vectors).__name__}")
    if empty not in EMPTY_POLICIES:
        raise ValueError(f"{what}: empty must be one of {EMPTY_POLICIES}, got {empty!r}")
    hyps = as_text_list(hyps, "hyps")
    tokenizer = vectors.tokenizer
    reused = isinstance(refs, References)
    refs = as_references(refs, len(hyps), tokenize="whitespace", lowercase=vectors.lowercase, max_order=1,
                         workers=workers, what=what)
    prepared = prepare_texts(hyps, tokenizer, "hyps")
    average, extrema, greedy = _core.embedding_scores(
        vectors.embed_references(refs, workers, reused=reused), prepared, tokenizer,
        "average" in which, "extrema" in which, "greedy" in which, empty, what, workers)
    return {"average": average, "extrema": extrema, "greedy": greedy}


def _result(name: str, sentences: np.ndarray, vectors: WordVectors, empty: str) -> MetricResult:
    signature = make_signature(name, vectors=vectors.describe(), oov=vectors.oov, tok=vectors.tokenizer.describe(),
                               empty=empty)
    return MetricResult(name=name, corpus=float(sentences.mean()), sentences=sentences, signature=signature)


def embedding_average(hyps, refs, *, vectors: WordVectors, workers: int = -1, empty: str = "error") -> MetricResult:
    """nlg-eval's EmbeddingAverageCosineSimilarity: ``.corpus`` float, ``.sentences`` [n]."""
    scores = _sentence_scores(hyps, refs, vectors, ("average",), workers, empty, "embedding_average")
    return _result("embedding_average", scores["average"], vectors, empty)


def vector_extrema(hyps, refs, *, vectors: WordVectors, workers: int = -1, empty: str = "error") -> MetricResult:
    """nlg-eval's VectorExtremaCosineSimilarity: ``.corpus`` float, ``.sentences`` [n]."""
    scores = _sentence_scores(hyps, refs, vectors, ("extrema",), workers, empty, "vector_extrema")
    return _result("vector_extrema", scores["extrema"], vectors, empty)


def greedy_matching(hyps, refs, *, vectors: WordVectors, workers: int = -1, empty: str = "error") -> MetricResult:
    """nlg-eval's GreedyMatchingScore: ``.corpus`` float, ``.sentences`` [n]."""
    scores = _sentence_scores(hyps, refs, vectors, ("greedy",), workers, empty, "greedy_matching")
    return _result("greedy_matching", scores["greedy"], vectors, empty)


def embedding_metrics(hyps, refs, *, vectors: WordVectors, workers: int = -1, empty: str = "error") -> dict[str, float]:
    """All three in one pass, keyed as nlg-eval names them (for ``compute_metrics``)."""
    scores = _sentence_scores(hyps, refs, vectors, tuple(NLGEVAL_KEYS), workers, empty, "embedding_metrics")
    return {key: float(scores[name].mean()) for name, key in NLGEVAL_KEYS.items()}
