"""``fastamfm.adequacy``: AM, the adequacy half of AM-FM, for a batch of responses.

Every sentence is tokenized with the model's tokenizer, weighted as in training,
projected onto the first ``dims`` LSI dimensions and normalised; a response's AM
is ``max(0, cos(hyp, ref))`` combined over its references:

``max``       the largest, as the AM-FM paper does (default)
``mean``      the average
``centroid``  the cosine with the sum of the references' unit vectors

A sentence with no vocabulary word has no direction: its cosines are 0, so a
response without known words scores AM = 0 (and a reference without known words
never raises a score). All of it runs in C++ on ``workers`` threads. With
``fastamfm.References`` the references are tokenized once, and their projections
are cached per model and ``dims``, so scoring many systems re-encodes nothing.
"""
from __future__ import annotations

import weakref
from typing import Optional

import numpy as np

from . import _core
from ._backend import resolve_device
from ._validation import as_text_list
from .lsi import LsiModel
from .references import References, as_references
from .result import MetricResult, make_signature
from .tokenize import prepare_texts

__all__ = ["adequacy", "projected_references", "COMBINE_MODES"]

COMBINE_MODES = ("max", "mean", "centroid")

# References -> {(model fingerprint, dims): (unit vectors of every reference, segment offsets)}
_projected_references: "weakref.WeakKeyDictionary[References, dict]" = weakref.WeakKeyDictionary()


def projected_references(references: References, model: LsiModel, dims: int, workers: int = -1):
    """``(vectors, offsets)``: unit vectors of every reference (float32, one row per
    reference, segment after segment) and the n + 1 segment offsets (uint64), as the
    scoring core takes them. Cached with ``references`` per model and ``dims``."""
    cache = _projected_references.setdefault(references, {})
    key = (model.fingerprint, dims)
    if key not in cache:
        cache[key] = (model._core.reference_unit_vectors(references.encoded, dims, workers),
                      np.asarray(references.segment_offsets, dtype=np.uint64))
    return cache[key]


def adequacy(hyps, refs, model: LsiModel, *, dims: Optional[int] = None, combine: str = "max",
             workers: int = -1, device: str = "cpu") -> MetricResult:
    """AM of each response: ``.sentences`` (n scores in [0, 1]) and ``.corpus`` (their mean).

    ``refs``: one list of references per response, or ``fastamfm.References`` encoded
    with the model's tokenizer (``References(refs, tokenize=model.tokenizer.preset)``).
    ``dims``: how many of the model's dimensions to use (default: all).
    ``device``: "cpu", "cuda" (cosines over the references on the GPU; projection stays
    in the C++ core) or "auto". "centroid" has no CUDA kernel.
    """
    if not isinstance(model, LsiModel):
        raise TypeError(f"adequacy: model must be a fastamfm.LsiModel, got {type(model).__name__}")
    if combine not in COMBINE_MODES:
        raise ValueError(f"adequacy: combine must be one of {COMBINE_MODES}, got {combine!r}")
    dims = model.check_dims(dims, "adequacy")
    _core.resolve_workers(workers)
    device = resolve_device(device)
    if device == "cuda" and combine == "centroid":
        raise ValueError("adequacy: combine='centroid' has no CUDA kernel; use device='cpu' or combine='max'/'mean'")
    hyps = as_text_list(hyps, "hyps")
    tokenizer = model.tokenizer
    references = as_references(refs, len(hyps), tokenize=tokenizer.preset, lowercase=tokenizer.lowercase,
                               max_order=1, workers=workers, what="adequacy")
    hyp_vectors = model._core.unit_vectors(prepare_texts(hyps, tokenizer, "hyps"), dims, workers)
    ref_vectors, offsets = projected_references(references, model, dims, workers)
    if device == "cuda":
        from . import gpu

        scores = np.asarray(gpu.cosine_over_references(hyp_vectors, ref_vectors, offsets, combine=combine, clip=True),
                            dtype=np.float64)
    else:
        scores = _core.adequacy_scores(hyp_vectors, ref_vectors, offsets, combine, workers)
    signature = make_signature("am", combine=combine, dims=dims, model=model.fingerprint,
                               tok=tokenizer.describe(), weighting=model.weighting)
    return MetricResult("AM", float(scores.mean()), scores, signature)
