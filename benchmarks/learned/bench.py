"""pytest-benchmark: fitting the learned scorers on 10k rated responses, beside scikit-learn.

    python3 benchmarks/run.py learned --benchmark-group-by=group

Data: 10,000 responses with one reference and a three-turn context each, Zipf-drawn from
the packaged LSI model's vocabulary (so encoding does real work), ratings from a noisy
function of word overlap. The peer fits scikit-learn's ``Ridge`` on the same bilinear
design matrix and must give the same weights (1e-8).

On a machine whose cores are shared with other work, multi-threaded OpenBLAS spins and
the timings swing by 5x; ``OPENBLAS_NUM_THREADS=1`` gives stable numbers.
"""
from __future__ import annotations

import fastamfm
import numpy as np
import pytest
from fastamfm.learned import LearnedScorer, linear
from fastamfm.learned.adem import design_matrix, fit_adem, reduce
from fastamfm.learned.encoders import (
    LsiEncoder,
    context_vectors,
    encode_texts,
    reference_vectors,
)
from fastamfm.learned.pca import Pca

N = 10_000
DIMS = 7


@pytest.fixture(scope="module")
def rated():
    rng = np.random.default_rng(0)
    vocabulary = np.array(fastamfm.AMFM.default().lsi.vocabulary)
    weights = 1.0 / np.arange(1, len(vocabulary) + 1)
    weights /= weights.sum()

    def sentences(count):
        lengths = rng.integers(4, 20, size=count)
        words = rng.choice(vocabulary, size=lengths.sum(), p=weights)
        return [" ".join(ws) for ws in np.split(words, np.cumsum(lengths)[:-1])]

    hyps, refs = sentences(N), [[r] for r in sentences(N)]
    contexts = [list(turns) for turns in np.array(sentences(3 * N), dtype=object).reshape(N, 3)]
    overlap = np.array([len(set(h.split()) & set(r[0].split())) for h, r in zip(hyps, refs)])
    ratings = 1 + np.clip(overlap, 0, 4) + rng.normal(scale=0.5, size=N)
    return ratings, hyps, refs, contexts


@pytest.fixture(scope="module")
def vectors(rated):
    _, hyps, refs, contexts = rated
    encoder = LsiEncoder(fastamfm.AMFM.default().lsi)
    return encode_texts(encoder, hyps), context_vectors(encoder, contexts, 0.7), reference_vectors(encoder, refs)


@pytest.fixture(scope="module")
def design(rated, vectors):
    h, c, r = vectors
    pca = Pca.fit(np.concatenate([c, r, h]), DIMS)
    x = design_matrix(reduce(pca, c), reduce(pca, r), reduce(pca, h))
    return x, rated[0]


@pytest.mark.benchmark(group="learned-fit-10k")
def test_adem_fit_end_to_end(benchmark, rated):
    """Encoding (LSI) of 10k responses, references and 30k context turns, PCA, fit."""
    ratings, hyps, refs, contexts = rated
    scorer = benchmark.pedantic(LearnedScorer.fit, args=(ratings, hyps, refs, contexts), rounds=3, iterations=1)
    assert scorer.model.context_weights.shape == (DIMS, DIMS)


@pytest.mark.benchmark(group="learned-fit-10k")
def test_adem_fit_from_vectors(benchmark, rated, vectors):
    h, c, r = vectors
    model = benchmark.pedantic(fit_adem, args=(rated[0], h, c, r), kwargs=dict(dims=DIMS), rounds=5, iterations=1)
    assert np.isfinite(model.alpha)


@pytest.mark.benchmark(group="learned-fit-10k")
def test_stack_fit_end_to_end(benchmark, rated):
    """BLEU-2, METEOR (when its resources are installed), ROUGE-L, AM, FM on 10k, then NNLS."""
    ratings, hyps, refs, _ = rated
    scorer = benchmark.pedantic(LearnedScorer.fit, args=(ratings, hyps, refs), kwargs=dict(kind="stack"),
                                rounds=3, iterations=1)
    assert (scorer.model.weights >= 0).all()


@pytest.mark.benchmark(group="ridge-on-design-10k")
def test_ridge_fastamfm(benchmark, design):
    x, y = design
    fit = benchmark.pedantic(linear.ridge, args=(x, y), kwargs=dict(penalty=1.0), rounds=5, iterations=1)
    Ridge = pytest.importorskip("sklearn.linear_model").Ridge
    peer = Ridge(alpha=1.0).fit(x, y)
    assert np.max(np.abs(fit.weights - peer.coef_)) < 1e-8 and abs(fit.intercept - peer.intercept_) < 1e-8


@pytest.mark.benchmark(group="ridge-on-design-10k")
def test_ridge_fastamfm_auto_penalty(benchmark, design):
    x, y = design
    fit = benchmark.pedantic(linear.ridge, args=(x, y), rounds=5, iterations=1)
    assert fit.penalty > 0


@pytest.mark.benchmark(group="ridge-on-design-10k")
def test_ridge_sklearn(benchmark, design):
    Ridge = pytest.importorskip("sklearn.linear_model").Ridge
    x, y = design
    benchmark.pedantic(lambda: Ridge(alpha=1.0).fit(x, y), rounds=5, iterations=1)


@pytest.mark.benchmark(group="ridge-on-design-10k")
def test_ridge_cv_sklearn(benchmark, design):
    """scikit-learn's leave-one-out RidgeCV over the same penalty grid as penalty='auto'."""
    RidgeCV = pytest.importorskip("sklearn.linear_model").RidgeCV
    x, y = design
    xc = x - x.mean(axis=0)
    grid = np.array(linear.AUTO_RIDGE_GRID) * np.linalg.eigvalsh(xc.T @ xc).mean()
    peer = benchmark.pedantic(lambda: RidgeCV(alphas=grid).fit(x, y), rounds=3, iterations=1)
    assert peer.alpha_ == pytest.approx(linear.ridge(x, y).penalty, rel=1e-9)
