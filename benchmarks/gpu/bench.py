"""pytest-benchmark groups: GPU kernels beside the vectorised numpy/scipy CPU
pipeline, and ReferenceIndex beside numpy brute force; correctness asserted in each.

    python3 benchmarks/run.py gpu --benchmark-only

GPU rows skip without a CUDA device (or without a faiss GPU build).
"""
from __future__ import annotations

import fastamfm
import numpy as np
import pytest
from fastamfm import gpu

from benchmarks.gpu.workloads import (
    RaggedCorpus,
    brute_force_top1,
    clustered_vectors,
    cpu_am_scores,
    cpu_embedding_average,
    cpu_greedy_matching,
    unit_rows,
)

needs_cuda = pytest.mark.skipif(not fastamfm.HAS_CUDA, reason="needs a CUDA device")


@pytest.fixture(scope="module")
def corpus():
    return RaggedCorpus(2000, 11, 20000, seed=1)


@pytest.fixture(scope="module")
def components(corpus):
    return np.random.default_rng(0).standard_normal((corpus.words, 100)).astype(np.float32)


@pytest.fixture(scope="module")
def am_expected(corpus, components):
    return cpu_am_scores(corpus.hyp_rows, corpus.ref_rows, corpus.ref_offsets, components)


@pytest.mark.benchmark(group="am-2000x11-k100")
def test_am_cpu_numpy(benchmark, corpus, components, am_expected):
    h, r = corpus.hyp_rows, corpus.ref_rows
    got = benchmark(cpu_am_scores, h, r, corpus.ref_offsets, components)
    np.testing.assert_array_equal(got, am_expected)


@needs_cuda
@pytest.mark.benchmark(group="am-2000x11-k100")
def test_am_gpu(benchmark, corpus, components, am_expected):
    h, r = corpus.hyp_rows, corpus.ref_rows
    got = benchmark(gpu.am_scores, h, r, corpus.ref_offsets, components)
    np.testing.assert_allclose(got, am_expected, atol=2e-5)


@pytest.fixture(scope="module")
def vectors(corpus):
    return np.random.default_rng(3).standard_normal((corpus.words, 300)).astype(np.float32)


@pytest.mark.benchmark(group="embedding-average-2000x11-d300")
def test_embedding_average_cpu_numpy(benchmark, corpus, vectors):
    got = benchmark(cpu_embedding_average, corpus, vectors)
    assert got.shape == (2000,) and np.all(np.abs(got) <= 1 + 1e-6)


@needs_cuda
@pytest.mark.benchmark(group="embedding-average-2000x11-d300")
def test_embedding_average_gpu(benchmark, corpus, vectors):
    hyps, refs = (corpus.hyp_ids, corpus.hyp_offsets), (corpus.ref_ids, corpus.ref_token_offsets)
    got = benchmark(gpu.embedding_average, hyps, refs, corpus.ref_offsets, vectors)
    np.testing.assert_allclose(got, cpu_embedding_average(corpus, vectors), atol=2e-5)


@pytest.fixture(scope="module")
def small_corpus():
    return RaggedCorpus(200, 11, 20000, seed=4)


@pytest.mark.benchmark(group="greedy-200x11-d300")
def test_greedy_cpu_numpy(benchmark, small_corpus, vectors):
    got = benchmark.pedantic(cpu_greedy_matching, (small_corpus, vectors), rounds=3)
    assert got.shape == (200,) and np.all(np.abs(got) <= 1 + 1e-6)


@needs_cuda
@pytest.mark.benchmark(group="greedy-200x11-d300")
def test_greedy_gpu(benchmark, small_corpus, vectors):
    c = small_corpus
    got = benchmark(gpu.greedy_matching, (c.hyp_ids, c.hyp_offsets), (c.ref_ids, c.ref_token_offsets),
                    c.ref_offsets, vectors)
    np.testing.assert_allclose(got, cpu_greedy_matching(c, vectors), atol=2e-5)


# --- FAISS reference pool -------------------------------------------------------------

POOL, DIMS, QUERIES = 200_000, 32, 200


@pytest.fixture(scope="module")
def pool():
    return clustered_vectors(POOL, DIMS, seed=0)


@pytest.fixture(scope="module")
def queries():
    return clustered_vectors(QUERIES, DIMS, seed=1)


@pytest.fixture(scope="module")
def exact(pool, queries):
    return brute_force_top1(unit_rows(pool), queries)


@pytest.mark.benchmark(group="pool-search-200k")
def test_pool_numpy_brute_force(benchmark, pool, queries, exact):
    unit = unit_rows(pool)
    scores, ids = benchmark.pedantic(brute_force_top1, (unit, queries), rounds=3)
    np.testing.assert_array_equal(ids, exact[1])


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=needs_cuda)])
@pytest.mark.parametrize("kind", ["flat", "ivf"])
@pytest.mark.benchmark(group="pool-search-200k")
def test_pool_reference_index(benchmark, pool, queries, exact, kind, device):
    faiss = pytest.importorskip("faiss")
    if device == "cuda" and not hasattr(faiss, "StandardGpuResources"):
        pytest.skip("faiss has no GPU support here")
    index = fastamfm.ReferenceIndex(pool, kind=kind, nprobe=32, device=device)
    scores, ids = benchmark(index.search, queries, 1)
    recall = float(np.mean(ids[:, 0] == exact[1]))
    benchmark.extra_info["recall@1"] = recall
    assert recall == 1.0 if kind == "flat" else recall > 0.5
