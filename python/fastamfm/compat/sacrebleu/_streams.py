"""sacrebleu's input layout, checked and turned into fastamfm's.

sacrebleu takes the hypotheses as one stream and the references as K *streams*:
``refs[j][i]`` is the j-th reference of hypothesis i, and a stream holds ``None`` where
hypothesis i has fewer than K references (its variable reference count). fastamfm takes
the references of each response (``refs[i]``), so the streams are transposed here, once
(``fastamfm.references.transpose_streams``, as ``References.from_streams`` does), and the
``None`` entries dropped. An empty string is a reference (of length 0), as in
sacrebleu 2.6.0; only ``None`` means "missing".
"""
from __future__ import annotations

from collections.abc import Sequence

from ...references import transpose_streams

# The signature's nrefs when segments have different reference counts (printed "var").
VARIABLE_REFS = -1


def check_hypotheses(hyps, what: str) -> list:
    """``hyps`` as a list of str; a TypeError names the first bad entry."""
    if isinstance(hyps, (str, bytes)) or not isinstance(hyps, Sequence):
        raise TypeError(f"{what}: the hypotheses must be a sequence of strings, got {type(hyps).__name__}")
    hyps = list(hyps)
    if not hyps:
        raise ValueError(f"{what}: no hypotheses")
    for i, hyp in enumerate(hyps):
        if not isinstance(hyp, str):
            missing = " (an undefined line in the hypothesis stream)" if hyp is None else ""
            raise TypeError(f"{what}: hypothesis {i} is {type(hyp).__name__}, not a string{missing}")
    return hyps


def references_per_response(streams, n_hyps: int | None, what: str) -> tuple[list, int]:
    """(references of each of the ``n_hyps`` hypotheses, the signature's nrefs).

    ``streams``: sacrebleu's reference streams, each of ``n_hyps`` entries (str or None;
    ``n_hyps=None``: as many as the first stream, for references cached before any
    hypothesis is seen). nrefs is the number of references per segment, or
    ``VARIABLE_REFS`` when it varies.

    >>> references_per_response([["a", "b"], ["c", None]], 2, "BLEU")
    ([['a', 'c'], ['b']], -1)
    """
    per_response = transpose_streams(streams, what)
    if n_hyps is not None and len(per_response) != n_hyps:
        raise ValueError(f"{what}: the reference streams hold {len(per_response)} segments but there are "
                         f"{n_hyps} hypotheses")
    counts = {len(refs) for refs in per_response}
    return per_response, counts.pop() if len(counts) == 1 else VARIABLE_REFS
