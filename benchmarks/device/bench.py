"""pytest-benchmark groups of the device run's kernels, each GPU row beside the CPU row
that computes the same numbers (asserted): the cosine-max-over-references kernel beside the
C++ core's ``adequacy_scores``, and the Embedding Average / Vector Extrema / Greedy Matching
kernels beside the public functions on the CPU.

    python3 benchmarks/run.py device --benchmark-group-by=group

GPU rows skip without a CUDA device; ``compare.py`` has every section with bytes/s against
the measured peak, and ``run_all.py`` the whole prepared run.
"""
from __future__ import annotations

import numpy as np
import pytest

import fastamfm
from fastamfm import _core

from benchmarks.gpu.workloads import RaggedCorpus

needs_cuda = pytest.mark.skipif(not fastamfm.HAS_CUDA, reason="needs a CUDA device")
ROWS, DIMS = 20_000, 64


@pytest.fixture(scope="module")
def unit_vectors():
    rng = np.random.default_rng(0)
    q = rng.standard_normal((ROWS, DIMS), dtype=np.float32)
    r = rng.standard_normal((ROWS * 11, DIMS), dtype=np.float32)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    r /= np.linalg.norm(r, axis=1, keepdims=True)
    return q, r, np.arange(0, ROWS * 11 + 1, 11, dtype=np.int64)


@pytest.fixture(scope="module")
def expected(unit_vectors):
    q, r, offsets = unit_vectors
    return _core.adequacy_scores(q, r, offsets.astype(np.uint64), "max", -1, True)


@pytest.mark.benchmark(group="cosine-max-20000x11-d64")
def test_cosine_max_cpu_core(benchmark, unit_vectors, expected):
    q, r, offsets = unit_vectors
    got = benchmark(_core.adequacy_scores, q, r, offsets.astype(np.uint64), "max", -1, True)
    np.testing.assert_array_equal(got, expected)


@needs_cuda
@pytest.mark.benchmark(group="cosine-max-20000x11-d64")
def test_cosine_max_cuda_kernel(benchmark, unit_vectors, expected):
    from fastamfm import _cuda

    device = [_cuda.DeviceArray.from_host(a) for a in unit_vectors]
    out = _cuda.DeviceArray.empty((ROWS,), "<f4")

    def kernel():
        _cuda.cosine_over_references(*device, out, "max", True, 0)
        _cuda.synchronize(0)

    benchmark(kernel)
    np.testing.assert_allclose(out.to_host(), expected, atol=2e-5)


@pytest.fixture(scope="module")
def texts():
    corpus = RaggedCorpus(2000, 11, 5000, seed=2)
    vectors = np.random.default_rng(3).standard_normal((corpus.words, 300)).astype(np.float32)
    words = [f"w{i}" for i in range(corpus.words)]

    def sentences(ids, offsets):
        return [" ".join(words[t] for t in ids[offsets[i]:offsets[i + 1]]) for i in range(len(offsets) - 1)]

    flat = sentences(corpus.ref_ids, corpus.ref_token_offsets)
    refs = [flat[i * 11:(i + 1) * 11] for i in range(2000)]
    return sentences(corpus.hyp_ids, corpus.hyp_offsets), refs, fastamfm.WordVectors.from_arrays(words, vectors)


METRICS = ["embedding_average", "vector_extrema", "greedy_matching"]
COLUMNS = {"embedding_average": "EmbeddingAverageCosineSimilarity", "vector_extrema": "VectorExtremaCosineSimilarity",
           "greedy_matching": "GreedyMatchingScore"}


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=needs_cuda)])
def test_embedding_metric(benchmark, texts, metric, device):
    hyps, refs, vectors = texts
    fn = getattr(fastamfm, metric)
    benchmark.group = f"{metric}-2000x11-d300"
    column = COLUMNS[metric]
    got = benchmark.pedantic(lambda: fn(hyps, refs, vectors=vectors, device=device).sentences[column], rounds=3)
    if device == "cuda":
        np.testing.assert_allclose(got, fn(hyps, refs, vectors=vectors).sentences[column], atol=1e-5)
