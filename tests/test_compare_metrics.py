"""fastamfm.compare_metrics: the Williams test against a published worked example and the
formula written out, the paired bootstrap against a plain loop, and bad input."""
from __future__ import annotations

import json

import fastamfm
import numpy as np
import pytest
import scipy.stats
from fastamfm.analysis.metric_comparison import williams_test
from oracles import significance as oracle


def test_williams_equals_the_published_worked_example():
    """Howell, Statistical Methods for Psychology (6th ed., p. 262), as worked in Weaver's
    SPSS syntax for Williams' (1959) test (CBU statistics wiki, FAQ/Will): r12 = .80,
    r13 = .72, r23 = .89, n = 26 -> t = 1.361, df = 23, two-tailed p = .187."""
    t, p = williams_test(0.80, 0.72, 0.89, 26, alternative="two-sided")
    assert round(t, 3) == 1.361
    assert round(p, 3) == 0.187
    t_one, p_one = williams_test(0.80, 0.72, 0.89, 26)
    assert t_one == t and p_one == pytest.approx(p / 2, rel=1e-12)


def _metrics(n=60, seed=0):
    rng = np.random.default_rng(seed)
    human = rng.normal(size=n)
    return {"close": human + rng.normal(scale=0.6, size=n),
            "closer": human + rng.normal(scale=0.3, size=n),
            "far": 0.3 * human + rng.normal(size=n),
            "ties": np.round(human + rng.normal(size=n))}, human


def test_williams_matrix_equals_the_formula_written_out():
    scores, human = _metrics()
    res = fastamfm.compare_metrics(scores, human, correction="none")
    names = list(scores)
    assert res.names == names and res.method == "williams" and res.correlation == "pearson"
    for i, a in enumerate(names):
        assert res.correlations[i] == pytest.approx(scipy.stats.pearsonr(scores[a], human)[0], abs=1e-12)
        for j, b in enumerate(names):
            if i == j:
                assert np.isnan(res.p_values[i, j])
                continue
            t = oracle.williams_t(scipy.stats.pearsonr(scores[a], human)[0], scipy.stats.pearsonr(scores[b], human)[0],
                                  scipy.stats.pearsonr(scores[a], scores[b])[0], len(human))
            assert res.p_value(a, b) == pytest.approx(scipy.stats.t.sf(t, len(human) - 3), rel=1e-9)
            assert res.p_values[i, j] + res.p_values[j, i] == pytest.approx(1.0)
    assert "far" not in res.better_than("closer")
    assert {"close", "closer"} <= set(res.better_than("far"))


@pytest.mark.parametrize("method", ["spearman", "kendall", "pearson"])
def test_bootstrap_equals_a_plain_loop_on_the_same_seed(method):
    scores, human = _metrics(n=40, seed=3)
    res = fastamfm.compare_metrics(scores, human, method="bootstrap", correlation=method, resamples=200, seed=5,
                                   correction="none")
    for a in ("close", "ties"):
        for b in ("closer", "far"):
            expected = oracle.bootstrap_correlation_p(scores[a], scores[b], human, method, 200, 5)
            assert res.p_value(a, b) == pytest.approx(expected, abs=1e-12)


def test_holm_runs_over_the_pairs_in_the_observed_direction():
    scores, human = _metrics()
    raw = fastamfm.compare_metrics(scores, human, correction="none")
    adjusted = fastamfm.compare_metrics(scores, human, correction="holm")
    names = list(scores)
    pairs = [(i, j) if raw.p_values[i, j] <= raw.p_values[j, i] else (j, i)
             for i in range(len(names)) for j in range(i + 1, len(names))]
    expected = oracle.holm([raw.p_values[i, j] for i, j in pairs])
    assert [adjusted.p_adjusted[i, j] for i, j in pairs] == pytest.approx(expected)
    assert all(adjusted.p_adjusted[j, i] == 1.0 for i, j in pairs)


def test_system_level_from_per_system_scores():
    rng = np.random.default_rng(1)
    human = {f"S_{i}": float(v) for i, v in enumerate(rng.normal(size=12))}
    human["S_reference"] = 5.0   # rated, not scored: ignored as DSTC-6's S_21
    scores = {"good": {s: v + rng.normal(scale=0.2) for s, v in human.items() if s != "S_reference"},
              "bad": {s: rng.normal() for s in human if s != "S_reference"}}
    res = fastamfm.compare_metrics(scores, human, level="system")
    assert res.n == 12 and res.level == "system"
    assert res.better_than("bad") == ["good"]
    data = json.loads(res.to_json())
    assert data["metrics"] == ["good", "bad"] and data["p_values"][0][0] is None
    assert "Williams test (Pearson), system level, n=12" in str(res)


def test_bad_input_is_a_clear_error():
    scores, human = _metrics(n=20)
    with pytest.raises(ValueError, match=r"scores\['flat'\] is constant over the 20 items"):
        fastamfm.compare_metrics({**scores, "flat": np.ones(20)}, human)
    with pytest.raises(ValueError, match="human ratings are constant"):
        fastamfm.compare_metrics(scores, np.full(20, 3.0))
    with pytest.raises(ValueError, match="at least two metrics"):
        fastamfm.compare_metrics({"close": scores["close"]}, human)
    with pytest.raises(ValueError, match="Williams test compares Pearson"):
        fastamfm.compare_metrics(scores, human, correlation="spearman")
    with pytest.raises(ValueError, match="resamples must be a positive integer, got 0"):
        fastamfm.compare_metrics(scores, human, method="bootstrap", resamples=0)
    with pytest.raises(ValueError, match="at least 4 points"):
        fastamfm.compare_metrics({"a": [1, 2, 3], "b": [1, 3, 2]}, [1, 2, 4])
    with pytest.raises(ValueError, match="has 19 values but human has 20"):
        fastamfm.compare_metrics({"a": scores["close"][:19], "b": scores["far"]}, human)
    with pytest.raises(ValueError, match="method must be one of"):
        fastamfm.compare_metrics(scores, human, method="steiger")
    with pytest.raises(ValueError, match="n >= 4"):
        williams_test(0.5, 0.4, 0.3, 3)
