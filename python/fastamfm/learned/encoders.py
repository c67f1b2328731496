"""Sentence vectors for ADEM: the classic LSI projection or any ``.encode`` encoder.

An encoder here is any object with ``encode(list[str]) -> ndarray[n, d]``
(``fastamfm.deep.SentenceEncoder``, a sentence-transformers model, ...). ``LsiEncoder``
makes an ``LsiModel`` one, so ADEM runs without torch. ``describe_encoder`` gives the
record a saved scorer keeps, so that loading can check it is handed the same encoder.

Vectors are L2-normalised (a sentence without known words stays zero): the bilinear
model then compares directions, as AM's cosine does, whatever the sentence length.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class LsiEncoder:
    """``LsiModel.transform`` as an encoder (``dims``: the leading LSI dimensions used)."""

    def __init__(self, lsi, dims: int | None = None):
        from ..amfm.lsi import LsiModel

        if not isinstance(lsi, LsiModel):
            raise TypeError(f"LsiEncoder needs a fastamfm.LsiModel, got {type(lsi).__name__}")
        self.lsi = lsi
        self.dims = lsi.check_dims(dims, "LsiEncoder")

    @property
    def signature(self) -> str:
        return f"lsi:{self.lsi.fingerprint}:{self.dims}"

    def encode(self, sentences) -> np.ndarray:
        return self.lsi.transform(list(sentences), dims=self.dims)


def resolve_encoder(encoder):
    """``None`` -> the LSI of the packaged AM-FM model; an ``LsiModel`` or ``AMFM`` -> its
    LSI; a trained evaluator's directory (``fastamfm train --evaluator``) -> its dialogue
    encoder; any object with ``encode`` -> itself."""
    import os

    from ..amfm.lsi import LsiModel
    from ..amfm.scorer import AMFM
    from ..evaluator.model_directory import is_evaluator_directory

    if isinstance(encoder, (str, os.PathLike)) and is_evaluator_directory(encoder):
        from ..evaluator.metric import load_evaluator

        return load_evaluator(encoder).encoder
    if encoder is None:
        return LsiEncoder(AMFM.default().lsi)
    if isinstance(encoder, AMFM):
        return LsiEncoder(encoder.lsi, encoder.dims)
    if isinstance(encoder, LsiModel):
        return LsiEncoder(encoder)
    if isinstance(encoder, (str, bytes)):
        # str.encode exists but is no sentence encoder.
        raise TypeError(f"encoder must be an encoder object or an evaluator directory, not the string {encoder!r} "
                        "(e.g. fastamfm.deep.SentenceEncoder.load(...), an LsiModel, an AMFM)")
    if callable(getattr(encoder, "encode", None)):
        return encoder
    raise TypeError(f"encoder must be None (the packaged LSI), an LsiModel, an AMFM, an evaluator directory or an "
                    f"object with .encode(list[str]) -> ndarray, got {type(encoder).__name__}")


def describe_encoder(encoder) -> str:
    """What identifies the encoder in a saved scorer: its ``signature`` attribute when it
    has one (LSI: the model's content hash), else its type name."""
    signature = getattr(encoder, "signature", None)
    if isinstance(signature, str) and signature:
        return signature
    return f"{type(encoder).__module__}.{type(encoder).__qualname__}"


def _unit_rows(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def encode_texts(encoder, texts: Sequence[str]) -> np.ndarray:
    """Unit vectors of ``texts`` (float64, n x d); each distinct text is encoded once."""
    unique = list(dict.fromkeys(texts))
    if not unique:
        raise ValueError("nothing to encode")
    vectors = np.asarray(encoder.encode(unique), dtype=np.float64)
    if vectors.ndim != 2 or vectors.shape[0] != len(unique):
        raise ValueError(f"the encoder returned shape {vectors.shape} for {len(unique)} sentences; "
                         f"expected ({len(unique)}, d)")
    if not np.isfinite(vectors).all():
        raise ValueError("the encoder returned non-finite values")
    row = {text: i for i, text in enumerate(unique)}
    return _unit_rows(vectors)[[row[t] for t in texts]]


def context_vectors(encoder, contexts: Sequence[Sequence[str]], decay: float) -> np.ndarray:
    """One unit vector per dialogue context: the turns' unit vectors averaged with weight
    ``decay**k`` for the turn k places before the last (``decay=0``: the last turn only).
    An empty context gives a zero vector."""
    turns = [t for context in contexts for t in context]
    if not turns:
        raise ValueError("every context is empty")
    vectors = encode_texts(encoder, turns)
    lengths = np.array([len(context) for context in contexts])
    ends = np.cumsum(lengths)
    # Turns back from the last of its context: k = end of its context - 1 - its index.
    back = np.repeat(ends, lengths) - 1 - np.arange(len(turns))
    weighted = vectors * (decay ** back)[:, None]  # 0**0 = 1: decay 0 keeps the last turn
    out = np.zeros((len(contexts), vectors.shape[1]))
    present = lengths > 0
    out[present] = np.add.reduceat(weighted, (ends - lengths)[present], axis=0)
    return _unit_rows(out)


def reference_vectors(encoder, refs: Sequence[Sequence[str]]) -> np.ndarray:
    """One vector per response: the mean of its references' unit vectors. The bilinear
    term rᵀN r̂ of the mean is the mean of the per-reference terms."""
    flat = [r for group in refs for r in group]
    vectors = encode_texts(encoder, flat)
    counts = np.array([len(group) for group in refs])
    segment = np.repeat(np.arange(len(refs)), counts)
    sums = np.zeros((len(refs), vectors.shape[1]))
    np.add.at(sums, segment, vectors)
    return sums / counts[:, None]
