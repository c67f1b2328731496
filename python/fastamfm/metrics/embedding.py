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

``device="cuda"`` (or "auto") runs the three metrics with the CUDA kernels of
``fastamfm.gpu`` on token rows built by ``cuda_inputs``; float32 on the device.

Tokenization note: nlg-eval itself splits with ``nltk.word_tokenize``; these
functions use the whitespace split of the other nlg-eval metrics, which is the same
on pre-tokenized text but splits e.g. ``<USER>`` and ``don't`` differently.
"""
from __future__ import annotations

import numpy as np

from .. import _core
from .._backend import resolve_device
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
_KERNELS = {"average": "embedding_average", "extrema": "vector_extrema", "greedy": "greedy_matching"}


def cuda_inputs(hyps, refs, vectors: WordVectors, what: str):
    """Token rows for the CUDA kernels: (hyp (ids, offsets), ref (ids, offsets), ref_offsets, table).

    Tokens are split and looked up exactly as on the CPU; the unknown-word policy is
    applied here: ``mean`` and ``zero`` point at one extra row of the table holding
    the mean (or zero) vector, ``skip`` drops the token. Texts left without tokens
    raise the same errors as the CPU path (only ``empty="error"`` runs on CUDA).
    """
    from .. import gpu
    from ..tokenize import tokenize

    hyps = as_text_list(hyps, "hyps")
    refs = as_references(refs, len(hyps), tokenize="whitespace", lowercase=vectors.lowercase, max_order=1,
                         what=what)
    index = {word: row for row, word in enumerate(vectors.vocabulary)}
    extra_row = len(index)
    oov_row = None if vectors.oov == "skip" else extra_row

    def rows(texts, name_of):
        ids = []
        for i, tokens in enumerate(tokenize(texts, preset="whitespace", lowercase=vectors.lowercase)):
            row = [index.get(t, oov_row) for t in tokens]
            row = [r for r in row if r is not None]
            if not row:
                raise ValueError(f"{what}: {name_of(i)} has no token with a vector (empty text); "
                                 f"use device='cpu' with empty='zero' to score it 0")
            ids.append(row)
        return gpu.token_rows(ids)

    offsets = refs.segment_offsets
    segment_of = np.repeat(np.arange(len(refs)), np.diff(offsets))
    hyp_rows = rows(hyps, lambda i: f"hyps[{i}]")
    ref_rows = rows(refs.flat_texts, lambda j: f"refs[{segment_of[j]}][{j - offsets[segment_of[j]]}]")
    fill = vectors.mean if vectors.oov == "mean" else np.zeros(vectors.dim)
    table = np.vstack([vectors.vectors, fill.astype(np.float32)[None, :]])
    return hyp_rows, ref_rows, np.asarray(offsets, dtype=np.int64), table


def _cuda_sentence_scores(hyps, refs, vectors, which, empty: str, what: str):
    from .. import gpu

    if empty != "error":
        raise ValueError(f"{what}: empty={empty!r} is only supported on device='cpu'")
    hyp_rows, ref_rows, ref_offsets, table = cuda_inputs(hyps, refs, vectors, what)
    return {name: np.asarray(getattr(gpu, _KERNELS[name])(hyp_rows, ref_rows, ref_offsets, table), dtype=np.float64)
            for name in which}


def _sentence_scores(hyps, refs, vectors, which: tuple[str, ...], workers: int, empty: str, what: str,
                     device: str = "cpu"):
    if not isinstance(vectors, WordVectors):
        raise TypeError(f"{what}: vectors must be a fastamfm.WordVectors (WordVectors.load(path) or "
                        f"WordVectors.from_lsi(model)), got {type(vectors).__name__}")
    if empty not in EMPTY_POLICIES:
        raise ValueError(f"{what}: empty must be one of {EMPTY_POLICIES}, got {empty!r}")
    if resolve_device(device) == "cuda":
        return _cuda_sentence_scores(hyps, refs, vectors, which, empty, what)
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


def embedding_average(hyps, refs, *, vectors: WordVectors, workers: int = -1, empty: str = "error",
                      device: str = "cpu") -> MetricResult:
    """nlg-eval's EmbeddingAverageCosineSimilarity: ``.corpus`` float, ``.sentences`` [n]."""
    scores = _sentence_scores(hyps, refs, vectors, ("average",), workers, empty, "embedding_average", device)
    return _result("embedding_average", scores["average"], vectors, empty)


def vector_extrema(hyps, refs, *, vectors: WordVectors, workers: int = -1, empty: str = "error",
                   device: str = "cpu") -> MetricResult:
    """nlg-eval's VectorExtremaCosineSimilarity: ``.corpus`` float, ``.sentences`` [n]."""
    scores = _sentence_scores(hyps, refs, vectors, ("extrema",), workers, empty, "vector_extrema", device)
    return _result("vector_extrema", scores["extrema"], vectors, empty)


def greedy_matching(hyps, refs, *, vectors: WordVectors, workers: int = -1, empty: str = "error",
                    device: str = "cpu") -> MetricResult:
    """nlg-eval's GreedyMatchingScore: ``.corpus`` float, ``.sentences`` [n]."""
    scores = _sentence_scores(hyps, refs, vectors, ("greedy",), workers, empty, "greedy_matching", device)
    return _result("greedy_matching", scores["greedy"], vectors, empty)


def embedding_metrics(hyps, refs, *, vectors: WordVectors, workers: int = -1, empty: str = "error",
                      device: str = "cpu") -> dict[str, float]:
    """All three in one pass, keyed as nlg-eval names them (for ``compute_metrics``)."""
    scores = _sentence_scores(hyps, refs, vectors, tuple(NLGEVAL_KEYS), workers, empty, "embedding_metrics", device)
    return {key: float(scores[name].mean()) for name, key in NLGEVAL_KEYS.items()}
