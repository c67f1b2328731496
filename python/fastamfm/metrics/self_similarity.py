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
    result is named ``self_<metric>``.

    Parameters
    ----------
    responses : sequence of str
        The set of responses (at least 2).
    metric : str, default "chrf"
        A metric with a pairwise form (see ``fastamfm.pairwise``).
    workers : int, default -1
        Threads (-1: every core).
    **options
        The metric's own options, as ``fastamfm.pairwise`` takes them.

    Returns
    -------
    MetricResult
        Column ``self_<metric>`` (the metric's registry name): ``.sentences`` (float64 [n])
        and their mean in ``.corpus``, on the metric's scale (higher: less diverse).

    Raises
    ------
    ValueError
        Fewer than 2 responses, an unknown metric or one without a pairwise form.
    TypeError
        ``responses`` not a sequence of strings.

    Examples
    --------
    >>> import fastamfm
    >>> res = fastamfm.self_similarity(["the cat sat on the mat", "the cat sat on a mat", "a dog ran"])
    >>> res.sentences["self_chrf"].round(4).tolist()
    [39.7461, 36.8658, 4.7098]
    >>> round(res.corpus["self_chrf"], 4)
    27.1072
    """
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
