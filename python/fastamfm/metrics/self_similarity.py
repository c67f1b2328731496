"""The ``self_`` form of any metric ``pairwise`` takes: how alike the responses of one set
are, each response's mean score against every other response alone. Higher means less
diverse.

``self_similarity(texts, metric="chrf").sentences[i]`` is the mean over j != i of
``pairwise(texts, metric="chrf")[i, j]`` (the metric's sentence score of response i with
the single reference response j), ``.corpus`` the mean of those: the "pairwise" diversity
figure of the MBR and sampling literature, on the metric's own scale. Self-BLEU
(``self_bleu``) is another quantity: one BLEU per response with all the others as its
references at once, Texygen's definition, so BLEU keeps its own function.
"""
from __future__ import annotations

import numpy as np

from .._validation import as_text_list
from ..result import MetricResult, make_signature
from .pairwise import pairwise


def self_similarity(responses, *, metric: str = "chrf", workers: int = -1, **options) -> MetricResult:
    """Each response's mean ``metric`` score against every other response of the set alone
    (see the module docstring); ``metric`` and ``options`` as ``fastamfm.pairwise``. The
    result is named ``self_<metric>``."""
    from .. import registry

    responses = as_text_list(responses, "responses")
    if len(responses) < 2:
        raise ValueError(f"self_similarity: needs at least 2 responses (each is scored against the others), "
                         f"got {len(responses)}")
    name = registry.metric_class(metric).name
    matrix = pairwise(responses, metric=name, workers=workers, **options).astype(np.float64)
    np.fill_diagonal(matrix, 0.0)
    sentences = matrix.sum(axis=1) / (len(responses) - 1)
    settings = {key: repr(value) for key, value in options.items()}
    signature = make_signature(f"self_{name}", of=name, refs="each-other-alone", **settings)
    return MetricResult(f"self_{name}", {f"self_{name}": float(sentences.mean())}, {f"self_{name}": sentences},
                        signature)
