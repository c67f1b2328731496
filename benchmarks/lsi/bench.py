"""pytest-benchmark: LSI training and AM scoring beside their scikit-learn peers.

    python3 benchmarks/run.py lsi --benchmark-group-by=group

Sizes are moderate so the file runs in a minute or two; compare.py runs the
full-size comparisons (1M x 100k SVD, 10M-sentence out-of-core training). Workloads
and peers: workloads.py. Every benchmark checks that both sides computed the
same thing.
"""
from __future__ import annotations

import fastamfm
import numpy as np
import pytest

from benchmarks.lsi import workloads as w

K = 50


@pytest.fixture(scope="module")
def tfidf_matrix(tmp_path_factory):
    path = tmp_path_factory.mktemp("lsi") / "tfidf.npz"
    w.make_matrix(path, docs=100_000, terms=20_000, mean_length=15.0)
    return w.load_matrix(path)


@pytest.fixture(scope="module")
def sklearn_singular_values(tfidf_matrix):
    return w.sklearn_svd(tfidf_matrix, K)


@pytest.mark.benchmark(group="lsi-randomized-svd")
def test_svd_fastamfm(benchmark, tfidf_matrix, sklearn_singular_values):
    s = benchmark.pedantic(w.fastamfm_svd, args=(tfidf_matrix, K), rounds=3, iterations=1)
    assert np.max(np.abs(s[:10] - sklearn_singular_values[:10]) / sklearn_singular_values[:10]) < 1e-3


@pytest.mark.benchmark(group="lsi-randomized-svd")
def test_svd_sklearn(benchmark, tfidf_matrix, sklearn_singular_values):
    s = benchmark.pedantic(w.sklearn_svd, args=(tfidf_matrix, K), rounds=3, iterations=1)
    assert np.allclose(s, sklearn_singular_values)


@pytest.fixture(scope="module")
def twcs_turns(twcs_dir):
    from oracles.lsi import twcs_agent_turns

    return twcs_agent_turns(twcs_dir)


@pytest.mark.benchmark(group="lsi-train-twcs")
def test_train_fastamfm(benchmark, twcs_turns):
    model = benchmark.pedantic(fastamfm.LsiModel.train, args=(twcs_turns,), kwargs={"dims": K},
                               rounds=3, iterations=1)
    assert model.dims == K and len(model.vocabulary) > 10_000


@pytest.mark.benchmark(group="lsi-train-twcs")
def test_train_sklearn(benchmark, twcs_turns):
    words, s = benchmark.pedantic(w.sklearn_train, args=(twcs_turns, K), rounds=3, iterations=1)
    model = fastamfm.LsiModel.train(twcs_turns, dims=K)
    assert list(words) == model.vocabulary
    assert np.max(np.abs(s[:10] - model.singular_values[:10]) / s[:10]) < 1e-3


@pytest.fixture(scope="module")
def am_model(twcs_turns):
    return fastamfm.LsiModel.train(twcs_turns, dims=100)


@pytest.mark.benchmark(group="lsi-am-one-system")
@pytest.mark.parametrize("side", [w.FastamfmAM, w.SklearnAM], ids=["fastamfm", "sklearn"])
def test_am_score_one_system(benchmark, dstc6_refs, dstc6_systems, am_model, side):
    hyps = dstc6_systems["S_1"]
    scorer = side(dstc6_refs, am_model, 100)  # references encoded once, outside the timing
    scores = benchmark(scorer.score, hyps)
    oracle = w.SklearnAM(dstc6_refs, am_model, 100).score(hyps)
    assert np.max(np.abs(scores - oracle)) <= 1e-5
