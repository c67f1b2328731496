"""Sentence BLEU and ROUGE over token ids, for RL rewards: no decoding, no detokenizing.

Completions and references arrive as a model's token ids: numpy arrays or torch tensors
(on any device) padded on the right with their ``lengths`` (or a ``pad_id``), or ragged
lists of id sequences; references per completion are a [n, R, L] array with
``ref_lengths`` [n, R] (a row of length 0 is a missing reference) or ragged lists.
Scores are computed by the C++ core on the host; a torch input gets a float32 tensor on
its own device back.

``token_bleu``: ``convention="sacrebleu"`` (default) is sacrebleu's sentence BLEU on 0..1
(effective order, ``smooth`` "exp" | "floor" | "add-k" | "none"): the same number as
``fastamfm.sacrebleu`` on the ids written as words (``tokenize="none"``).
``convention="tensorbleu"`` is TensorBLEU's ``tensor_sentence_bleu`` (rxlm) with the same
smoothing names, in double precision: its floor and add-k apply to every order, its exp
puts 1e-12 for a precision without match, every precision is logged as log(p + 1e-12),
and the closest reference length is the first of the closest (TensorBLEU's argmin,
missing rows included as length 0).
``token_rouge``: rouge-score's rougeN / rougeL (precision, recall or F1) over the ids, the
best reference by F1.
"""
from __future__ import annotations

import numpy as np

from .. import _core
from .._validation import check_choice, check_int, check_workers
from .rouge_score import type_code
from .sacrebleu import SMOOTH_METHODS, check_smoothing

CONVENTIONS = ("sacrebleu", "tensorbleu")


def _is_torch(x) -> bool:
    return type(x).__module__.startswith("torch") and hasattr(x, "device")


def _host(x, what: str):
    """(numpy array or list, torch device or None)."""
    if _is_torch(x):
        if x.is_floating_point() or x.is_complex():
            raise TypeError(f"{what} must hold integer token ids, got a {x.dtype} tensor")
        return x.detach().to("cpu").numpy(), x.device
    return x, None


def _sequences(ids, lengths, pad_id, what: str) -> tuple[np.ndarray, np.ndarray]:
    """(flat int64 ids, n + 1 offsets) of n sequences given as a padded 2-D array or a ragged list."""
    if isinstance(ids, np.ndarray) and ids.ndim == 2:
        if not np.issubdtype(ids.dtype, np.integer):
            raise TypeError(f"{what} must hold integer token ids, got dtype {ids.dtype}")
        n, width = ids.shape
        if lengths is None and pad_id is None:
            lengths = np.full(n, width)
        elif lengths is None:
            lengths = (ids != pad_id).sum(axis=1)
        lengths, _ = _host(lengths, f"{what} lengths")
        lengths = np.asarray(lengths)
        if lengths.shape != (n,) or not np.issubdtype(lengths.dtype, np.integer):
            raise ValueError(f"{what}: lengths must be {n} integers, got shape {lengths.shape}")
        bad = np.flatnonzero((lengths < 0) | (lengths > width))
        if len(bad):
            raise ValueError(f"{what}[{bad[0]}]: length {lengths[bad[0]]} outside 0..{width}")
        keep = np.arange(width)[None, :] < lengths[:, None]
        flat = ids[keep].astype(np.int64, copy=False)
        offsets = np.zeros(n + 1, dtype=np.uint64)
        np.cumsum(lengths, out=offsets[1:])
        return flat, offsets
    if isinstance(ids, np.ndarray) and ids.ndim != 2:
        raise ValueError(f"{what} must be a 2-D [n, length] array or a list of id sequences, got {ids.ndim}-D")
    if lengths is not None:
        raise ValueError(f"{what}: lengths= goes with a padded 2-D array, not a list of sequences")
    parts = []
    for i, seq in enumerate(ids):
        seq, _ = _host(seq, f"{what}[{i}]")
        arr = np.asarray(seq)
        if arr.ndim != 1 or not (np.issubdtype(arr.dtype, np.integer) or arr.size == 0):
            raise TypeError(f"{what}[{i}] must be a 1-D sequence of integer token ids")
        parts.append(arr.astype(np.int64, copy=False))
    lengths = np.array([len(p) for p in parts], dtype=np.uint64)
    offsets = np.zeros(len(parts) + 1, dtype=np.uint64)
    np.cumsum(lengths, out=offsets[1:])
    flat = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    return flat, offsets


def _check_ids(flat: np.ndarray, offsets: np.ndarray, vocab_size, what: str) -> np.ndarray:
    bad = flat < 0 if vocab_size is None else (flat < 0) | (flat >= vocab_size)
    if bad.any():
        position = int(np.flatnonzero(bad)[0])
        row = int(np.searchsorted(offsets, position, side="right")) - 1
        bound = "negative" if vocab_size is None else f"outside 0..{vocab_size - 1}"
        raise ValueError(f"{what}[{row}]: token id {int(flat[position])} is {bound}")
    return flat.astype(np.uint64)


def _inputs(hyps, refs, lengths, ref_lengths, pad_id, vocab_size, keep_empty_refs: bool):
    if _is_torch(hyps) and _is_torch(refs) and hyps.device != refs.device:
        raise ValueError(f"hyps are on {hyps.device} but refs on {refs.device}; put both on one device")
    hyps, device = _host(hyps, "hyps")
    refs, _ = _host(refs, "refs")
    hyp_flat, hyp_offsets = _sequences(hyps, lengths, pad_id, "hyps")
    n = len(hyp_offsets) - 1
    if n == 0:
        raise ValueError("hyps is empty")
    if isinstance(refs, np.ndarray) and refs.ndim == 3:
        if refs.shape[0] != n:
            raise ValueError(f"{n} hyps but refs holds {refs.shape[0]} reference sets")
        _, r, width = refs.shape
        if ref_lengths is not None:
            ref_lengths, _ = _host(ref_lengths, "ref_lengths")
            ref_lengths = np.asarray(ref_lengths).reshape(n * r)
        ref_flat, ref_offsets = _sequences(refs.reshape(n * r, width), ref_lengths, pad_id, "refs")
        counts = np.full(n, r)
        if not keep_empty_refs:
            sizes = np.diff(ref_offsets)
            present = sizes > 0
            counts = present.reshape(n, r).sum(axis=1)
            ref_offsets = np.concatenate([[0], np.cumsum(sizes[present])]).astype(np.uint64)
    elif isinstance(refs, np.ndarray) and refs.ndim == 2:
        if refs.shape[0] != n:
            raise ValueError(f"{n} hyps but refs holds {refs.shape[0]} references")
        ref_flat, ref_offsets = _sequences(refs, ref_lengths, pad_id, "refs")
        counts = np.ones(n, dtype=np.int64)
    else:
        if ref_lengths is not None:
            raise ValueError("ref_lengths= goes with a padded [n, R, L] array of references")
        refs = list(refs)
        if len(refs) != n:
            raise ValueError(f"{n} hyps but {len(refs)} reference sets in refs")
        sets = []
        for i, rs in enumerate(refs):
            rs, _ = _host(rs, f"refs[{i}]")
            if isinstance(rs, np.ndarray) and rs.ndim == 1:
                rs = [rs]
            elif rs and np.isscalar(rs[0]):
                rs = [rs]
            sets.append(list(rs))
        counts = np.array([len(s) for s in sets])
        ref_flat, ref_offsets = _sequences([r for s in sets for r in s], None, None, "refs")
    segment_offsets = np.zeros(n + 1, dtype=np.uint64)
    np.cumsum(counts, out=segment_offsets[1:])
    empty = np.flatnonzero(counts == 0)
    if len(empty):
        raise ValueError(f"refs[{empty[0]}] has no reference")
    return (_check_ids(hyp_flat, hyp_offsets, vocab_size, "hyps"), hyp_offsets,
            _check_ids(ref_flat, ref_offsets, vocab_size, "refs"), ref_offsets, segment_offsets.tolist(), device)


def _output(scores: np.ndarray, device):
    if device is None:
        return scores
    import torch

    return torch.as_tensor(scores, dtype=torch.float32).to(device)


def token_bleu(hyps, refs, *, lengths=None, ref_lengths=None, pad_id: int | None = None, max_order: int = 4,
               smooth: str = "exp", smooth_value: float | None = None, convention: str = "sacrebleu",
               vocab_size: int | None = None, workers: int = -1):
    """Sentence BLEU (0..1) of each id sequence against its reference id sequences; see the
    module docstring. Returns float64 [n] (numpy input) or a float32 tensor on the input's
    device (torch input). Ids must be >= 0 (and < ``vocab_size`` when given).

    Parameters
    ----------
    hyps : array, tensor or list of id sequences
        n completions: a right-padded [n, L] integer array or tensor, or ragged sequences of ids.
    refs : array, tensor or list
        Per completion its references: a padded [n, R, L] (or [n, L]: one each) array or
        tensor, or per completion a list of id sequences (or one sequence).
    lengths : array, optional
        [n] lengths of the padded ``hyps`` rows (otherwise ``pad_id``, else the full width).
    ref_lengths : array, optional
        [n, R] lengths of the padded ``refs`` rows; a row of length 0 is a missing reference.
    pad_id : int, optional
        The padding id, where no lengths are given.
    max_order : int, default 4
        The highest n-gram order (1..16).
    smooth : {"exp", "floor", "add-k", "none"}, default "exp"
        The smoothing (see the module docstring for each convention).
    smooth_value : float, optional
        The value of "floor" or "add-k".
    convention : {"sacrebleu", "tensorbleu"}, default "sacrebleu"
        Whose sentence BLEU.
    vocab_size : int, optional
        When given, every id must be below it.
    workers : int, default -1
        Threads (-1: every core).

    Returns
    -------
    numpy.ndarray or torch.Tensor
        [n] scores in 0..1: float64 for numpy or list input, float32 on the input's device
        for torch input.

    Raises
    ------
    ValueError
        An unknown ``convention`` or ``smooth``, ``max_order`` out of range, a negative id
        (or one >= ``vocab_size``), lengths that do not fit, as many reference sets as
        completions not given, a completion without references, empty ``hyps``, inputs
        on different devices.
    TypeError
        Ids that are not integers.

    Examples
    --------
    >>> import numpy as np
    >>> import fastamfm
    >>> fastamfm.token_bleu([[1, 2, 3, 4], [5, 6, 7]], [[[1, 2, 3, 4]], [[5, 6, 8], [5, 6]]]).round(6).tolist()
    [1.0, 0.550321]
    >>> hyps = np.array([[1, 2, 3, 4, 0], [5, 6, 7, 0, 0]])
    >>> refs = np.array([[[1, 2, 3, 4, 0]], [[5, 6, 8, 0, 0]]])
    >>> fastamfm.token_bleu(hyps, refs, pad_id=0).round(6).tolist()
    [1.0, 0.550321]
    """
    check_choice(convention, "convention", CONVENTIONS, "token_bleu")
    check_choice(smooth, "smooth", SMOOTH_METHODS, "token_bleu")
    check_int(max_order, "max_order", 1, _core.MAX_NGRAM_ORDER, "token_bleu")
    check_workers(workers, "token_bleu")
    if convention == "sacrebleu":
        smooth_arg = check_smoothing(smooth, smooth_value, "token_bleu")
    else:
        smooth_arg = -1.0 if smooth_value is None else float(smooth_value)
    h, ho, r, ro, segments, device = _inputs(hyps, refs, lengths, ref_lengths, pad_id, vocab_size,
                                             keep_empty_refs=convention == "tensorbleu")
    scores, _ = _core.bleu_ids(h, ho, r, ro, segments, max_order, smooth, smooth_arg, True, convention, workers)
    if convention == "sacrebleu":
        scores = scores / 100.0
    return _output(scores, device)


def token_rouge(hyps, refs, *, rouge_type: str = "rougeL", measure: str = "fmeasure", lengths=None,
                ref_lengths=None, pad_id: int | None = None, vocab_size: int | None = None, workers: int = -1):
    """rouge-score's ``rouge_type`` (rouge1..rouge9 or rougeL) over id sequences, the best
    reference by F1; ``measure``: "fmeasure", "precision" or "recall". Same inputs and
    outputs as ``token_bleu``.

    Parameters
    ----------
    hyps : array, tensor or list of id sequences
        n completions, as ``token_bleu`` takes them.
    refs : array, tensor or list
        Per completion its references, as ``token_bleu`` takes them.
    rouge_type : str, default "rougeL"
        rouge1..rouge9 or rougeL (token ids have no lines: no rougeLsum).
    measure : {"fmeasure", "precision", "recall"}, default "fmeasure"
        Which number of the best reference (by F1).
    lengths, ref_lengths, pad_id, vocab_size
        As for ``token_bleu``.
    workers : int, default -1
        Threads (-1: every core).

    Returns
    -------
    numpy.ndarray or torch.Tensor
        [n] scores in 0..1: float64 for numpy or list input, float32 on the input's device
        for torch input.

    Raises
    ------
    ValueError
        An unknown ``measure`` or ``rouge_type``, rougeLsum, and the input errors of ``token_bleu``.
    TypeError
        Ids that are not integers.

    Examples
    --------
    >>> import fastamfm
    >>> fastamfm.token_rouge([[1, 2, 3, 4], [5, 6, 7]], [[[1, 2, 3, 4]], [[5, 6, 8], [5, 6]]]).round(6).tolist()
    [1.0, 0.8]
    """
    check_choice(measure, "measure", ("precision", "recall", "fmeasure"), "token_rouge")
    check_workers(workers, "token_rouge")
    code = type_code(rouge_type, "token_rouge")
    if code < 0:
        raise ValueError("token_rouge: token ids have no lines; use rougeL")
    h, ho, r, ro, segments, device = _inputs(hyps, refs, lengths, ref_lengths, pad_id, vocab_size,
                                             keep_empty_refs=False)
    scores = _core.rouge_ids(h, ho, r, ro, segments, [code], workers)
    column = ("precision", "recall", "fmeasure").index(measure)
    return _output(np.ascontiguousarray(scores[:, 0, column]), device)
