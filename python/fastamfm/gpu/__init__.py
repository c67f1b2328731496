"""The CUDA path of AM and of the nlg-eval embedding metrics, on flat inputs.

Every function takes flat arrays, so the CPU front ends (tokenizer, vocabulary,
word-vector lookup) can feed them, and returns one score per hypothesis:

- numpy in, numpy out (uploaded once per call, copied back at the end);
- device arrays in (CuPy, or anything with ``__cuda_array_interface__`` / DLPack,
  e.g. PyTorch CUDA tensors), CuPy arrays out, without copies: inputs that are
  already contiguous with the kernel's dtype are used in place, the kernels run on
  CuPy's current stream, and ``out=`` (a float32 device array) is written in place
  and returned, for allocation-free training loops. Device arrays must live on the
  current CUDA device.

Shapes and names used below:

- sparse rows: a ``scipy.sparse`` / ``cupyx.scipy.sparse`` CSR matrix, or a tuple
  ``(indptr, indices, data)`` — row r's entries are ``indptr[r]:indptr[r+1]``,
  ``indices`` term ids (rows of ``components``), ``data`` weights (counts for AM).
  Repeated ids are summed, so token rows with unit weights,
  ``(offsets, ids, ones)``, give AM's count weighting without building counts.
- token rows: a tuple ``(ids, offsets)`` — sentence s is ``ids[offsets[s]:offsets[s+1]]``,
  ids are rows of ``vectors`` (out-of-vocabulary words mapped by the caller, e.g. to
  a mean-vector row as nlg-eval does). :func:`token_rows` builds one from lists.
- ``ref_offsets`` (n + 1): the references of hypothesis i are reference rows
  ``ref_offsets[i]:ref_offsets[i+1]``. A hypothesis without references scores 0.

``components``/``vectors`` may also be a :func:`to_device` matrix, kept on the GPU
between calls. A sentence with no known words (empty row) scores 0. Without a CUDA
device every function raises the RuntimeError of :func:`fastamfm.resolve_device`,
after checking its arguments.
"""
from __future__ import annotations

import numpy as np

from ..runtime import cuda_module
from .arrays import Placement

__all__ = [
    "am_scores",
    "am_vectors",
    "cosine_over_references",
    "embedding_average",
    "greedy_matching",
    "to_device",
    "token_rows",
    "vector_extrema",
]

_COMBINES = ("max", "mean")


def token_rows(sentences) -> tuple[np.ndarray, np.ndarray]:
    """``[[3, 1], [], [2]]`` -> ``(ids int32, offsets int64)`` token rows."""
    sentences = [list(s) for s in sentences]
    lengths = np.fromiter((len(s) for s in sentences), dtype=np.int64)
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    ids = np.fromiter((t for s in sentences for t in s), dtype=np.int64, count=int(offsets[-1]))
    if ids.size and (ids.min() < 0 or ids.max() > np.iinfo(np.int32).max):
        raise ValueError("token_rows: ids must be row numbers in [0, 2**31)")
    return ids.astype(np.int32), offsets


def to_device(matrix):
    """Upload a float matrix once (U_k, a word-vector table) as a ``fastamfm._cuda.DeviceArray``;
    pass it as ``components=``/``vectors=`` to later calls with numpy inputs so that
    they do not upload it again. Needs no CuPy."""
    arr = np.asarray(matrix)
    if arr.ndim != 2 or arr.dtype.kind not in "fiu":
        raise ValueError(f"to_device takes a 2-D real matrix, got {arr.dtype} with shape {arr.shape}")
    module = cuda_module()
    return module.DeviceArray.from_host(np.ascontiguousarray(arr, dtype=np.float32))


def _sparse_parts(rows, name: str):
    if hasattr(rows, "indptr") and hasattr(rows, "indices") and hasattr(rows, "data"):
        if getattr(rows, "format", "csr") != "csr":
            raise TypeError(f"{name} must be CSR, got a {rows.format} matrix (convert it with .tocsr())")
        return rows.indptr, rows.indices, rows.data
    if isinstance(rows, tuple) and len(rows) == 3:
        return rows
    raise TypeError(f"{name} must be a CSR matrix or a tuple (indptr, indices, data), got {type(rows).__name__}")


def _token_parts(tokens, name: str):
    if isinstance(tokens, tuple) and len(tokens) == 2:
        return tokens
    raise TypeError(f"{name} must be a tuple (ids, offsets) of token rows, got {type(tokens).__name__}")


def _check_combine(combine: str) -> None:
    if combine not in _COMBINES:
        raise ValueError(f"combine must be one of {_COMBINES}, got {combine!r}")


class _SparseRows:
    """Checked CSR parts of one argument."""

    def __init__(self, place: Placement, rows, name: str, *, terms: int):
        indptr, indices, data = _sparse_parts(rows, name)
        self.indices = place.ids(indices, f"{name}.indices", limit=terms, limit_name="rows of components")
        self.data = place.array(data, np.float32, f"{name}.data", 1)
        if self.data.shape[0] != self.indices.shape[0]:
            raise ValueError(f"{name}: {self.indices.shape[0]} indices but {self.data.shape[0]} data values")
        self.indptr = place.offsets(indptr, f"{name}.indptr", total=self.indices.shape[0])
        self.count = self.indptr.shape[0] - 1


class _TokenRows:
    """Checked (ids, offsets) of one argument."""

    def __init__(self, place: Placement, tokens, name: str, *, words: int):
        ids, offsets = _token_parts(tokens, name)
        self.ids = place.ids(ids, f"{name} ids", limit=words, limit_name="rows of vectors")
        self.offsets = place.offsets(offsets, f"{name} offsets", total=self.ids.shape[0])
        self.count = self.offsets.shape[0] - 1


def _matrix(place: Placement, x, name: str):
    arr = place.array(x, np.float32, name, 2)
    if arr.shape[1] == 0:
        raise ValueError(f"{name} has no columns")
    return arr


def _project(place: Placement, rows: _SparseRows, components, out):
    cuda_module().am_projection(place.to_kernel(rows.indptr), place.to_kernel(rows.indices),
                                place.to_kernel(rows.data), components, out, place.stream())
    return out


def am_vectors(rows, components, *, out=None):
    """AM's projected vectors: L2-normalised ``rows @ components``, shape (rows, k).

    ``components`` is U_k (terms x k, the LSI model's ``components``). Rows with no
    entries give the zero vector. Compute the references' vectors once and reuse them
    across systems with :func:`cosine_over_references`.
    """
    place = Placement(components, out, *_sparse_parts(rows, "rows"))
    u = _matrix(place, components, "components")
    sparse = _SparseRows(place, rows, "rows", terms=u.shape[0])
    target = place.output((sparse.count, u.shape[1]), out)
    _project(place, sparse, place.to_kernel(u), target)
    return place.result(target, out)


def cosine_over_references(queries, refs, ref_offsets, *, combine: str = "max", clip: bool = True, out=None):
    """``scores[i]`` = max (or mean) over ``refs[ref_offsets[i]:ref_offsets[i+1]]`` of
    cos(queries[i], ref), each cosine clipped to [0, 1] when ``clip`` (AM's rule).

    Inputs need not be normalised; a zero vector has cosine 0 with everything.
    """
    _check_combine(combine)
    place = Placement(queries, refs, ref_offsets, out)
    q = _matrix(place, queries, "queries")
    r = _matrix(place, refs, "refs")
    if r.shape[1] != q.shape[1]:
        raise ValueError(f"queries have {q.shape[1]} dims but refs have {r.shape[1]}")
    off = place.offsets(ref_offsets, "ref_offsets", total=r.shape[0])
    if off.shape[0] != q.shape[0] + 1:
        raise ValueError(f"ref_offsets has {off.shape[0]} elements, expected {q.shape[0] + 1} (queries + 1)")
    target = place.output((q.shape[0],), out)
    cuda_module().cosine_over_references(place.to_kernel(q), place.to_kernel(r), place.to_kernel(off), target,
                                         combine, bool(clip), place.stream())
    return place.result(target, out)


def am_scores(hyp_rows, ref_rows, ref_offsets, components, *, combine: str = "max", out=None):
    """AM per hypothesis: project hypotheses and references with ``components``,
    cosine, clip to [0, 1], ``combine`` ("max", the paper's; or "mean") over each
    hypothesis' references. A side with no known words has cosine 0."""
    _check_combine(combine)
    place = Placement(components, ref_offsets, out, *_sparse_parts(hyp_rows, "hyp_rows"),
                      *_sparse_parts(ref_rows, "ref_rows"))
    u = _matrix(place, components, "components")
    hyps = _SparseRows(place, hyp_rows, "hyp_rows", terms=u.shape[0])
    refs = _SparseRows(place, ref_rows, "ref_rows", terms=u.shape[0])
    off = _ref_offsets(place, ref_offsets, hyps.count, refs.count)
    target = place.output((hyps.count,), out)
    u_device = place.to_kernel(u)
    hyp_vectors = _project(place, hyps, u_device, place.scratch((hyps.count, u.shape[1])))
    ref_vectors = _project(place, refs, u_device, place.scratch((refs.count, u.shape[1])))
    cuda_module().cosine_over_references(hyp_vectors, ref_vectors, place.to_kernel(off), target, combine, True,
                                         place.stream())
    return place.result(target, out)


def _ref_offsets(place: Placement, ref_offsets, n_hyps: int, n_refs: int):
    off = place.offsets(ref_offsets, "ref_offsets", total=n_refs)
    if off.shape[0] != n_hyps + 1:
        raise ValueError(f"ref_offsets has {off.shape[0]} elements, expected {n_hyps + 1} (hypotheses + 1)")
    return off


def _embedding_inputs(hyp_tokens, ref_tokens, ref_offsets, vectors, out):
    place = Placement(vectors, ref_offsets, out, *_token_parts(hyp_tokens, "hyp_tokens"),
                      *_token_parts(ref_tokens, "ref_tokens"))
    table = _matrix(place, vectors, "vectors")
    hyps = _TokenRows(place, hyp_tokens, "hyp_tokens", words=table.shape[0])
    refs = _TokenRows(place, ref_tokens, "ref_tokens", words=table.shape[0])
    off = _ref_offsets(place, ref_offsets, hyps.count, refs.count)
    return place, table, hyps, refs, off


def _pooled_cosine(pooling: str, hyp_tokens, ref_tokens, ref_offsets, vectors, out):
    place, table, hyps, refs, off = _embedding_inputs(hyp_tokens, ref_tokens, ref_offsets, vectors, out)
    target = place.output((hyps.count,), out)
    dims = table.shape[1]
    table_device = place.to_kernel(table)
    pooled = []
    for rows in (hyps, refs):
        buffer = place.scratch((rows.count, dims))
        cuda_module().pool_token_vectors(place.to_kernel(rows.ids), place.to_kernel(rows.offsets), table_device,
                                         buffer, pooling, place.stream())
        pooled.append(buffer)
    cuda_module().cosine_over_references(pooled[0], pooled[1], place.to_kernel(off), target, "max", False,
                                         place.stream())
    return place.result(target, out)


def embedding_average(hyp_tokens, ref_tokens, ref_offsets, vectors, *, out=None):
    """nlg-eval's Embedding Average per hypothesis: cosine of the summed (equivalently
    mean) token vectors, max over references; an empty sentence scores 0."""
    return _pooled_cosine("sum", hyp_tokens, ref_tokens, ref_offsets, vectors, out)


def vector_extrema(hyp_tokens, ref_tokens, ref_offsets, vectors, *, out=None):
    """nlg-eval's Vector Extrema per hypothesis: per dimension the extreme value by
    nlg-eval's rule (the max when the min is positive, the max when it outweighs a
    negative min, else the min — so a min of exactly 0 gives 0), then cosine, max
    over references; an empty sentence scores 0."""
    return _pooled_cosine("extrema", hyp_tokens, ref_tokens, ref_offsets, vectors, out)


def greedy_matching(hyp_tokens, ref_tokens, ref_offsets, vectors, *, out=None):
    """nlg-eval's Greedy Matching per hypothesis: mean of the two directions' average
    best token cosine, max over references; a pair with an empty side scores 0."""
    place, table, hyps, refs, off = _embedding_inputs(hyp_tokens, ref_tokens, ref_offsets, vectors, out)
    target = place.output((hyps.count,), out)
    cuda_module().greedy_matching(place.to_kernel(hyps.ids), place.to_kernel(hyps.offsets),
                                  place.to_kernel(refs.ids), place.to_kernel(refs.offsets), place.to_kernel(off),
                                  place.to_kernel(table), target, place.stream())
    return place.result(target, out)
