"""fastamfm.gpu: kernels against the numpy oracle (on a CUDA device), and the
argument checks and the no-device error (everywhere)."""
from __future__ import annotations

import collections

import fastamfm
import numpy as np
import pytest
import scipy.sparse
from fastamfm import gpu
from oracles import gpu as oracle

_skip_without_cuda = pytest.mark.skipif(not fastamfm.HAS_CUDA, reason="needs a CUDA device and fastamfm._cuda "
                                        f"({fastamfm.runtime.cuda_unavailable_reason()})")


def needs_cuda(test):
    """Runs on a CUDA device only; marked ``gpu`` so that ``pytest -m gpu`` selects it."""
    return pytest.mark.gpu(_skip_without_cuda(test))

try:
    import cupy
except ImportError:
    cupy = None
_skip_without_cupy = pytest.mark.skipif(cupy is None or not fastamfm.HAS_CUDA, reason="needs CuPy and a CUDA device")


def needs_cupy(test):
    return pytest.mark.gpu(_skip_without_cupy(test))


# --- generated inputs ---------------------------------------------------------------

def csr_counts(sentences, terms: int) -> scipy.sparse.csr_matrix:
    """Bag-of-words rows with raw counts, as AM's term-document matrix holds them."""
    indptr, indices, data = [0], [], []
    for s in sentences:
        counts = collections.Counter(s)
        indices += list(counts)
        data += list(counts.values())
        indptr.append(len(indices))
    return scipy.sparse.csr_matrix((np.array(data, np.float32), np.array(indices, np.int32), np.array(indptr)),
                                   shape=(len(sentences), terms))


def flatten(refs):
    flat = [r for group in refs for r in group]
    offsets = np.cumsum([0] + [len(g) for g in refs]).astype(np.int64)
    return flat, offsets


def random_corpus(rng, n, words, *, max_len=12, max_refs=4, allow_empty=True):
    low = 0 if allow_empty else 1

    def sentence():
        return [int(t) for t in rng.integers(0, words, rng.integers(low, max_len + 1))]

    hyps = [sentence() for _ in range(n)]
    refs = [[sentence() for _ in range(rng.integers(1, max_refs + 1))] for _ in range(n)]
    return hyps, refs


DIMS = [1, 3, 4, 10, 33, 64, 300, 515]  # group widths 1..32, float/float4 paths, >512 slices


# --- pure host helpers (always run) ------------------------------------------------

def test_token_rows_flattens_lists():
    ids, offsets = gpu.token_rows([[3, 1], [], [2]])
    assert ids.dtype == np.int32 and offsets.dtype == np.int64
    assert ids.tolist() == [3, 1, 2] and offsets.tolist() == [0, 2, 2, 3]
    ids, offsets = gpu.token_rows(iter([(5,), iter([6, 7])]))  # any iterables
    assert ids.tolist() == [5, 6, 7] and offsets.tolist() == [0, 1, 3]
    with pytest.raises(ValueError, match=r"token_rows: ids must be row numbers in \[0, 2\*\*31\)"):
        gpu.token_rows([[2**31]])


def test_extrema_oracle_follows_nlg_eval_rule():
    rows = np.array([[1.0, -3.0, 2.0, 0.0, 5.0], [2.0, 1.0, -1.0, 4.0, -5.0]])
    # lo > 0 -> hi; lo < 0 and hi > -lo -> hi; lo < 0 otherwise -> lo; lo == 0 -> 0; tie -> lo
    assert oracle.extrema_vector(rows).tolist() == [2.0, -3.0, 2.0, 0.0, -5.0]


# --- argument checks: raised before any device is touched (always run) ---------------

def _am_inputs():
    components = np.ones((5, 3), np.float32)
    rows = csr_counts([[0, 1], [2]], 5)
    return rows, components


@pytest.mark.parametrize(
    "indptr, message",
    [
        ([1, 2, 3], r"rows.indptr\[0\] must be 0, got 1"),
        ([0, 2, 1, 3], r"rows.indptr must be non-decreasing, but rows.indptr\[2\] < rows.indptr\[1\]"),
        ([0, 1, 2], r"rows.indptr\[-1\] must be 3 \(the number of entries\), got 2"),
        ([], r"rows.indptr is empty"),
    ],
)
def test_bad_indptr_is_rejected(indptr, message):
    _, components = _am_inputs()
    rows = (np.array(indptr, np.int64), np.array([0, 1, 2], np.int32), np.ones(3, np.float32))
    with pytest.raises(ValueError, match=message):
        gpu.am_vectors(rows, components)


@pytest.mark.parametrize("bad_id", [-1, 5])
def test_term_id_out_of_range_is_rejected(bad_id):
    _, components = _am_inputs()
    rows = (np.array([0, 2]), np.array([0, bad_id]), np.ones(2, np.float32))
    with pytest.raises(ValueError, match=rf"rows.indices holds {bad_id}, outside \[0, 5\) \(rows of components\)"):
        gpu.am_vectors(rows, components)


def test_sparse_rows_must_be_csr():
    rows, components = _am_inputs()
    with pytest.raises(TypeError, match="rows must be CSR, got a csc matrix"):
        gpu.am_vectors(rows.tocsc(), components)
    with pytest.raises(TypeError, match=r"rows must be a CSR matrix or a tuple \(indptr, indices, data\)"):
        gpu.am_vectors([[1, 0]], components)


def test_data_and_indices_lengths_must_match():
    _, components = _am_inputs()
    with pytest.raises(ValueError, match="rows: 2 indices but 1 data values"):
        gpu.am_vectors((np.array([0, 2]), np.array([0, 1]), np.ones(1)), components)


def test_components_must_be_a_real_matrix():
    rows, _ = _am_inputs()
    with pytest.raises(ValueError, match=r"components must have 2 dimension\(s\), got shape \(5,\)"):
        gpu.am_vectors(rows, np.ones(5, np.float32))
    with pytest.raises(TypeError, match="components must hold real numbers, got dtype <U1"):
        gpu.am_vectors(rows, np.array([["a"]]))
    with pytest.raises(ValueError, match="components has no columns"):
        gpu.am_vectors(rows, np.ones((5, 0), np.float32))


def test_float_ids_are_rejected():
    with pytest.raises(TypeError, match="rows.indices must hold integers, got dtype float64"):
        gpu.am_vectors((np.array([0, 1]), np.array([0.5]), np.ones(1)), np.ones((2, 2)))


def test_cosine_shape_mismatches_are_rejected():
    q, r = np.ones((2, 3), np.float32), np.ones((3, 3), np.float32)
    with pytest.raises(ValueError, match="queries have 3 dims but refs have 4"):
        gpu.cosine_over_references(q, np.ones((3, 4)), [0, 1, 3])
    with pytest.raises(ValueError, match=r"ref_offsets has 2 elements, expected 3 \(queries \+ 1\)"):
        gpu.cosine_over_references(q, r, [0, 3])
    with pytest.raises(ValueError, match=r"combine must be one of \('max', 'mean'\), got 'min'"):
        gpu.cosine_over_references(q, r, [0, 1, 3], combine="min")
    with pytest.raises(ValueError, match=r"out must be a float32 array of shape \(2,\), got float32 \(3,\)"):
        gpu.cosine_over_references(q, r, [0, 1, 3], out=np.zeros(3, np.float32))


def test_embedding_inputs_are_checked():
    vectors = np.ones((4, 2), np.float32)
    hyps = gpu.token_rows([[0], [1]])
    refs = gpu.token_rows([[2], [3], [9]])
    with pytest.raises(ValueError, match=r"ref_tokens ids holds 9, outside \[0, 4\) \(rows of vectors\)"):
        gpu.greedy_matching(hyps, refs, [0, 1, 3], vectors)
    refs = gpu.token_rows([[2], [3]])
    with pytest.raises(ValueError, match=r"ref_offsets has 2 elements, expected 3 \(hypotheses \+ 1\)"):
        gpu.embedding_average(hyps, refs, [0, 2], vectors)
    with pytest.raises(TypeError, match=r"hyp_tokens must be a tuple \(ids, offsets\) of token rows, got list"):
        gpu.vector_extrema([[0], [1]], refs, [0, 1, 2], vectors)


@pytest.mark.skipif(fastamfm.HAS_CUDA, reason="checks the error raised without a CUDA device")
def test_valid_call_without_cuda_raises_the_backend_error():
    rows, components = _am_inputs()
    with pytest.raises(RuntimeError, match="device='cuda' requested but CUDA is unavailable"):
        gpu.am_scores(rows, rows, [0, 1, 2], components)
    vectors = np.ones((4, 2), np.float32)
    with pytest.raises(RuntimeError, match="CUDA is unavailable"):
        gpu.greedy_matching(gpu.token_rows([[0]]), gpu.token_rows([[1]]), [0, 1], vectors)


def test_to_device_checks_its_matrix():
    with pytest.raises(ValueError, match=r"to_device takes a 2-D real matrix, got float64 with shape \(3,\)"):
        gpu.to_device(np.ones(3))


@pytest.mark.skipif(fastamfm.HAS_CUDA, reason="checks the error raised without a CUDA device")
def test_to_device_without_cuda_raises_the_backend_error():
    with pytest.raises(RuntimeError, match="CUDA is unavailable"):
        gpu.to_device(np.ones((3, 2)))


class _FakeDeviceArray:
    __cuda_array_interface__ = {"shape": (2,), "typestr": "<f4", "data": (0, False), "version": 3}


@pytest.mark.skipif(cupy is not None, reason="checks the message shown when CuPy is missing")
def test_device_arrays_without_cupy_say_how_to_install_it():
    with pytest.raises(ImportError, match=r"CuPy is not installed.*pip install cupy-cuda12x"):
        gpu.cosine_over_references(_FakeDeviceArray(), np.ones((1, 2)), [0, 1])


# --- kernels against the oracle (CUDA device) -----------------------------------------

@needs_cuda
@pytest.mark.parametrize("dims", DIMS)
@pytest.mark.parametrize("how", ["max", "mean"])
def test_am_scores_equal_the_oracle(dims, how):
    rng = np.random.default_rng(dims)
    words = 50
    components = rng.standard_normal((words, dims)).astype(np.float32)
    hyps, refs = random_corpus(rng, 300, words)
    flat, offsets = flatten(refs)
    got = gpu.am_scores(csr_counts(hyps, words), csr_counts(flat, words), offsets, components, combine=how)
    assert not np.isnan(got).any()
    np.testing.assert_allclose(got, oracle.am_scores(hyps, refs, components.astype(np.float64), how), atol=2e-5)


@needs_cuda
def test_token_rows_with_unit_weights_give_count_weighting():
    rng = np.random.default_rng(13)
    components = rng.standard_normal((30, 16)).astype(np.float32)
    sentences, _ = random_corpus(rng, 100, 30)
    ids, offsets = gpu.token_rows(sentences)
    got = gpu.am_vectors((offsets, ids, np.ones(len(ids), np.float32)), components)
    np.testing.assert_allclose(got, gpu.am_vectors(csr_counts(sentences, 30), components), atol=1e-6)


@needs_cuda
@pytest.mark.parametrize("dims", DIMS)
def test_am_vectors_equal_the_oracle(dims):
    rng = np.random.default_rng(1 + dims)
    components = rng.standard_normal((40, dims)).astype(np.float32)
    sentences, _ = random_corpus(rng, 200, 40)
    got = gpu.am_vectors(csr_counts(sentences, 40), components)
    want = np.array([oracle.am_vector(s, components.astype(np.float64)) for s in sentences])
    np.testing.assert_allclose(got, want, atol=2e-5)


@needs_cuda
@pytest.mark.parametrize("dims", DIMS)
@pytest.mark.parametrize("clip", [True, False])
def test_cosine_over_references_equals_the_oracle(dims, clip):
    rng = np.random.default_rng(2 + dims)
    n = 257
    counts = rng.integers(0, 6, n)  # includes queries without references (score 0)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    queries = rng.standard_normal((n, dims)).astype(np.float32)
    refs = rng.standard_normal((offsets[-1], dims)).astype(np.float32)
    queries[3] = 0  # zero vectors have cosine 0
    refs[::7] = 0
    for how in ("max", "mean"):
        got = gpu.cosine_over_references(queries, refs, offsets, combine=how, clip=clip)
        want = oracle.cosine_over_references(queries.astype(np.float64), refs.astype(np.float64), offsets, how, clip)
        np.testing.assert_allclose(got, want, atol=2e-5)


@needs_cuda
def test_unaligned_rows_take_the_scalar_path():
    """A float32 view offset by one element is not 16-byte aligned: same answer."""
    rng = np.random.default_rng(5)
    base = rng.standard_normal(1 + 20 * 8).astype(np.float32)
    queries = base[1:].reshape(20, 8)
    offsets = np.arange(21, dtype=np.int64)
    got = gpu.cosine_over_references(queries, queries[::-1].copy(), offsets, clip=False)
    want = oracle.cosine_over_references(queries, queries[::-1], offsets, "max", False)
    np.testing.assert_allclose(got, want, atol=2e-5)


@needs_cuda
@pytest.mark.parametrize("dims", [1, 5, 32, 300])
@pytest.mark.parametrize("metric", ["embedding_average", "vector_extrema", "greedy_matching"])
def test_embedding_metrics_equal_the_oracle(dims, metric):
    rng = np.random.default_rng(3 + dims)
    words = 60
    vectors = rng.standard_normal((words, dims)).astype(np.float32)
    vectors[7] = 0  # an all-zero word vector (e.g. the "zero" out-of-vocabulary policy)
    hyps, refs = random_corpus(rng, 150, words)
    flat, offsets = flatten(refs)
    got = getattr(gpu, metric)(gpu.token_rows(hyps), gpu.token_rows(flat), offsets, vectors)
    want = getattr(oracle, metric)(hyps, refs, vectors.astype(np.float64))
    np.testing.assert_allclose(got, want, atol=2e-5)


@needs_cuda
def test_results_do_not_depend_on_batching():
    """Scoring in two chunks gives exactly the scores of one call."""
    rng = np.random.default_rng(9)
    vectors = rng.standard_normal((80, 64)).astype(np.float32)
    hyps, refs = random_corpus(rng, 400, 80)
    whole_flat, whole_off = flatten(refs)
    whole = gpu.greedy_matching(gpu.token_rows(hyps), gpu.token_rows(whole_flat), whole_off, vectors)
    parts = []
    for lo, hi in ((0, 123), (123, 400)):
        flat, off = flatten(refs[lo:hi])
        parts.append(gpu.greedy_matching(gpu.token_rows(hyps[lo:hi]), gpu.token_rows(flat), off, vectors))
    np.testing.assert_array_equal(np.concatenate(parts), whole)


@needs_cuda
def test_numpy_out_is_filled_in_place():
    q = np.eye(3, dtype=np.float32)
    out = np.full(3, np.nan, np.float32)
    result = gpu.cosine_over_references(q, q, np.arange(4), out=out)
    assert result is out and out.tolist() == [1.0, 1.0, 1.0]


@needs_cupy
@pytest.mark.parametrize("dims", [10, 300])
def test_cupy_inputs_give_cupy_outputs_in_place(dims):
    """Device arrays stay on the device; a NaN-poisoned out= is fully overwritten."""
    rng = np.random.default_rng(11)
    words = 70
    components = rng.standard_normal((words, dims)).astype(np.float32)
    hyps, refs = random_corpus(rng, 500, words)
    flat, offsets = flatten(refs)
    import cupyx.scipy.sparse as cusparse

    hyp_rows = cusparse.csr_matrix(csr_counts(hyps, words))
    ref_rows = cusparse.csr_matrix(csr_counts(flat, words))
    out = cupy.full(len(hyps), cupy.nan, dtype=cupy.float32)
    got = gpu.am_scores(hyp_rows, ref_rows, cupy.asarray(offsets), cupy.asarray(components), out=out)
    assert got is out
    np.testing.assert_allclose(cupy.asnumpy(got), oracle.am_scores(hyps, refs, components.astype(np.float64)),
                               atol=2e-5)

    vectors = cupy.asarray(components)
    out = cupy.full(len(hyps), cupy.nan, dtype=cupy.float32)
    hyp_tokens = tuple(cupy.asarray(a) for a in gpu.token_rows(hyps))
    ref_tokens = tuple(cupy.asarray(a) for a in gpu.token_rows(flat))
    got = gpu.vector_extrema(hyp_tokens, ref_tokens, cupy.asarray(offsets), vectors, out=out)
    assert got is out
    np.testing.assert_allclose(cupy.asnumpy(got), oracle.vector_extrema(hyps, refs, components.astype(np.float64)),
                               atol=2e-5)


@needs_cuda
def test_resident_matrices_give_the_same_scores():
    """U_k and word vectors uploaded once with to_device, numpy inputs per call."""
    rng = np.random.default_rng(12)
    table = rng.standard_normal((50, 24)).astype(np.float32)
    resident = gpu.to_device(table)
    hyps, refs = random_corpus(rng, 100, 50)
    flat, offsets = flatten(refs)
    np.testing.assert_array_equal(
        gpu.am_scores(csr_counts(hyps, 50), csr_counts(flat, 50), offsets, resident),
        gpu.am_scores(csr_counts(hyps, 50), csr_counts(flat, 50), offsets, table))
    np.testing.assert_array_equal(
        gpu.greedy_matching(gpu.token_rows(hyps), gpu.token_rows(flat), offsets, resident),
        gpu.greedy_matching(gpu.token_rows(hyps), gpu.token_rows(flat), offsets, table))
    with pytest.raises(TypeError, match=r"ref_offsets: ids and offsets are checked on the host"):
        gpu.cosine_over_references(resident, resident, gpu.to_device(np.zeros((51, 1))))


@needs_cuda
def test_device_array_round_trip_and_poison():
    device = fastamfm.runtime.cuda_module().DeviceArray
    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(device.from_host(host).to_host(), host)
    assert np.isnan(device.empty((5,), "<f4").to_host()).all()


@needs_cuda
def test_dstc6_am_and_embeddings_equal_the_oracle(dstc6_refs, dstc6_systems):
    """Real text: S_1's responses against the 11 references, with LSI vectors made
    from the references themselves (counts + truncated SVD)."""
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import CountVectorizer

    hyps_text = dstc6_systems["S_1"][:500]
    refs_text = dstc6_refs[:500]
    flat_text, offsets = flatten(refs_text)
    vectorizer = CountVectorizer(tokenizer=str.split, token_pattern=None, lowercase=False)
    term_doc = vectorizer.fit_transform(flat_text)
    components = TruncatedSVD(50, random_state=0).fit(term_doc).components_.T.astype(np.float32)
    vocab = vectorizer.vocabulary_
    hyps = [[vocab[w] for w in h.split() if w in vocab] for h in hyps_text]
    refs = [[[vocab[w] for w in r.split() if w in vocab] for r in group] for group in refs_text]
    flat, _ = flatten(refs)
    got = gpu.am_scores(csr_counts(hyps, len(vocab)), csr_counts(flat, len(vocab)), offsets, components)
    np.testing.assert_allclose(got, oracle.am_scores(hyps, refs, components.astype(np.float64)), atol=2e-5)
    for metric in ("embedding_average", "vector_extrema", "greedy_matching"):
        got = getattr(gpu, metric)(gpu.token_rows(hyps), gpu.token_rows(flat), offsets, components)
        want = getattr(oracle, metric)(hyps, refs, components.astype(np.float64))
        np.testing.assert_allclose(got, want, atol=2e-5, err_msg=metric)


def test_embedding_oracle_agrees_with_sklearn_cosine_similarity():
    """The oracle against nlg-eval's own formulation (sklearn cosine_similarity on the
    normalised sums, similarity matrices for Greedy Matching), on one reference set."""
    from sklearn.metrics.pairwise import cosine_similarity

    rng = np.random.default_rng(4)
    vectors = rng.standard_normal((30, 8))
    hyps, refs = random_corpus(rng, 40, 30, allow_empty=False, max_refs=1)
    refs = [[g[0]] for g in refs]
    avg_h = np.array([vectors[h].sum(0) / np.linalg.norm(vectors[h].sum(0)) for h in hyps])
    avg_r = np.array([vectors[g[0]].sum(0) / np.linalg.norm(vectors[g[0]].sum(0)) for g in refs])
    np.testing.assert_allclose(oracle.embedding_average(hyps, refs, vectors),
                               cosine_similarity(avg_r, avg_h).diagonal(), atol=1e-12)
    greedy = []
    for h, g in zip(hyps, refs):
        sim = cosine_similarity(vectors[g[0]], vectors[h])
        greedy.append((sim.max(axis=0).mean() + sim.max(axis=1).mean()) / 2)
    np.testing.assert_allclose(oracle.greedy_matching(hyps, refs, vectors), greedy, atol=1e-12)


# --- the binding layer's own checks of device arrays (no device needed) --------------

try:
    from fastamfm import _cuda
except ImportError:
    _cuda = None
needs_cuda_module = pytest.mark.skipif(_cuda is None, reason="fastamfm was built without the CUDA module")


class DeviceArrayStub:
    """Only a __cuda_array_interface__: the bindings read it before any CUDA call.
    The default address is fake but non-null; no test here reaches a kernel."""

    def __init__(self, shape, typestr="<f4", *, pointer=256, readonly=False, strides=None):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": typestr, "data": (pointer, readonly),
                                         "strides": strides, "version": 3}


@needs_cuda_module
def test_binding_rejects_wrong_device_arrays():
    q, r, off, out = DeviceArrayStub((0, 4)), DeviceArrayStub((0, 4)), DeviceArrayStub((1,), "<i8"), \
        DeviceArrayStub((0,))
    _cuda.cosine_over_references(q, r, off, out)  # empty batch: checked, nothing launched
    with pytest.raises(TypeError, match=r"queries: expected a <f4 device array, got <f8"):
        _cuda.cosine_over_references(DeviceArrayStub((0, 4), "<f8"), r, off, out)
    with pytest.raises(TypeError, match=r"refs: expected a CUDA device array \(with __cuda_array_interface__\), "
                                        r"got ndarray"):
        _cuda.cosine_over_references(q, np.zeros((0, 4), np.float32), off, out)
    with pytest.raises(ValueError, match=r"ref_offsets length \(queries \+ 1\): expected 1, got 2"):
        _cuda.cosine_over_references(q, r, DeviceArrayStub((2,), "<i8"), out)
    with pytest.raises(ValueError, match=r"refs dims: expected 4, got 3"):
        _cuda.cosine_over_references(q, DeviceArrayStub((0, 3)), off, out)
    with pytest.raises(ValueError, match=r"scores: device array is read-only"):
        _cuda.cosine_over_references(q, r, off, DeviceArrayStub((0,), readonly=True))
    with pytest.raises(ValueError, match=r"queries: device array must be C-contiguous"):
        _cuda.cosine_over_references(DeviceArrayStub((2, 4), strides=(4, 8)), r, DeviceArrayStub((3,), "<i8"),
                                     DeviceArrayStub((2,)))
    with pytest.raises(ValueError, match=r"queries: device array has a null data pointer"):
        _cuda.cosine_over_references(DeviceArrayStub((2, 4), pointer=0), r, off, out)
    with pytest.raises(ValueError, match=r"combine must be 'max' or 'mean', got 'sum'"):
        _cuda.cosine_over_references(q, r, off, out, combine="sum")


@needs_cuda_module
def test_binding_checks_kernel_extents():
    with pytest.raises(ValueError, match=r"out columns \(the components' dims\): expected 5, got 4"):
        _cuda.am_projection(DeviceArrayStub((1,), "<i8"), DeviceArrayStub((0,), "<i4"), DeviceArrayStub((0,)),
                            DeviceArrayStub((0, 5)), DeviceArrayStub((0, 4)))
    with pytest.raises(ValueError, match=r"data length \(one weight per index\): expected 0, got 1"):
        _cuda.am_projection(DeviceArrayStub((1,), "<i8"), DeviceArrayStub((0,), "<i4"), DeviceArrayStub((1,)),
                            DeviceArrayStub((0, 5)), DeviceArrayStub((0, 5)))
    with pytest.raises(ValueError, match=r"pooling must be 'sum' or 'extrema', got 'mean'"):
        _cuda.pool_token_vectors(DeviceArrayStub((0,), "<i4"), DeviceArrayStub((1,), "<i8"),
                                 DeviceArrayStub((0, 3)), DeviceArrayStub((0, 3)), "mean")
    with pytest.raises(ValueError, match=r"ref_offsets length \(hypotheses \+ 1\): expected 1, got 3"):
        _cuda.greedy_matching(DeviceArrayStub((0,), "<i4"), DeviceArrayStub((1,), "<i8"),
                              DeviceArrayStub((0,), "<i4"), DeviceArrayStub((1,), "<i8"),
                              DeviceArrayStub((3,), "<i8"), DeviceArrayStub((0, 3)), DeviceArrayStub((0,)))
    with pytest.raises(TypeError, match=r"DeviceArray: unsupported dtype <f8"):
        _cuda.DeviceArray.empty((3,), "<f8")
