"""fastamfm.tune: every grid row equals scoring with that setting and correlating with scipy."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as st
from amfm_helpers import tiny_corpus, tiny_pairs, train_tiny
from fastamfm import AMFM, tune
from fastamfm.amfm.tuning import TUNED_NOTE


@pytest.fixture(scope="module")
def scorer():
    return train_tiny()


@pytest.fixture(scope="module")
def task():
    """Six systems that copy a growing share of a reference; humans like copying."""
    hyps, refs = tiny_pairs(50, n_refs=3, seed=4)
    rng = np.random.default_rng(0)
    systems, human = {}, {}
    for i in range(6):
        own, _ = tiny_pairs(50, seed=20 + i)
        systems[f"S_{i}"] = [r[1] if rng.random() < i / 6 else h for h, r in zip(own, refs)]
        human[f"S_{i}"] = 2.0 + 0.3 * i + 0.2 * rng.random()
    return systems, refs, human


def _expected(scorer, systems, refs, human, **settings):
    s = scorer.with_settings(**settings)
    means = [s.score(h, refs).corpus["AM-FM"] for h in systems.values()]
    ratings = [human[k] for k in systems]
    return st.pearsonr(means, ratings)[0], st.spearmanr(means, ratings)[0]


def test_rows_equal_scoring_each_setting(scorer, task):
    systems, refs, human = task
    result = tune(systems, refs, human, model=scorer, lams=(0.0, 0.5, 1.0), dims=(2, 8),
                  combines=(("max", "mean"), ("mean", "max")), means=("arithmetic", "harmonic"))
    assert len(result) == 3 * 2 * 2 * 2
    for row in result.rows[::3]:
        pearson, spearman = _expected(scorer, systems, refs, human, lam=row.lam, dims=row.dims,
                                      am_combine=row.am_combine, fm_combine=row.fm_combine, mean=row.mean)
        assert row.pearson == pytest.approx(pearson, abs=1e-10)
        assert row.spearman == pytest.approx(spearman, abs=1e-10)
        assert row.order == scorer.lm.order
    best = result.best()
    assert best.pearson == max(r.pearson for r in result.rows)
    x, y = result.curve("lam")
    assert list(x) == [0.0, 0.5, 1.0] and len(y) == 3
    dims, _ = result.curve("dims")
    assert list(dims) == [2, 8]


def test_corpus_grid_trains_one_svd_and_one_lm_per_order(task):
    systems, refs, human = task
    corpus = tiny_corpus(2000)
    result = tune(systems, refs, human, corpus=corpus, lams=(0.5,), dims=(3, 6), orders=(2, 3),
                  tokenize="whitespace", workers=2)
    assert {(r.dims, r.order) for r in result.rows} == {(3, 2), (3, 3), (6, 2), (6, 3)}
    trained = AMFM.train(corpus, dims=6, order=3, tokenize="whitespace", workers=2)
    row = next(r for r in result.rows if (r.dims, r.order) == (3, 3))
    pearson, _ = _expected(trained, systems, refs, human, dims=3)
    assert row.pearson == pytest.approx(pearson, abs=1e-10)


def test_result_is_marked_as_tuned(scorer, task):
    systems, refs, human = task
    result = tune(systems, refs, human, model=scorer, lams=(0.5,))
    assert result.note == TUNED_NOTE
    assert str(result).startswith("TUNED ON THE EVALUATION DATA")
    assert len(result.to_records()) == 1


def test_utterance_level(scorer, task):
    systems, refs, human = task
    per_response = {k: np.linspace(1, 5, len(v)) for k, v in systems.items()}
    result = tune(systems, refs, per_response, model=scorer, lams=(0.5,), level="utterance")
    scores = np.concatenate([scorer.score(h, refs).amfm for h in systems.values()])
    assert result.rows[0].pearson == pytest.approx(st.pearsonr(scores, np.concatenate(list(per_response.values())))[0])
    assert result.points == 300


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(), ValueError, "exactly one of model="),
    (dict(model="x"), TypeError, "model must be an AMFM"),
    (dict(model=True, lams=(1.5,)), ValueError, r"lams must be numbers in \[0, 1\]"),
    (dict(model=True, dims=(100,)), ValueError, "dims up to 100 asked for but the model's LSI has 8"),
    (dict(model=True, dims=(0,)), ValueError, "dims must hold positive integers"),
    (dict(model=True, orders=(5,)), ValueError, "only its own LM order"),
    (dict(model=True, means=("median",)), ValueError, "mean must be one of"),
    (dict(model=True, combines=(("max",),)), ValueError, "am_combine, fm_combine"),
    (dict(model=True, level="corpus"), ValueError, "level must be"),
])
def test_bad_input(scorer, task, kwargs, error, message):
    systems, refs, human = task
    if kwargs.get("model") is True:
        kwargs["model"] = scorer
    with pytest.raises(error, match=message):
        tune(systems, refs, human, **kwargs)


def test_missing_human_rating(scorer, task):
    systems, refs, human = task
    with pytest.raises(ValueError, match=r"no human rating for systems \['S_0'\]"):
        tune(systems, refs, {k: v for k, v in human.items() if k != "S_0"}, model=scorer)
