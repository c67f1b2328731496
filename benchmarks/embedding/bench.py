"""pytest-benchmark: embedding metrics and word-vector loading, each beside its peer.

    FASTAMFM_SHARED_DATA=../shared/data python3 benchmarks/run.py embedding

Groups: "embedding-dstc6" (fastamfm ``evaluate`` with the three embedding metrics vs
the numpy port of nlg-eval's formulas on 300 DSTC-6 responses x 11 references, 300-d
vectors; scores asserted equal inside), "wordvectors-load" (a 50k x 300 GloVe text
file: fastamfm cached load, first load, and pandas.read_csv). Workloads and peers:
workloads.py.
"""
from __future__ import annotations

import fastamfm
import numpy as np
import pytest

from benchmarks.embedding import workloads as w

N_RESPONSES = 300


@pytest.fixture(scope="module")
def problem(dstc6_systems, dstc6_refs):
    hyps, refs = dstc6_systems["S_1"][:N_RESPONSES], dstc6_refs[:N_RESPONSES]
    vectors, lookup = w.small_problem(hyps, refs)
    return hyps, refs, vectors, lookup, w.numpy_port_scores(hyps, refs, lookup)


@pytest.mark.benchmark(group="embedding-dstc6")
def test_fastamfm_embedding_metrics(benchmark, problem):
    hyps, refs, vectors, _, expected = problem
    shared = fastamfm.References(refs)
    w.check_scores(benchmark(w.fastamfm_scores, hyps, shared, vectors), expected)


@pytest.mark.benchmark(group="embedding-dstc6")
def test_numpy_port_of_nlgeval(benchmark, problem):
    hyps, refs, vectors, lookup, _ = problem
    scores = benchmark.pedantic(w.numpy_port_scores, args=(hyps, refs, lookup), rounds=3, iterations=1)
    w.check_scores(w.fastamfm_scores(hyps, refs, vectors), scores)


@pytest.fixture(scope="module")
def glove_file(tmp_path_factory):
    return w.write_big_glove(tmp_path_factory.mktemp("vectors") / "glove_50k_300d.txt", n_words=50_000)


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
    pytest.importorskip("pandas")
    matrix = benchmark.pedantic(w.pandas_read_glove, args=(glove_file,), rounds=3)
    assert np.array_equal(matrix, fastamfm.WordVectors.load(glove_file).vectors)
