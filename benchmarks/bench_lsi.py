"""pytest-benchmark: LSI training and AM scoring beside their scikit-learn peers.

    PYTHONPATH=python python -m pytest benchmarks/bench_lsi.py --benchmark-group-by=group

Sizes are moderate so the file runs in a minute or two; benchmarks/compare_lsi.py runs
the full-size comparisons (1M x 100k SVD, 10M-sentence out-of-core training).
Every benchmark checks that both sides computed the same thing.
"""
from __future__ import annotations

import numpy as np
import pytest

import fastamfm
from compare_lsi import SHARED, FastamfmAM, SklearnAM, make_matrix, load_matrix, regex_amfm_tokenize
from fastamfm.lsi import sparse_randomized_svd

K, OVERSAMPLING, POWER_ITERATIONS = 50, 10, 5


@pytest.fixture(scope="module")
def tfidf_matrix(tmp_path_factory):
    path = tmp_path_factory.mktemp("lsi") / "tfidf.npz"
    make_matrix(path, docs=100_000, terms=20_000, mean_length=15.0)
    return load_matrix(path)


@pytest.fixture(scope="module")
def sklearn_singular_values(tfidf_matrix):
    from sklearn.utils.extmath import randomized_svd

    return randomized_svd(tfidf_matrix, K, n_oversamples=OVERSAMPLING, n_iter=POWER_ITERATIONS, random_state=0)[1]


@pytest.mark.benchmark(group="lsi-randomized-svd")
def test_svd_fastamfm(benchmark, tfidf_matrix, sklearn_singular_values):
    s, _ = benchmark.pedantic(sparse_randomized_svd, args=(tfidf_matrix, K),
                              kwargs=dict(oversampling=OVERSAMPLING, power_iterations=POWER_ITERATIONS),
                              rounds=3, iterations=1)
    assert np.max(np.abs(s[:10] - sklearn_singular_values[:10]) / sklearn_singular_values[:10]) < 1e-3


@pytest.mark.benchmark(group="lsi-randomized-svd")
def test_svd_sklearn(benchmark, tfidf_matrix, sklearn_singular_values):
    from sklearn.utils.extmath import randomized_svd

    _, s, _ = benchmark.pedantic(randomized_svd, args=(tfidf_matrix, K),
                                 kwargs=dict(n_oversamples=OVERSAMPLING, n_iter=POWER_ITERATIONS, random_state=0),
                                 rounds=3, iterations=1)
    assert np.allclose(s, sklearn_singular_values)


@pytest.fixture(scope="module")
def twcs_turns():
    if not (SHARED / "twcs_airlines").exists():
        pytest.skip(f"{SHARED / 'twcs_airlines'} is absent")
    from oracles.lsi import twcs_agent_turns

    return twcs_agent_turns(SHARED / "twcs_airlines")


@pytest.mark.benchmark(group="lsi-train-twcs")
def test_train_fastamfm(benchmark, twcs_turns):
    model = benchmark.pedantic(fastamfm.LsiModel.train, args=(twcs_turns,), kwargs=dict(dims=K),
                               rounds=3, iterations=1)
    assert model.dims == K and len(model.vocabulary) > 10_000


@pytest.mark.benchmark(group="lsi-train-twcs")
def test_train_sklearn(benchmark, twcs_turns):
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.utils.extmath import randomized_svd

    def train():
        cv = CountVectorizer(tokenizer=regex_amfm_tokenize, lowercase=False, token_pattern=None, dtype=np.float64)
        x = cv.fit_transform(twcs_turns)
        _, s, vt = randomized_svd(x, K, n_oversamples=OVERSAMPLING, n_iter=POWER_ITERATIONS, random_state=0)
        return cv.get_feature_names_out(), s

    words, s = benchmark.pedantic(train, rounds=3, iterations=1)
    model = fastamfm.LsiModel.train(twcs_turns, dims=K)
    assert list(words) == model.vocabulary
    assert np.max(np.abs(s[:10] - model.singular_values[:10]) / s[:10]) < 1e-3


@pytest.fixture(scope="module")
def dstc6():
    root = SHARED / "dstc6_t2_evaluation"
    if not root.exists():
        pytest.skip(f"{root} is absent")
    from fastamfm.io import read_lines, read_parallel_files

    refs = read_parallel_files([root / "references" / "original_refs.txt"] +
                               [root / "references" / f"refgen_result{i}.txt" for i in range(1, 11)])
    return refs, read_lines(root / "hypotheses" / "S_1.txt")


@pytest.fixture(scope="module")
def am_model(twcs_turns):
    return fastamfm.LsiModel.train(twcs_turns, dims=100)


@pytest.mark.benchmark(group="lsi-am-one-system")
@pytest.mark.parametrize("side", [FastamfmAM, SklearnAM], ids=["fastamfm", "sklearn"])
def test_am_score_one_system(benchmark, dstc6, am_model, side):
    refs, hyps = dstc6
    scorer = side(refs, am_model, 100)  # references encoded once, outside the timing
    scores = benchmark(scorer.score, hyps)
    oracle = SklearnAM(refs, am_model, 100).score(hyps)
    assert np.max(np.abs(scores - oracle)) <= 1e-5
