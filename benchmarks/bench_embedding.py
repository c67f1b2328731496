"""pytest-benchmark: embedding metrics and word-vector loading, each beside its peer.

    FASTAMFM_SHARED_DATA=../shared/data PYTHONPATH=python python3 -m pytest benchmarks/bench_embedding.py

Groups: "embedding-dstc6" (fastamfm vs the numpy port of nlg-eval's formulas on 300
DSTC-6 responses x 11 references, 300-d vectors; scores asserted equal inside),
"wordvectors-load" (a 50k x 300 GloVe text file: fastamfm cached load, first load,
and pandas.read_csv).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE))

import fastamfm  # noqa: E402
from conftest import dstc6_dir, dstc6_refs, dstc6_systems  # noqa: E402,F401  (the shared data fixtures)
from fastamfm.metrics.embedding import embedding_metrics  # noqa: E402
from big_vector_file import write_big_glove  # noqa: E402
from oracles.embedding import Lookup, sentence_scores  # noqa: E402

N_RESPONSES = 300


@pytest.fixture(scope="module")
def problem(dstc6_systems, dstc6_refs):
    hyps = dstc6_systems["S_1"][:N_RESPONSES]
    refs = dstc6_refs[:N_RESPONSES]
    words = sorted({w for text in hyps + [r for g in refs for r in g] for w in text.split()})
    words = words[: int(len(words) * 0.9)]  # about a tenth of the words unknown, as with GloVe
    matrix = np.random.default_rng(0).normal(0, 0.4, size=(len(words), 300)).astype(np.float32)
    vectors = fastamfm.WordVectors.from_arrays(words, matrix)
    expected = sentence_scores(hyps, refs, Lookup(words, matrix))
    return hyps, fastamfm.References(refs), refs, vectors, Lookup(words, matrix), expected


def _assert_equal(scores, expected):
    for name, key in (("average", "EmbeddingAverageCosineSimilarity"), ("extrema", "VectorExtremaCosineSimilarity"),
                      ("greedy", "GreedyMatchingScore")):
        assert abs(scores[key] - expected[name].mean()) <= 1e-6


@pytest.mark.benchmark(group="embedding-dstc6")
def test_fastamfm_embedding_metrics(benchmark, problem):
    hyps, encoded, _, vectors, _, expected = problem
    scores = benchmark(embedding_metrics, hyps, encoded, vectors=vectors)
    _assert_equal(scores, expected)


@pytest.mark.benchmark(group="embedding-dstc6")
def test_numpy_port_of_nlgeval(benchmark, problem):
    hyps, _, refs, _, lookup, expected = problem
    result = benchmark.pedantic(sentence_scores, args=(hyps, refs, lookup), rounds=3, iterations=1)
    _assert_equal({"EmbeddingAverageCosineSimilarity": result["average"].mean(),
                   "VectorExtremaCosineSimilarity": result["extrema"].mean(),
                   "GreedyMatchingScore": result["greedy"].mean()}, expected)


@pytest.fixture(scope="module")
def glove_file(tmp_path_factory):
    return write_big_glove(tmp_path_factory.mktemp("vectors") / "glove_50k_300d.txt", n_words=50_000)


@pytest.mark.benchmark(group="wordvectors-load")
def test_fastamfm_cached_load(benchmark, glove_file):
    fastamfm.WordVectors.load(glove_file)  # builds the cache
    vectors = benchmark(fastamfm.WordVectors.load, glove_file)
    assert (len(vectors), vectors.dim) == (50_000, 300)


@pytest.mark.benchmark(group="wordvectors-load")
def test_fastamfm_first_load(benchmark, glove_file, tmp_path):
    def fresh_cache_dir():
        fresh_cache_dir.count += 1
        return (glove_file,), {"cache_dir": tmp_path / str(fresh_cache_dir.count)}
    fresh_cache_dir.count = 0
    vectors = benchmark.pedantic(fastamfm.WordVectors.load, setup=fresh_cache_dir, rounds=3)
    assert (len(vectors), vectors.dim) == (50_000, 300)


@pytest.mark.benchmark(group="wordvectors-load")
def test_pandas_read_csv(benchmark, glove_file):
    pd = pytest.importorskip("pandas")

    def read():
        frame = pd.read_csv(glove_file, sep=" ", header=None, quoting=3, index_col=0, dtype={0: str},
                            na_filter=False)
        return frame.to_numpy(dtype=np.float32)

    matrix = benchmark.pedantic(read, rounds=3)
    assert np.array_equal(matrix, fastamfm.WordVectors.load(glove_file).vectors)
