"""Distinct-n (Li et al. 2016): the share of n-grams that are distinct."""
from __future__ import annotations

import numpy as np

from .. import _core
from ..result import make_signature
from ._inputs import check_workers, encoded_hypotheses


def _ratio(unique: np.ndarray, total: np.ndarray) -> np.ndarray:
    out = np.zeros(unique.shape, dtype=np.float64)
    np.divide(unique, total, out=out, where=total > 0)
    return out


def distinct(hyps, *, orders=(1, 2), tokenize: str = "whitespace", lowercase: bool = False,
             workers: int = -1) -> dict:
    """Distinct-n over all responses and per response.

    Returns a dict with ``"distinct_<n>"`` (corpus: distinct n-grams over all responses /
    all n-grams; 0 when there is none) for each n in ``orders``, ``"sentences"``
    (ndarray[n_responses, len(orders)]: the same ratio within each response, 0 for a
    response shorter than n), ``"orders"``, the raw counts ``"unique"``, ``"total"``
    (per response) and ``"corpus_unique"``, ``"corpus_total"``, and ``"signature"``.
    """
    check_workers(workers, "distinct")
    if isinstance(orders, int):
        orders = (orders,)
    orders = tuple(orders)
    if not orders or any(isinstance(o, bool) or not isinstance(o, int) or not 1 <= o <= 16 for o in orders):
        raise ValueError(f"distinct: orders must be a non-empty sequence of ints in 1..16, got {orders!r}")
    hyps = encoded_hypotheses(hyps, what="distinct", tokenize=tokenize, lowercase=lowercase, max_order=1,
                              workers=workers)
    counts = _core.distinct(hyps.encoded, list(orders), workers)
    corpus = _ratio(counts["corpus_unique"], counts["corpus_total"])
    result = {f"distinct_{n}": float(corpus[k]) for k, n in enumerate(orders)}
    result.update(
        sentences=_ratio(counts["unique"], counts["total"]),
        orders=orders,
        unique=counts["unique"],
        total=counts["total"],
        corpus_unique=counts["corpus_unique"],
        corpus_total=counts["corpus_total"],
        signature=make_signature("distinct", orders=",".join(map(str, orders)), tok=hyps.tokenizer.describe()),
    )
    return result
