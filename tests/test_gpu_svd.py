"""fastamfm.gpu.svd: the randomized SVD algorithm, checked on the CPU by running the
same code with xp=numpy against exact SVDs (numpy, scipy) and scikit-learn; on a
CUDA device with CuPy, the GPU run against the CPU run."""
from __future__ import annotations

import fastamfm
import numpy as np
import pytest
import scipy.sparse
import scipy.sparse.linalg
from fastamfm.gpu import svd as gpu_svd

try:
    import cupy
except ImportError:
    cupy = None


def known_spectrum(rng, m, n, singular_values):
    """A dense m x n matrix whose SVD is known exactly."""
    r = len(singular_values)
    u = np.linalg.qr(rng.standard_normal((m, r)))[0]
    v = np.linalg.qr(rng.standard_normal((n, r)))[0]
    return (u * singular_values) @ v.T, u, v


def sparse_counts(rng, docs, terms, density=0.01):
    """A documents x terms count matrix with Zipf-like term frequencies."""
    m = scipy.sparse.random(docs, terms, density=density, format="csr", random_state=rng,
                            data_rvs=lambda size: rng.integers(1, 4, size))
    return m.multiply(1.0 / np.sqrt(np.arange(1, terms + 1))).tocsr()


def subspace_cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosines of the principal angles between the column spaces (1 = same space)."""
    return np.linalg.svd(np.linalg.qr(a)[0].T @ np.linalg.qr(b)[0], compute_uv=False)


def test_known_spectrum_is_recovered():
    rng = np.random.default_rng(0)
    s_true = np.geomspace(100, 0.1, 60)
    a, u_true, v_true = known_spectrum(rng, 400, 300, s_true)
    u, s, vt = gpu_svd.randomized_svd(a, 10, xp=np)
    assert np.max(np.abs(s - s_true[:10]) / s_true[:10]) <= 1e-3
    assert subspace_cosines(u, u_true[:, :10]).min() > 1 - 1e-6
    assert subspace_cosines(vt.T, v_true[:, :10]).min() > 1 - 1e-6
    np.testing.assert_allclose(u.T @ u, np.eye(10), atol=1e-10)


def test_sparse_matrix_matches_scipy_svds():
    rng = np.random.default_rng(1)
    a = sparse_counts(rng, 3000, 1500)
    exact = np.sort(scipy.sparse.linalg.svds(a, k=20, random_state=0)[1])[::-1]
    s = gpu_svd.randomized_svd(a, 20, power_iterations=10, xp=np)[1]
    assert np.max(np.abs(s - exact) / exact) <= 1e-3


def test_same_seed_gives_scikit_learn_randomized_svd():
    """Same Gaussian draw (RandomState(seed)), same subspace iteration, same signs:
    the triplets equal scikit-learn's to rounding."""
    from sklearn.utils.extmath import randomized_svd as sklearn_randomized_svd

    a = sparse_counts(np.random.default_rng(7), 2000, 1000)
    u, s, vt = gpu_svd.randomized_svd(a, 20, oversampling=10, power_iterations=6, seed=3, xp=np)
    u_sk, s_sk, vt_sk = sklearn_randomized_svd(a, 20, n_oversamples=10, n_iter=6, random_state=3)
    np.testing.assert_allclose(s, s_sk, rtol=1e-10)
    np.testing.assert_allclose(u, u_sk, atol=1e-10)
    np.testing.assert_allclose(vt, vt_sk, atol=1e-10)


def test_power_iterations_improve_accuracy():
    rng = np.random.default_rng(2)
    a = sparse_counts(rng, 2000, 800, density=0.02)
    exact = np.sort(scipy.sparse.linalg.svds(a, k=15, random_state=0)[1])[::-1]
    errors = [np.max(np.abs(gpu_svd.randomized_svd(a, 15, power_iterations=p, xp=np)[1] - exact) / exact)
              for p in (0, 2, 6)]
    assert errors[0] > errors[1] > errors[2]


def test_signs_and_reproducibility():
    rng = np.random.default_rng(3)
    a = sparse_counts(rng, 500, 300, density=0.05)
    u1, s1, vt1 = gpu_svd.randomized_svd(a, 8, seed=5, xp=np)
    u2, s2, vt2 = gpu_svd.randomized_svd(a, 8, seed=5, xp=np)
    np.testing.assert_array_equal(u1, u2)
    np.testing.assert_array_equal(vt1, vt2)
    largest = u1[np.argmax(np.abs(u1), axis=0), np.arange(8)]
    assert (largest > 0).all()


def test_lsi_components_are_the_term_side():
    """components = U_k of the term-document matrix = right singular vectors of the
    document-term matrix, float32, with the same sign rule."""
    rng = np.random.default_rng(4)
    doc_term = sparse_counts(rng, 1200, 400, density=0.03)
    components, singular_values = gpu_svd.lsi_components(doc_term, 10, power_iterations=8, xp=np)
    assert components.shape == (400, 10) and components.dtype == np.float32
    assert singular_values.dtype == np.float32
    u_exact, s_exact, _ = np.linalg.svd(doc_term.T.toarray(), full_matrices=False)
    np.testing.assert_allclose(singular_values, s_exact[:10], rtol=1e-3)
    assert subspace_cosines(components.astype(np.float64), u_exact[:, :10]).min() > 1 - 1e-4


def test_float32_is_close_to_float64():
    rng = np.random.default_rng(5)
    a = sparse_counts(rng, 1000, 500, density=0.03)
    s64 = gpu_svd.randomized_svd(a, 10, xp=np)[1]
    u32, s32, _ = gpu_svd.randomized_svd(a, 10, dtype="float32", xp=np)
    assert u32.dtype == np.float32
    np.testing.assert_allclose(s32, s64, rtol=1e-4)


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        ((np.ones((5, 4)), 5), {}, r"k = 5 exceeds min\(rows, columns\) = 4, the largest possible rank"),
        ((np.ones((5, 4)), 0), {}, r"k must be an integer >= 1, got 0"),
        ((np.ones((0, 4)), 1), {}, r"the matrix must be 2-D and non-empty, got shape \(0, 4\)"),
        ((np.ones((5, 4)), 2), {"power_iterations": -1}, r"power_iterations must be an integer >= 0, got -1"),
        ((np.ones((5, 4)), 2), {"oversampling": 1.5}, r"oversampling must be an integer >= 0, got 1.5"),
        ((np.ones((5, 4)), 2), {"dtype": "float16"}, r"dtype must be one of \('float32', 'float64'\)"),
    ],
)
def test_bad_arguments(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        gpu_svd.randomized_svd(*args, xp=np, **kwargs)


@pytest.mark.skipif(fastamfm.HAS_CUDA, reason="checks the error raised without a CUDA device")
def test_default_device_without_cuda_raises_the_backend_error():
    with pytest.raises(RuntimeError, match="device='cuda' requested but CUDA is unavailable"):
        gpu_svd.randomized_svd(np.ones((5, 4)), 2)


@pytest.mark.gpu
@pytest.mark.skipif(cupy is None or not fastamfm.HAS_CUDA, reason="needs CuPy and a CUDA device")
def test_gpu_run_equals_cpu_run():
    rng = np.random.default_rng(6)
    doc_term = sparse_counts(rng, 20000, 5000, density=0.002)
    cpu_c, cpu_s = gpu_svd.lsi_components(doc_term, 50, power_iterations=6, xp=np)
    gpu_c, gpu_s = gpu_svd.lsi_components(doc_term, 50, power_iterations=6)
    np.testing.assert_allclose(cupy.asnumpy(gpu_s), cpu_s, rtol=1e-4)
    assert subspace_cosines(cupy.asnumpy(gpu_c)[:, :40].astype(np.float64),
                            cpu_c[:, :40].astype(np.float64)).min() > 1 - 1e-3
