"""Randomized SVD for LSI training on the GPU (CuPy + cuSPARSE).

The algorithm of the CPU LSI trainer (Halko, Martinsson & Tropp 2011): a Gaussian
range finder with ``oversampling`` extra columns, ``power_iterations`` rounds of
``A (Aᵀ Q)`` re-orthonormalised by QR after every product (so small singular
values are not lost to rounding), then the exact SVD of the small projected matrix.

The code is written once against an array module: ``xp=cupy`` (the default) runs
it on the current CUDA device with ``cupyx.scipy.sparse`` products; ``xp=numpy``
runs the very same steps on the CPU with ``scipy.sparse`` — the tests use that to
check the algorithm against scipy and scikit-learn on machines without a GPU.

Signs are fixed as scikit-learn's ``svd_flip`` does: in every left singular vector
the entry of largest magnitude is positive, so results are comparable across runs,
devices and implementations.
"""
from __future__ import annotations

import numpy as np

from ..runtime import resolve_device

__all__ = ["lsi_components", "randomized_svd"]

_DTYPES = ("float32", "float64")


def _array_module(xp):
    if xp is not None:
        return xp
    resolve_device("cuda")
    try:
        import cupy
    except ImportError as exc:
        raise ImportError("GPU LSI training needs CuPy: install the wheel for your CUDA version "
                          "(e.g. pip install cupy-cuda12x)") from exc
    return cupy


def _sparse_module(xp):
    if xp is np:
        import scipy.sparse as sparse
    else:
        import cupyx.scipy.sparse as sparse
    return sparse


def _on_device(matrix, xp, dtype):
    """``matrix`` (dense or sparse, host or device) as a CSR / dense array of xp."""
    sparse = _sparse_module(xp)
    if hasattr(matrix, "tocsr"):
        if xp is not np and not sparse.issparse(matrix):
            matrix = sparse.csr_matrix(matrix.tocsr())  # scipy -> cuSPARSE: one upload
        return matrix.tocsr().astype(dtype)
    return xp.asarray(matrix, dtype=dtype)


def _orthonormal(xp, y):
    return xp.linalg.qr(y, mode="reduced")[0]


def _flip_signs(xp, u, vt):
    """Largest-magnitude entry of every column of u made positive (vt follows)."""
    rows = xp.argmax(xp.abs(u), axis=0)
    signs = xp.sign(u[rows, xp.arange(u.shape[1])])
    signs[signs == 0] = 1
    return u * signs, vt * signs[:, None]


def _check(shape, k: int, oversampling: int, power_iterations: int, dtype: str) -> None:
    if len(shape) != 2 or min(shape) == 0:
        raise ValueError(f"the matrix must be 2-D and non-empty, got shape {tuple(shape)}")
    for name, value, low in (("k", k, 1), ("oversampling", oversampling, 0), ("power_iterations", power_iterations, 0)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    if k > min(shape):
        raise ValueError(f"k = {k} exceeds min(rows, columns) = {min(shape)}, the largest possible rank")
    if dtype not in _DTYPES:
        raise ValueError(f"dtype must be one of {_DTYPES}, got {dtype!r}")


# Rows of the Gaussian test matrix drawn on the host per block: bounds host memory for
# matrices with millions of columns while drawing the very same numbers as one call.
_TEST_MATRIX_BLOCK_ROWS = 1 << 16


def _test_matrix(xp, seed: int, rows: int, columns: int, dtype: str):
    """The Gaussian test matrix of ``seed``: drawn by numpy on the host whatever ``xp`` is,
    so a GPU run starts from the same subspace as a CPU run and both give the same
    factors up to rounding (CuPy's generator draws other numbers from the same seed,
    and the unconverged trailing singular values then differ by far more than rounding)."""
    state = np.random.RandomState(seed)
    if xp is np:
        return state.standard_normal(size=(rows, columns)).astype(dtype)
    omega = xp.empty((rows, columns), dtype=dtype)
    for start in range(0, rows, _TEST_MATRIX_BLOCK_ROWS):
        stop = min(rows, start + _TEST_MATRIX_BLOCK_ROWS)
        omega[start:stop] = xp.asarray(state.standard_normal(size=(stop - start, columns)).astype(dtype))
    return omega


def randomized_svd(matrix, k: int, *, oversampling: int = 10, power_iterations: int = 4, seed: int = 0,
                   dtype: str = "float64", xp=None):
    """Top-``k`` singular triplets ``(U (m x k), s (k), Vt (k x n))`` of ``matrix``.

    ``matrix``: a scipy / cupyx sparse matrix or a dense array (host or device).
    Arrays come back in ``xp``'s memory (CuPy arrays by default). ``seed`` fixes the
    Gaussian test matrix (drawn on the host, so CPU and GPU runs start alike): the
    same call on the same device gives the same bits.
    """
    _check(matrix.shape, k, oversampling, power_iterations, dtype)
    xp = _array_module(xp)
    a = _on_device(matrix, xp, dtype)
    columns = min(k + oversampling, min(a.shape))
    omega = _test_matrix(xp, seed, a.shape[1], columns, dtype)
    q = _orthonormal(xp, a @ omega)
    for _ in range(power_iterations):
        q = _orthonormal(xp, a @ _orthonormal(xp, a.T @ q))
    small = (a.T @ q).T  # Qᵀ A, computed with the sparse product on A's side
    u_small, s, vt = xp.linalg.svd(xp.asarray(small), full_matrices=False)
    u, vt = _flip_signs(xp, q @ u_small, vt)
    return u[:, :k], s[:k], vt[:k]


def lsi_components(doc_term, dims: int, **options):
    """LSI's ``(components (terms x dims), singular_values (dims))`` in float32, from
    a documents x terms matrix (as CountVectorizer and the CPU trainer build it):
    U_k of the term-document matrix, i.e. the right singular vectors of ``doc_term``.
    ``options`` are those of :func:`randomized_svd`; results are in ``xp``'s memory."""
    u, s, _ = randomized_svd(doc_term.T, dims, **options)
    return u.astype(np.float32), s.astype(np.float32)
