"""fastamfm.correlate / metric_correlations against scipy.stats and a naive bootstrap."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as st
from fastamfm import cluster_metrics, correlate, metric_correlations
from hypothesis import given, settings
from hypothesis import strategies as hst

SCIPY = {"pearson": st.pearsonr, "spearman": st.spearmanr, "kendall": st.kendalltau}


def _data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    human = rng.normal(size=n)
    return {"good": human + rng.normal(scale=0.5, size=n),
            "ties": np.round(human + rng.normal(size=n)),  # many ties: scipy's tie handling
            "bad": rng.normal(size=n)}, human


@pytest.mark.parametrize("method", sorted(SCIPY))
def test_utterance_level_equals_scipy(method):
    scores, human = _data()
    table = correlate(scores, human, level="utterance", methods=(method,))
    for metric, x in scores.items():
        expected = SCIPY[method](x, human)
        row = table[metric, method]
        assert row.coefficient == pytest.approx(expected[0], abs=1e-12)
        assert row.p_value == pytest.approx(expected[1], rel=1e-9)
        assert row.n == len(human)


def test_system_level_averages_responses_per_system():
    rng = np.random.default_rng(3)
    systems = [f"S_{i}" for i in range(8) for _ in range(25)]
    metric = rng.random(len(systems))
    human = {f"S_{i}": float(v) for i, v in enumerate(rng.random(8))}
    human["S_reference"] = 5.0  # rated but not scored: ignored, as DSTC-6's S_21
    table = correlate({"m": metric}, human, systems=systems)
    means = [metric[25 * i:25 * (i + 1)].mean() for i in range(8)]
    rated = [human[f"S_{i}"] for i in range(8)]
    for method, fn in SCIPY.items():
        assert table["m", method].coefficient == pytest.approx(fn(means, rated)[0], abs=1e-12)
        assert table["m", method].p_value == pytest.approx(fn(means, rated)[1], rel=1e-9)
    assert table.points == [f"S_{i}" for i in range(8)]


def test_system_level_from_per_system_mappings_and_aligned_arrays():
    rng = np.random.default_rng(4)
    per_system = {f"S_{i}": rng.random(10) for i in range(6)}
    human = {f"S_{i}": float(i) for i in reversed(range(6))}  # different key order
    table = correlate({"m": per_system}, human, methods=("pearson",))
    means = [per_system[f"S_{i}"].mean() for i in range(6)]
    assert table["m", "pearson"].coefficient == pytest.approx(st.pearsonr(means, range(6))[0], abs=1e-12)
    # The same when human is an utterance array and systems labels both
    labels = [s for s in per_system for _ in range(10)]
    flat = np.concatenate(list(per_system.values()))
    hum = np.repeat(np.arange(6.0), 10)
    t2 = correlate({"m": flat}, hum, systems=labels, methods=("pearson",))
    assert t2["m", "pearson"].coefficient == pytest.approx(table["m", "pearson"].coefficient, abs=1e-12)


@pytest.mark.parametrize("method", sorted(SCIPY))
def test_bootstrap_equals_naive_resampling(method):
    scores, human = _data(n=30, seed=5)
    table = correlate(scores, human, level="utterance", methods=(method,), bootstrap=50, seed=7)
    draws = np.random.default_rng(7).integers(0, 30, size=(50, 30))
    for metric, x in scores.items():
        samples = [SCIPY[method](x[d], human[d])[0] for d in draws]
        low, high = np.nanquantile(samples, [0.025, 0.975])
        row = table[metric, method]
        assert row.ci_low == pytest.approx(low, abs=1e-10)
        assert row.ci_high == pytest.approx(high, abs=1e-10)
        assert row.ci_low <= row.ci_high


def test_bootstrap_is_seeded():
    scores, human = _data()
    a = correlate(scores, human, level="utterance", bootstrap=20, seed=1)
    b = correlate(scores, human, level="utterance", bootstrap=20, seed=1)
    c = correlate(scores, human, level="utterance", bootstrap=20, seed=2)
    assert a.to_records() == b.to_records()
    assert a.to_records() != c.to_records()


@settings(max_examples=40, deadline=None)
@given(hst.lists(hst.tuples(hst.integers(-5, 5), hst.integers(-5, 5)), min_size=3, max_size=30))
def test_property_matches_scipy(pairs):
    x = np.array([p[0] for p in pairs], float)
    y = np.array([p[1] for p in pairs], float)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return
    table = correlate({"m": x}, y, level="utterance")
    for method, fn in SCIPY.items():
        expected = fn(x, y)
        got = table["m", method]
        np.testing.assert_allclose(got.coefficient, expected[0], atol=1e-12)
        np.testing.assert_allclose(got.p_value, expected[1], rtol=1e-9, atol=1e-300, equal_nan=True)


def test_constant_metric_is_nan_with_warning():
    _, human = _data()
    with pytest.warns(RuntimeWarning, match="'flat' is constant"):
        table = correlate({"flat": np.ones_like(human)}, human, level="utterance")
    assert np.isnan(table["flat", "pearson"].coefficient)


def test_metric_matrix_equals_scipy():
    scores, _ = _data()
    for method, fn in SCIPY.items():
        mat = metric_correlations(scores, method=method)
        assert mat.names == list(scores)
        for i, a in enumerate(mat.names):
            assert mat.values[i, i] == 1.0
            for j, b in enumerate(mat.names):
                if i != j:
                    assert mat.values[i, j] == pytest.approx(fn(scores[a], scores[b])[0], abs=1e-12)
    assert "good" in str(mat)


def test_metric_matrix_system_level():
    rng = np.random.default_rng(0)
    labels = np.repeat([f"S_{i}" for i in range(5)], 4)
    a, b = rng.random(20), rng.random(20)
    mat = metric_correlations({"a": a, "b": b}, level="system", systems=labels)
    ma, mb = a.reshape(5, 4).mean(1), b.reshape(5, 4).mean(1)
    assert mat.values[0, 1] == pytest.approx(st.pearsonr(ma, mb)[0], abs=1e-12)


def test_table_renders_and_exports():
    pd = pytest.importorskip("pandas")
    scores, human = _data()
    table = correlate(scores, human, level="utterance", bootstrap=10)
    df = table.to_pandas()
    assert isinstance(df, pd.DataFrame) and len(df) == 9
    assert "95% CI" in str(table)
    assert table.metrics == ["good", "ties", "bad"]


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(scores={"m": [1, 2, 3]}, human=[1, 2]), ValueError, r"scores\['m'\] has 3 values but human has 2"),
    (dict(scores={"m": [1, 2]}, human=[1, 2]), ValueError, "at least 3 points"),
    (dict(scores={"m": [1, float("nan"), 3]}, human=[1, 2, 3]), ValueError, r"scores\['m'\]\[1\] is nan"),
    (dict(scores={"m": [1, 2, 3]}, human=[1, 2, 3], methods=("cosine",)), ValueError, "unknown correlation method"),
    (dict(scores={"m": [1, 2, 3]}, human=[1, 2, 3], level="corpus"), ValueError, "level must be one of"),
    (dict(scores={"m": [1, 2, 3]}, human=[1, 2, 3], bootstrap=-1), ValueError, "bootstrap must be"),
    (dict(scores={"m": {"A": 1, "B": 2, "C": 3}}, human={"A": 1, "B": 2}), ValueError,
     r"no human rating for systems \['C'\]"),
    (dict(scores={"m": {"A": 1}}, human={"A": 1}, level="utterance"), ValueError, "need level='system'"),
    (dict(scores={"m": [1, 2, 3]}, human={"A": 1}), ValueError, "plain array"),
    (dict(scores={"m": ["a", "b", "c"]}, human=[1, 2, 3]), TypeError, "must hold numbers"),
    (dict(scores="abc", human=[1, 2, 3]), TypeError, "not a string"),
    (dict(scores={"m": [1, 2, 3, 4]}, human=[1, 2, 3, 4], systems=["a", "b"], level="system"), ValueError,
     "4 values but 2 system labels|4 scores but 2 system labels"),
])
def test_bad_input(kwargs, error, message):
    with pytest.raises(error, match=message):
        correlate(**kwargs)


def test_metric_matrix_bad_input():
    with pytest.raises(ValueError, match="at least two metrics"):
        metric_correlations({"a": [1, 2, 3]})
    with pytest.raises(ValueError, match="different lengths"):
        metric_correlations({"a": [1, 2, 3], "b": [1, 2, 3, 4]})


PUBLISHED = {"Bleu_4": (-0.5108, -0.1880), "METEOR": (0.3628, 0.0692), "ROUGE_L": (0.1450, 0.0541),
             "CIDEr": (-0.1827, 0.2511), "EmbeddingAverageCosineSimilairty": (0.7747, 0.0752)}


def test_reproduces_published_dstc6_correlations(dstc6_dir, dstc6_objective):
    """The AM-FM paper's Table 1 correlations of the organisers' metric scores."""
    lines = (dstc6_dir / "human_evaluation_results.txt").read_text().split("\n")[1:]
    human = {s: float(v) for s, v in (line.split("\t") for line in lines if line.strip())}
    assert "S_21" in human  # the human reference: rated, not scored, ignored
    scores = {m: {s: row[m] for s, row in dstc6_objective.items()} for m in PUBLISHED}
    table = correlate(scores, human, methods=("pearson", "spearman"))
    for metric, (pearson, spearman) in PUBLISHED.items():
        assert table[metric, "pearson"].coefficient == pytest.approx(pearson, abs=6e-5)
        assert table[metric, "spearman"].coefficient == pytest.approx(spearman, abs=6e-5)
        assert table[metric, "pearson"].n == 20


@pytest.mark.parametrize("method", sorted(SCIPY))
def test_metric_matrix_p_values_equal_scipy(method):
    scores, _ = _data(n=25, seed=11)
    mat = metric_correlations(scores, method=method)
    for i, a in enumerate(mat.names):
        assert mat.p_values[i, i] == 0.0
        for j, b in enumerate(mat.names):
            if i != j:
                assert mat.p_values[i, j] == pytest.approx(SCIPY[method](scores[a], scores[b])[1], rel=1e-9)
    flipped = mat.reordered(["bad", "good", "ties"])
    assert flipped.names == ["bad", "good", "ties"]
    assert flipped.values[0, 1] == mat.values[2, 0] and flipped.p_values[1, 2] == mat.p_values[0, 1]
    with pytest.raises(ValueError, match="each of the 3 metrics once"):
        mat.reordered(["bad", "bad", "good"])


def test_constant_metric_in_the_matrix_is_nan_with_warning():
    scores, _ = _data()
    scores["flat"] = np.ones(40)
    with pytest.warns(RuntimeWarning, match=r"\['flat'\] are constant"):
        mat = metric_correlations(scores)
    k = mat.names.index("flat")
    assert np.isnan(mat.values[k]).all() and np.isfinite(mat.values[0, :k]).all()
    with pytest.raises(ValueError, match=r"\['flat'\] have undefined correlations"):
        cluster_metrics(mat)


def _families(n=60, seed=12):
    """Two families of metrics that agree within and not across, and a loner."""
    rng = np.random.default_rng(seed)
    a, b = rng.normal(size=n), rng.normal(size=n)
    return {"a1": a + 0.1 * rng.normal(size=n), "b1": b + 0.1 * rng.normal(size=n), "loner": rng.normal(size=n),
            "a2": a + 0.2 * rng.normal(size=n), "b2": b + 0.15 * rng.normal(size=n), "a3": a + 0.3 * rng.normal(size=n)}


@pytest.mark.parametrize("linkage", ["average", "complete"])
def test_clustering_equals_scipy_on_one_minus_correlation(linkage):
    from scipy.cluster import hierarchy
    from scipy.spatial.distance import squareform

    scores = _families()
    mat = metric_correlations(scores, method="spearman")
    clustering = cluster_metrics(mat, linkage=linkage)
    expected = hierarchy.linkage(squareform(1 - mat.values, checks=False), method=linkage, optimal_ordering=True)
    assert np.allclose(clustering.linkage, expected, atol=1e-12)
    assert clustering.order == [mat.names[i] for i in hierarchy.leaves_list(expected)]
    # each family is contiguous in the leaf order
    order = "".join(name[0] for name in clustering.order)
    for family in "ab":
        assert family * order.count(family) in order
    with pytest.raises(ValueError, match="linkage must be"):
        cluster_metrics(mat, linkage="ward")


# --- one rule for system-level scores (issue 37) ---------------------------------------------

def _example_systems():
    from pathlib import Path

    from fastamfm.io import read_lines, read_parallel_files

    examples = Path(__file__).resolve().parents[1] / "examples" / "systems"
    systems = {s: read_lines(examples / f"{s}.txt") for s in "ABCD"}
    refs = read_parallel_files([examples / "ref1.txt", examples / "ref2.txt"])
    human = {s: float(r) for s, r in (line.split("\t") for line in
                                      (examples / "human.tsv").read_text().splitlines()[1:])}
    return systems, refs, human, examples


def test_system_level_uses_the_corpus_score_where_the_metric_has_one():
    import fastamfm

    systems, refs, human, _ = _example_systems()
    results = {s: fastamfm.evaluate(h, refs, metrics=["bleu", "rouge_l"]) for s, h in systems.items()}
    table = correlate(results, human, methods=("pearson",))
    corpus = {s: r.corpus["Bleu_4"] for s, r in results.items()}
    means = {s: float(np.mean(r["Bleu_4"])) for s, r in results.items()}
    assert corpus != pytest.approx(means)             # BLEU pools statistics: the two rules differ
    x = [corpus[s] for s in "ABCD"]
    assert table["Bleu_4", "pearson"].coefficient == pytest.approx(st.pearsonr(x, [human[s] for s in "ABCD"])[0])
    mean_table = correlate(results, human, methods=("pearson",), system_score="mean")
    x = [means[s] for s in "ABCD"]
    assert mean_table["Bleu_4", "pearson"].coefficient == pytest.approx(
        st.pearsonr(x, [human[s] for s in "ABCD"])[0])
    # ROUGE-L's corpus score is the mean of its sentence scores: both rules agree.
    assert table["ROUGE_L", "pearson"].coefficient == pytest.approx(mean_table["ROUGE_L", "pearson"].coefficient)
    assert str(table).endswith("system level: each system's corpus score (the mean of its sentence scores where "
                               "the metric has no other)")
    assert str(mean_table).endswith("system level: each system's mean sentence score (system_score='mean')")
    # Plain arrays of sentence scores have no corpus score: the mean, under either rule.
    arrays = {"Bleu_4": {s: r["Bleu_4"] for s, r in results.items()}}
    assert correlate(arrays, human, methods=("pearson",))["Bleu_4", "pearson"].coefficient == \
        pytest.approx(mean_table["Bleu_4", "pearson"].coefficient)
    with pytest.raises(ValueError, match="system_score must be one of"):
        correlate(results, human, system_score="median")


def test_correlate_and_report_agree_on_the_same_data(tmp_path, capsys):
    """`fastamfm correlate` over `fastamfm score` outputs and `fastamfm report` take the same
    system scores (the corpus scores), so they print the same correlation."""
    from fastamfm.amfm.scorer import resolve_model
    from fastamfm.cli import _report_scores, main
    from fastamfm.references import References

    systems, refs, human, examples = _example_systems()
    outputs = []
    for s in "ABCD":
        out = tmp_path / f"{s}.jsonl"
        assert main(["-q", "score", "--hyp", str(examples / f"{s}.txt"), "--ref", str(examples / "ref1.txt"), "--ref",
                     str(examples / "ref2.txt"), "--metrics", "bleu,rouge_l", "--out", str(out)]) == 0
        outputs += ["--system", f"{s}={out}"]
    capsys.readouterr()

    def printed(*extra):
        assert main(["correlate", "--human", str(examples / "human.tsv"), *outputs, "--methods", "pearson",
                     "--metrics", "Bleu_2", *extra]) == 0
        out = capsys.readouterr().out
        return float(next(x for x in out.splitlines() if x.startswith("Bleu_2")).split()[3]), out

    cli, out = printed()
    assert "system level: each system's corpus score" in out
    report, _ = _report_scores(systems, References(refs), ["bleu", "amfm"], resolve_model("default"), -1)
    expected = correlate({"Bleu_2": report["Bleu_2"]}, human, methods=("pearson",))["Bleu_2", "pearson"]
    assert cli == pytest.approx(expected.coefficient, abs=5e-5)
    mean_cli, out = printed("--system-score", "mean")
    assert "mean sentence score" in out and mean_cli != pytest.approx(cli, abs=1e-3)
    report_means, _ = _report_scores(systems, References(refs), ["bleu", "amfm"], resolve_model("default"), -1, "mean")
    expected = correlate({"Bleu_2": report_means["Bleu_2"]}, human, methods=("pearson",))["Bleu_2", "pearson"]
    assert mean_cli == pytest.approx(expected.coefficient, abs=5e-5)


@pytest.mark.shared_data
def test_the_two_rules_on_dstc6(dstc6_dir, dstc6_refs, dstc6_systems):
    """The numbers of docs/reading-the-numbers.md: S_1..S_5's Bleu_1, corpus scores (the rule
    of correlate and report) against mean sentence scores (system_score="mean")."""
    import fastamfm
    from fastamfm.cli import read_human

    human = read_human(dstc6_dir / "human_evaluation_results.txt")
    refs = fastamfm.References(dstc6_refs)
    results = {s: fastamfm.evaluate(dstc6_systems[s], refs, metrics=["bleu"]) for s in ("S_1", "S_2", "S_3", "S_4",
                                                                                        "S_5")}
    rated = {s: human[s] for s in results}
    corpus = correlate(results, rated, methods=("pearson",))["Bleu_1", "pearson"].coefficient
    mean = correlate(results, rated, methods=("pearson",), system_score="mean")["Bleu_1", "pearson"].coefficient
    assert round(corpus, 2) == -0.42 and round(mean, 2) == -0.51
