"""sacrebleu's input layout, checked and turned into fastamfm's.

sacrebleu takes the hypotheses as one stream and the references as K *streams*:
``refs[j][i]`` is the j-th reference of hypothesis i, and a stream holds ``None`` where
hypothesis i has fewer than K references (its variable reference count). fastamfm takes
the references of each response (``refs[i]``), so the streams are transposed here, once,
and the ``None`` entries dropped. An empty string is a reference (of length 0), as in
sacrebleu 2.6.0; only ``None`` means "missing".
"""
from __future__ import annotations

from collections.abc import Sequence

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
    if isinstance(streams, (str, bytes)) or not isinstance(streams, Sequence):
        raise TypeError(f"{what}: the references must be a sequence of reference streams "
                        f"(refs[j][i]: j-th reference of hypothesis i), got {type(streams).__name__}")
    if len(streams) == 0:
        raise ValueError(f"{what}: no reference stream given")
    cached = n_hyps is None
    for j, stream in enumerate(streams):
        if isinstance(stream, (str, bytes)) or not isinstance(stream, Sequence):
            raise TypeError(f"{what}: reference stream {j} must be a sequence of strings (one per hypothesis), "
                            f"got {type(stream).__name__}")
        if cached and j == 0:
            n_hyps = len(stream)
        if len(stream) != n_hyps:
            against = f"stream 0 has {n_hyps}" if cached else f"there are {n_hyps} hypotheses"
            raise ValueError(f"{what}: reference stream {j} has {len(stream)} segments but {against}")
    if n_hyps == 0:
        raise ValueError(f"{what}: the reference streams are empty")
    per_response = []
    counts = set()
    for i, column in enumerate(zip(*streams)):
        refs = []
        for j, ref in enumerate(column):
            if ref is None:
                continue
            if not isinstance(ref, str):
                raise TypeError(f"{what}: reference stream {j}, segment {i} is {type(ref).__name__}, "
                                f"not a string or None")
            refs.append(ref)
        if not refs:
            raise ValueError(f"{what}: segment {i} has no reference (None in every stream)")
        counts.add(len(refs))
        per_response.append(refs)
    return per_response, counts.pop() if len(counts) == 1 else VARIABLE_REFS
