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

import os

import numpy as np

from .. import _core
from .._validation import check_choice, check_workers
from ..references import References
from ..registry import Chunk, MeanStatistics, Metric, register
from ..result import make_signature
from ..runtime import cuda_module, is_cuda, resolve_device
from ..tokenization import prepare_texts
from .vectors import WordVectors

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
    from ..tokenization import tokenize

    refs = References.of(refs, len(hyps), what=what)
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


def _vectors_option(vectors):
    """``vectors=`` of a shared option dict: a WordVectors, or a path to load."""
    if isinstance(vectors, (str, os.PathLike)):
        return WordVectors.load(vectors)
    return vectors


class _EmbeddingMetric(Metric):
    """One of the three embedding metrics. The three share one pass over the tokens:
    the first of them scored on a batch computes every one of them the batch asks for."""

    kind = ""          # "average" | "extrema" | "greedy"
    default = True

    def __init__(self, *, vectors: WordVectors, empty: str = "error", device: str = "cpu", workers: int = -1):
        vectors = _vectors_option(vectors)
        if not isinstance(vectors, WordVectors):
            raise TypeError(f"{self.name}: vectors must be a fastamfm.WordVectors (WordVectors.load(path) or "
                            f"WordVectors.from_lsi(model)), got {type(vectors).__name__}")
        self.vectors = vectors
        self.empty = check_choice(empty, "empty", EMPTY_POLICIES, self.name)
        self.device = resolve_device(device)
        if is_cuda(self.device) and empty != "error":
            raise ValueError(f"{self.name}: empty={empty!r} is only supported on device='cpu'")
        self.workers = check_workers(workers, self.name)

    @classmethod
    def missing(cls, **options) -> str | None:
        if options.get("vectors") is None:
            return ("no word vectors given: pass vectors=fastamfm.WordVectors.load(path) or a path to GloVe "
                    "text, word2vec binary or fastText .vec vectors")
        return None

    @classmethod
    def needs_option(cls, **options) -> bool:
        return options.get("vectors") is None

    def signature(self) -> str:
        return make_signature(self.name, vectors=self.vectors.describe(), oov=self.vectors.oov,
                              tok=self.vectors.tokenizer.describe(), empty=self.empty)

    def _scores(self, batch) -> dict:
        kinds = tuple(k for name, k in _KINDS.items() if name in batch.metrics or name == self.name)
        key = ("embedding.scores", self.vectors.describe(), self.vectors.oov, self.empty, self.device)

        def compute():
            hyps, refs = batch.hyps.texts, batch.refs
            if is_cuda(self.device):
                from .. import gpu

                cuda_module(self.device)      # its GPU current in this thread: the kernels run there

                hyp_rows, ref_rows, ref_offsets, table = cuda_inputs(hyps, refs, self.vectors, self.name)
                return {k: np.asarray(getattr(gpu, _KERNELS[k])(hyp_rows, ref_rows, ref_offsets, table),
                                      dtype=np.float64) for k in _KINDS.values()}
            tokenizer = self.vectors.tokenizer
            average, extrema, greedy = _core.embedding_scores(
                self.vectors.embed_references(refs, self.workers), prepare_texts(hyps, tokenizer, "hyps"),
                tokenizer, "average" in kinds, "extrema" in kinds, "greedy" in kinds, self.empty, self.name,
                self.workers)
            return {"average": average, "extrema": extrema, "greedy": greedy}

        scores = batch.hyps.derived(key, compute)
        if scores[self.kind] is None:  # a sibling computed the others without this one
            scores = dict(scores)
            scores.update({k: v for k, v in compute().items() if v is not None})
        return scores

    def update(self, batch) -> Chunk:
        columns = {self.columns[0]: self._scores(batch)[self.kind]}
        return Chunk(columns, MeanStatistics.of(columns))


@register
class EmbeddingAverage(_EmbeddingMetric):
    """nlg-eval's EmbeddingAverageCosineSimilarity (and its misspelled twin key)."""

    name = "embedding_average"
    columns = ("EmbeddingAverageCosineSimilarity",)
    # nlg-eval emits this misspelling beside the correct key.
    aliases = ("EmbeddingAverageCosineSimilairty",)
    kind = "average"


@register
class VectorExtrema(_EmbeddingMetric):
    """nlg-eval's VectorExtremaCosineSimilarity."""

    name = "vector_extrema"
    columns = ("VectorExtremaCosineSimilarity",)
    kind = "extrema"


@register
class GreedyMatching(_EmbeddingMetric):
    """nlg-eval's GreedyMatchingScore."""

    name = "greedy_matching"
    columns = ("GreedyMatchingScore",)
    kind = "greedy"


_KINDS = {cls.name: cls.kind for cls in (EmbeddingAverage, VectorExtrema, GreedyMatching)}


def embedding_average(hyps, refs, *, vectors: WordVectors, workers: int = -1, empty: str = "error",
                      device: str = "cpu", layout: str | None = None):
    """nlg-eval's EmbeddingAverageCosineSimilarity: column ``EmbeddingAverageCosineSimilarity``.

    The cosine of the summed token vectors of the response and of a reference, the best
    reference per response, the mean over responses (see the module docstring).

    Parameters
    ----------
    hyps : sequence of str or Hypotheses
        The n responses.
    refs : sequence of sequences of str, or References
        ``refs[i]``: the references of ``hyps[i]`` (any count >= 1).
    vectors : WordVectors or path
        The word vectors (``WordVectors.load``, ``WordVectors.from_arrays``, ...) or a path to load.
    workers : int, default -1
        Threads (-1: every core).
    empty : {"error", "zero"}, default "error"
        A text without tokens: raise (as nlg-eval fails) or score it 0.
    device : str, default "cpu"
        "cpu", "cuda", "cuda:N" or "auto" (``fastamfm.resolve_device``); CUDA only with ``empty="error"``.
    layout : {None, "responses", "streams"}, optional
        How a plain list ``refs`` is laid out (see ``References.of``).

    Returns
    -------
    MetricResult
        ``.sentences["EmbeddingAverageCosineSimilarity"]`` (float64 [n]) and its mean in ``.corpus``.

    Raises
    ------
    ValueError
        A text without tokens under ``empty="error"`` (named: ``hyps[3]``, ``refs[3][0]``), an
        unknown ``empty``, ``empty="zero"`` on CUDA; ``hyps`` empty, of another length than
        ``refs``, or a response without references.
    TypeError
        ``vectors`` not a ``WordVectors`` or path; ``hyps`` or ``refs`` not a sequence of strings.
    RuntimeError
        A CUDA ``device`` asked for where CUDA is unavailable.

    Examples
    --------
    >>> import numpy as np
    >>> import fastamfm
    >>> vectors = fastamfm.WordVectors.from_arrays(
    ...     ["cat", "dog", "mat", "sat"], np.array([[1, 0.2], [0.8, 0.6], [0.1, 1], [0.6, 0.8]]))
    >>> res = fastamfm.embedding_average(["cat sat", "dog"], [["cat sat mat", "dog sat"], ["cat"]], vectors=vectors)
    >>> res.sentences["EmbeddingAverageCosineSimilarity"].round(6).tolist()
    [0.974391, 0.902134]
    """
    return EmbeddingAverage(vectors=vectors, empty=empty, device=device, workers=workers).score(
        hyps, refs, layout=layout)


def vector_extrema(hyps, refs, *, vectors: WordVectors, workers: int = -1, empty: str = "error",
                   device: str = "cpu", layout: str | None = None):
    """nlg-eval's VectorExtremaCosineSimilarity: column ``VectorExtremaCosineSimilarity``.

    The cosine of the per-dimension extrema (the value of largest magnitude) of the token
    vectors, the best reference per response, the mean over responses (see the module
    docstring).

    Parameters
    ----------
    hyps : sequence of str or Hypotheses
        The n responses.
    refs : sequence of sequences of str, or References
        ``refs[i]``: the references of ``hyps[i]`` (any count >= 1).
    vectors : WordVectors or path
        The word vectors (``WordVectors.load``, ``WordVectors.from_arrays``, ...) or a path to load.
    workers : int, default -1
        Threads (-1: every core).
    empty : {"error", "zero"}, default "error"
        A text without tokens: raise (as nlg-eval fails) or score it 0.
    device : str, default "cpu"
        "cpu", "cuda", "cuda:N" or "auto" (``fastamfm.resolve_device``); CUDA only with ``empty="error"``.
    layout : {None, "responses", "streams"}, optional
        How a plain list ``refs`` is laid out (see ``References.of``).

    Returns
    -------
    MetricResult
        ``.sentences["VectorExtremaCosineSimilarity"]`` (float64 [n]) and its mean in ``.corpus``.

    Raises
    ------
    ValueError
        A text without tokens under ``empty="error"`` (named: ``hyps[3]``, ``refs[3][0]``), an
        unknown ``empty``, ``empty="zero"`` on CUDA; ``hyps`` empty, of another length than
        ``refs``, or a response without references.
    TypeError
        ``vectors`` not a ``WordVectors`` or path; ``hyps`` or ``refs`` not a sequence of strings.
    RuntimeError
        A CUDA ``device`` asked for where CUDA is unavailable.

    Examples
    --------
    >>> import numpy as np
    >>> import fastamfm
    >>> vectors = fastamfm.WordVectors.from_arrays(
    ...     ["cat", "dog", "mat", "sat"], np.array([[1, 0.2], [0.8, 0.6], [0.1, 1], [0.6, 0.8]]))
    >>> res = fastamfm.vector_extrema(["cat sat", "dog"], [["cat sat mat", "dog sat"], ["cat"]], vectors=vectors)
    >>> res.sentences["VectorExtremaCosineSimilarity"].round(6).tolist()
    [0.993884, 0.902134]
    """
    return VectorExtrema(vectors=vectors, empty=empty, device=device, workers=workers).score(hyps, refs, layout=layout)


def greedy_matching(hyps, refs, *, vectors: WordVectors, workers: int = -1, empty: str = "error",
                    device: str = "cpu", layout: str | None = None):
    """nlg-eval's GreedyMatchingScore: column ``GreedyMatchingScore``.

    The mean, over the two directions, of the mean best token cosine of each token of one
    text against the tokens of the other; the best reference per response, the mean over
    responses (see the module docstring).

    Parameters
    ----------
    hyps : sequence of str or Hypotheses
        The n responses.
    refs : sequence of sequences of str, or References
        ``refs[i]``: the references of ``hyps[i]`` (any count >= 1).
    vectors : WordVectors or path
        The word vectors (``WordVectors.load``, ``WordVectors.from_arrays``, ...) or a path to load.
    workers : int, default -1
        Threads (-1: every core).
    empty : {"error", "zero"}, default "error"
        A text without tokens: raise (as nlg-eval fails) or score it 0.
    device : str, default "cpu"
        "cpu", "cuda", "cuda:N" or "auto" (``fastamfm.resolve_device``); CUDA only with ``empty="error"``.
    layout : {None, "responses", "streams"}, optional
        How a plain list ``refs`` is laid out (see ``References.of``).

    Returns
    -------
    MetricResult
        ``.sentences["GreedyMatchingScore"]`` (float64 [n]) and its mean in ``.corpus``.

    Raises
    ------
    ValueError
        A text without tokens under ``empty="error"`` (named: ``hyps[3]``, ``refs[3][0]``), an
        unknown ``empty``, ``empty="zero"`` on CUDA; ``hyps`` empty, of another length than
        ``refs``, or a response without references.
    TypeError
        ``vectors`` not a ``WordVectors`` or path; ``hyps`` or ``refs`` not a sequence of strings.
    RuntimeError
        A CUDA ``device`` asked for where CUDA is unavailable.

    Examples
    --------
    >>> import numpy as np
    >>> import fastamfm
    >>> vectors = fastamfm.WordVectors.from_arrays(
    ...     ["cat", "dog", "mat", "sat"], np.array([[1, 0.2], [0.8, 0.6], [0.1, 1], [0.6, 0.8]]))
    >>> res = fastamfm.greedy_matching(["cat sat", "dog"], [["cat sat mat", "dog sat"], ["cat"]], vectors=vectors)
    >>> res.sentences["GreedyMatchingScore"].round(6).tolist()
    [0.975955, 0.902134]
    """
    return GreedyMatching(vectors=vectors, empty=empty, device=device, workers=workers).score(hyps, refs, layout=layout)
