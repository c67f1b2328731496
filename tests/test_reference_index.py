"""fastamfm.ReferenceIndex against a numpy brute-force oracle (FAISS on the CPU here;
the GPU index when faiss has CUDA support and a device answers)."""
from __future__ import annotations

import sys

import fastamfm
import numpy as np
import pytest

faiss = pytest.importorskip("faiss", reason="ReferenceIndex needs faiss (pip install faiss-cpu)")

needs_faiss_gpu = pytest.mark.skipif(
    not (fastamfm.HAS_CUDA and hasattr(faiss, "StandardGpuResources") and faiss.get_num_gpus() > 0),
    reason="needs a CUDA device and a faiss build with GPU support",
)


def unit_rows(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return np.divide(x, norms, out=np.zeros_like(x), where=norms > 0)


def brute_force(pool: np.ndarray, queries: np.ndarray, k: int):
    """Exact cosines of every query with every pool row, best first (float64)."""
    sims = unit_rows(queries.astype(np.float64)) @ unit_rows(pool.astype(np.float64)).T
    order = np.argsort(-sims, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(sims, order, axis=1), order


def clustered(rng, n, dims, centers=50):
    """Vectors around a few directions, as sentence embeddings of a response pool are."""
    middles = rng.standard_normal((centers, dims))
    return (middles[rng.integers(0, centers, n)] + 0.3 * rng.standard_normal((n, dims))).astype(np.float32)


def test_flat_search_is_exact():
    rng = np.random.default_rng(0)
    pool = rng.standard_normal((3000, 24)).astype(np.float32)
    pool[17] = 0  # a zero vector has cosine 0 with every query
    queries = rng.standard_normal((200, 24)).astype(np.float32)
    index = fastamfm.ReferenceIndex(pool)
    scores, ids = index.search(queries, 10)
    want_scores, want_ids = brute_force(pool, queries, 10)
    np.testing.assert_allclose(scores, want_scores, atol=1e-5)
    np.testing.assert_array_equal(ids, want_ids)
    assert scores.dtype == np.float32 and ids.dtype == np.int64 and len(index) == 3000


def test_adequacy_is_clipped_max_cosine_over_the_pool():
    rng = np.random.default_rng(1)
    pool = rng.standard_normal((500, 6)).astype(np.float32)
    hyps = rng.standard_normal((300, 6)).astype(np.float32)
    hyps[0] = 0  # no known words: AM 0
    hyps[1] = -pool.sum(axis=0)  # points away from most of the pool
    result = fastamfm.ReferenceIndex(pool).adequacy(hyps)
    best = brute_force(pool, hyps, 1)[0][:, 0]
    np.testing.assert_allclose(result.sentences["AM"], np.clip(best, 0, 1), atol=1e-6)
    assert result.sentences["AM"][0] == 0.0
    assert result.corpus["AM"] == pytest.approx(result.sentences["AM"].mean())
    assert "kind=flat" in result.signature and "pool=500" in result.signature


def test_ivf_probing_every_list_is_exact():
    rng = np.random.default_rng(2)
    pool = clustered(rng, 4000, 16)
    queries = clustered(rng, 100, 16)
    index = fastamfm.ReferenceIndex(pool, kind="ivf", nlist=32, nprobe=32)
    scores, ids = index.search(queries, 5)
    want_scores, want_ids = brute_force(pool, queries, 5)
    np.testing.assert_allclose(scores, want_scores, atol=1e-5)
    np.testing.assert_array_equal(ids, want_ids)


def test_ivf_recall_and_adequacy_bound():
    """Recall@1 of the approximate index against the exact one; an IVF adequacy can
    only miss the best reference, so it never exceeds the exact adequacy."""
    rng = np.random.default_rng(3)
    pool = clustered(rng, 20000, 32)
    queries = clustered(rng, 500, 32)
    exact_ids = brute_force(pool, queries, 1)[1][:, 0]
    index = fastamfm.ReferenceIndex(pool, kind="ivf", nprobe=1)
    assert index.nlist == 20000 // 39  # 4 sqrt(n) = 566 would leave k-means under 39 points per list
    recalls = {}
    for nprobe in (1, 4, 16):
        index.nprobe = nprobe
        recalls[nprobe] = float(np.mean(index.search(queries, 1)[1][:, 0] == exact_ids))
    assert recalls[1] <= recalls[4] <= recalls[16]
    assert recalls[16] >= 0.95, recalls
    approx = index.adequacy(queries).sentences["AM"]
    exact = fastamfm.ReferenceIndex(pool).adequacy(queries).sentences["AM"]
    assert np.all(approx <= exact + 1e-6)


def test_ivf_with_empty_probed_lists_pads_with_missing():
    pool = np.eye(4, dtype=np.float32)
    index = fastamfm.ReferenceIndex(pool, kind="ivf", nlist=4, nprobe=1)
    scores, ids = index.search(np.eye(4, dtype=np.float32), 4)
    assert (ids[:, 1:] == -1).all() and np.isneginf(scores[:, 1:]).all()
    np.testing.assert_array_equal(ids[:, 0], [0, 1, 2, 3])


def test_adding_in_batches_equals_one_pool():
    rng = np.random.default_rng(4)
    pool = rng.standard_normal((1000, 8)).astype(np.float32)
    queries = rng.standard_normal((50, 8)).astype(np.float32)
    whole = fastamfm.ReferenceIndex(pool)
    parts = fastamfm.ReferenceIndex(pool[:300])
    parts.add(pool[300:])
    for a, b in zip(whole.search(queries, 7), parts.search(queries, 7)):
        np.testing.assert_array_equal(a, b)


def test_ivf_is_reproducible_with_a_seed():
    rng = np.random.default_rng(5)
    pool = clustered(rng, 3000, 8)
    queries = clustered(rng, 100, 8)
    a = fastamfm.ReferenceIndex(pool, kind="ivf", nlist=20, nprobe=2, seed=7).search(queries, 3)
    b = fastamfm.ReferenceIndex(pool, kind="ivf", nlist=20, nprobe=2, seed=7).search(queries, 3)
    np.testing.assert_array_equal(a[1], b[1])


def test_texts_with_an_lsi_style_model():
    """Texts go through the encoder's transform; a scikit-learn LSI pipeline is such an encoder."""
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.pipeline import make_pipeline

    pool_texts = [f"the flight {w} was {v}" for w in ("delay", "gate", "crew", "seat") for v in
                  ("late", "fine", "great", "bad", "ok")] + ["thank you for flying with us", "zzz qqq"]
    model = make_pipeline(CountVectorizer(), TruncatedSVD(5, random_state=0)).fit(pool_texts)
    index = fastamfm.ReferenceIndex(pool_texts, model)
    hyps = ["the crew was great", "unknown words only", "thank you"]
    got = index.adequacy(hyps).sentences["AM"]
    want = np.clip(brute_force(model.transform(pool_texts), model.transform(hyps), 1)[0][:, 0], 0, 1)
    np.testing.assert_allclose(got, want, atol=1e-6)
    assert got[1] == 0.0  # no word of the model's vocabulary
    index.add(iter(["one more reference"]))
    assert len(index) == len(pool_texts) + 1


# --- bad input ---------------------------------------------------------------------

@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"kind": "hnsw"}, ValueError, r"kind must be one of \('flat', 'ivf'\), got 'hnsw'"),
        ({"kind": "ivf", "nlist": 11}, ValueError, r"nlist = 11 exceeds the pool size 10"),
        ({"kind": "ivf", "nlist": 0}, ValueError, r"nlist must be a positive integer, got 0"),
        ({"nprobe": 0}, ValueError, r"nprobe must be a positive integer, got 0"),
        ({"device": "tpu"}, ValueError, r"device must be 'cpu', 'cuda', 'cuda:N' or 'auto', got 'tpu'"),
    ],
)
def test_bad_options(kwargs, error, message):
    with pytest.raises(error, match=message):
        fastamfm.ReferenceIndex(np.ones((10, 3), np.float32), **kwargs)


@pytest.mark.parametrize(
    "pool, error, message",
    [
        (np.ones((0, 3)), ValueError, "pool is empty"),
        ([], ValueError, "pool is empty"),
        (np.ones(3), ValueError, r"pool must be a 2-D array \(rows x dims\), got shape \(3,\)"),
        (np.ones((3, 0)), ValueError, "pool has no columns"),
        (np.array([[1.0, np.nan], [1.0, 2.0]]), ValueError, r"pool\[0\] holds NaN or infinity"),
        (np.array([[1.0, 1.0], [np.inf, 2.0]]), ValueError, r"pool\[1\] holds NaN or infinity"),
        (["some text"], TypeError, r"pool holds texts, which need encoder="),
        (np.array([["a", "b"]]), TypeError, "pool must hold real numbers"),
    ],
)
def test_bad_pools(pool, error, message):
    with pytest.raises(error, match=message):
        fastamfm.ReferenceIndex(pool)


def test_bad_queries():
    index = fastamfm.ReferenceIndex(np.eye(3, dtype=np.float32))
    with pytest.raises(ValueError, match=r"queries has 2 dims but the index holds 3-dim vectors"):
        index.search(np.ones((1, 2)), 1)
    with pytest.raises(ValueError, match=r"k must be an integer in \[1, 3\] \(the pool size\), got 4"):
        index.search(np.ones((1, 3)), 4)
    with pytest.raises(ValueError, match=r"k must be an integer in \[1, 3\] \(the pool size\), got 0"):
        index.search(np.ones((1, 3)), 0)
    with pytest.raises(ValueError, match=r"nprobe must be a positive integer, got -2"):
        index.nprobe = -2


def test_model_returning_the_wrong_shape():
    class Broken:
        def transform(self, texts):
            return np.ones((len(texts) + 1, 3))

    with pytest.raises(ValueError, match=r"encoder.transform returned shape \(3, 3\) for 2 pool; expected one vector"):
        fastamfm.ReferenceIndex(["a b", "c"], Broken())


@pytest.mark.skipif(fastamfm.HAS_CUDA, reason="checks the error raised without a CUDA device")
def test_cuda_without_a_device_raises_the_backend_error():
    with pytest.raises(RuntimeError, match="device='cuda' requested but CUDA is unavailable"):
        fastamfm.ReferenceIndex(np.eye(3, dtype=np.float32), device="cuda")


def test_missing_faiss_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "faiss", None)  # makes `import faiss` raise ImportError
    with pytest.raises(ImportError, match=r"pip install '\.\[faiss\]' in the fastamfm checkout"):
        fastamfm.ReferenceIndex(np.eye(3, dtype=np.float32))


@pytest.mark.gpu
@needs_faiss_gpu
@pytest.mark.parametrize("kind", ["flat", "ivf"])
def test_gpu_index_equals_cpu_index(kind):
    rng = np.random.default_rng(6)
    pool = clustered(rng, 20000, 32)
    queries = clustered(rng, 300, 32)
    options = {"kind": kind, "nlist": 64, "nprobe": 64} if kind == "ivf" else {"kind": kind}
    cpu = fastamfm.ReferenceIndex(pool, **options).search(queries, 5)
    gpu = fastamfm.ReferenceIndex(pool, device="cuda", **options).search(queries, 5)
    np.testing.assert_allclose(gpu[0], cpu[0], atol=1e-4)
    assert np.mean(gpu[1] == cpu[1]) > 0.99  # float32 ties may order differently


def test_dstc6_reference_pool(dstc6_refs, dstc6_systems):
    """Real text: all 22,000 DSTC-6 references as one pool of LSI vectors (counts +
    truncated SVD fitted on the pool), S_1's responses as hypotheses. Flat equals the
    brute-force adequacy; IVF recall@1 is measured and its adequacy never exceeds it."""
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.pipeline import make_pipeline

    pool_texts = [r for group in dstc6_refs for r in group]
    hyps = dstc6_systems["S_1"]
    model = make_pipeline(CountVectorizer(tokenizer=str.split, token_pattern=None, lowercase=False),
                          TruncatedSVD(50, random_state=0)).fit(pool_texts)
    pool_vectors = model.transform(pool_texts)
    hyp_vectors = model.transform(hyps)
    best = brute_force(pool_vectors, hyp_vectors, 1)[0]

    flat = fastamfm.ReferenceIndex(pool_texts, model)
    np.testing.assert_allclose(flat.adequacy(hyps).sentences["AM"], np.clip(best[:, 0], 0, 1), atol=1e-5)

    ivf = fastamfm.ReferenceIndex(pool_vectors, kind="ivf")
    exact = np.clip(best[:, 0], 0, 1)
    recalls = []
    for nprobe in (8, 32):
        ivf.nprobe = nprobe
        approx = ivf.adequacy(hyp_vectors).sentences["AM"]
        assert np.all(approx <= exact + 1e-5)
        # Recall is judged on the score: duplicate references tie at the same cosine.
        recalls.append(float(np.mean(approx >= exact - 1e-5)))
    assert recalls[0] >= 0.75 and recalls[1] >= 0.95, recalls


@pytest.mark.parametrize("kind", ["flat", "ivf"])
def test_save_and_load_give_the_same_searches(tmp_path, kind):
    rng = np.random.default_rng(8)
    pool = clustered(rng, 4000, 16)
    queries = clustered(rng, 50, 16)
    index = fastamfm.ReferenceIndex(pool, kind=kind, nlist=40, nprobe=4)
    index.save(tmp_path / "pool.faiss")
    loaded = fastamfm.ReferenceIndex.load(tmp_path / "pool.faiss", nprobe=4)
    assert (loaded.kind, loaded.nlist, loaded.dims, len(loaded)) == (index.kind, index.nlist, 16, 4000)
    for a, b in zip(index.search(queries, 3), loaded.search(queries, 3)):
        np.testing.assert_array_equal(a, b)


def test_loading_a_file_that_is_not_a_reference_index(tmp_path):
    bad = tmp_path / "garbage.faiss"
    bad.write_bytes(b"garbage, not an index")
    with pytest.raises(fastamfm.FormatError, match=r"garbage.faiss: not a FAISS index \(.*not recognized"):
        fastamfm.ReferenceIndex.load(bad)
    l2 = tmp_path / "l2.faiss"
    index = faiss.IndexFlatL2(4)
    l2.write_bytes(faiss.serialize_index(index).tobytes())
    with pytest.raises(fastamfm.FormatError, match=r"l2.faiss: a FAISS IndexFlatL2 index, not a ReferenceIndex"):
        fastamfm.ReferenceIndex.load(l2)
