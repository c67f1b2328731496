"""fastamfm.compare_systems: paired bootstrap and approximate randomization against plain
loops (tests/oracles/significance.py) on the same seed, each resample against the metric
scoring that resample's responses, sacrebleu's --paired-bs on DSTC-6, and bad input."""
from __future__ import annotations

import json
import math
import random

import fastamfm
import numpy as np
import pytest
from fastamfm.analysis.multiple_testing import adjust_p_values
from fastamfm.analysis.resampling import (
    bootstrap_draws,
    bootstrap_scores,
    randomization_scores,
    randomization_swaps,
)
from fastamfm.analysis.system_comparison import ScoredSystems
from fastamfm.registry import Chunk, MeanStatistics, Metric, Statistics
from oracles import nlg
from oracles import significance as oracle

WORDS = "the a flight bag delay seat ticket refund gate crew late sorry help please check thanks you we our".split()


def _sentence(rng, low=2, high=12):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


def _corpus(n=60, n_systems=3, seed=4):
    """Systems that share a few responses with the references (so BLEU-4 has matches)."""
    rng = random.Random(seed)
    refs = [[_sentence(rng) for _ in range(2)] for _ in range(n)]
    systems = {}
    for s in range(n_systems):
        systems[f"sys{s}"] = [r[0] if rng.random() < 0.15 * (s + 1) else _sentence(rng) for r in refs]
    return systems, refs


def _bleu_rows(hyps, refs):
    return [nlg.bleu_statistics(h, r) for h, r in zip(hyps, refs)]


def _bleu4_of_rows(rows):
    return nlg.bleu_from_statistics(sum(r["hyp_len"] for r in rows), sum(r["ref_len"] for r in rows),
                                    [sum(r["guess"][k] for r in rows) for k in range(4)],
                                    [sum(r["correct"][k] for r in rows) for k in range(4)])[3]


def _mean(rows):
    return sum(rows) / len(rows)


# --- oracles --------------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["bootstrap", "randomization"])
def test_bleu_p_values_equal_a_plain_loop_on_the_same_seed(method):
    systems, refs = _corpus()
    res = fastamfm.compare_systems(systems, refs, metrics=["bleu"], method=method, resamples=300, seed=7,
                                   correction="none")
    base = _bleu_rows(systems["sys0"], refs)
    for name in ("sys1", "sys2"):
        rows = _bleu_rows(systems[name], refs)
        if method == "bootstrap":
            p, differences = oracle.paired_bootstrap(_bleu4_of_rows, base, rows, 300, 7)
            low, high = np.quantile(differences, [0.025, 0.975])
            assert res[name, "Bleu_4"].ci_low == pytest.approx(low, abs=1e-12)
            assert res[name, "Bleu_4"].ci_high == pytest.approx(high, abs=1e-12)
        else:
            p = oracle.paired_randomization(_bleu4_of_rows, base, rows, 300, 7)
        assert res.p_value(name, "Bleu_4") == p
        assert res[name, "Bleu_4"].difference == pytest.approx(_bleu4_of_rows(rows) - _bleu4_of_rows(base), abs=1e-12)


@pytest.mark.parametrize("method", ["bootstrap", "randomization"])
def test_mean_type_p_values_equal_a_plain_loop(method):
    systems, refs = _corpus(n=50, seed=9)
    res = fastamfm.compare_systems(systems, refs, metrics=["rouge_l"], method=method, resamples=250, seed=3,
                                   correction="none", baseline="sys2")
    base = [nlg.rouge_l(h, r) for h, r in zip(systems["sys2"], refs)]
    for name in ("sys0", "sys1"):
        rows = [nlg.rouge_l(h, r) for h, r in zip(systems[name], refs)]
        run = oracle.paired_bootstrap if method == "bootstrap" else oracle.paired_randomization
        p = run(_mean, base, rows, 250, 3)
        assert res.p_value(name, "ROUGE_L") == (p[0] if method == "bootstrap" else p)


def test_distinct_randomization_mixes_n_gram_sets_like_a_plain_loop():
    systems, _ = _corpus(n=40, n_systems=2, seed=5)
    res = fastamfm.compare_systems(systems, metrics=["distinct"], method="randomization", resamples=200, seed=1,
                                   correction="none")
    for n, column in ((1, "Distinct_1"), (2, "Distinct_2")):
        def corpus(rows, n=n):
            return nlg.distinct(rows, n)[0]

        p = oracle.paired_randomization(corpus, systems["sys0"], systems["sys1"], 200, 1)
        assert res.p_value("sys1", column) == p
        assert res["sys1", column].score == pytest.approx(nlg.distinct(systems["sys1"], n)[0], abs=1e-15)


def test_holm_and_bonferroni_equal_the_plain_versions():
    p = [0.01, 0.04, 0.03, 0.2, 0.005, float("nan")]
    assert np.allclose(adjust_p_values(p, "holm")[:5], oracle.holm(p[:5]))
    assert np.allclose(adjust_p_values(p, "bonferroni")[:5], oracle.bonferroni(p[:5]))
    assert math.isnan(adjust_p_values(p, "holm")[5])


def test_correction_is_applied_per_metric_over_the_systems():
    systems, refs = _corpus(n=50, n_systems=4, seed=2)
    raw = fastamfm.compare_systems(systems, refs, metrics=["rouge_l", "bleu"], resamples=200, correction="none")
    holm = fastamfm.compare_systems(systems, refs, metrics=["rouge_l", "bleu"], resamples=200, correction="holm")
    for metric in ("ROUGE_L", "Bleu_2"):
        others = ["sys1", "sys2", "sys3"]
        expected = oracle.holm([raw.p_value(s, metric) for s in others])
        assert [holm[s, metric].p_adjusted for s in others] == pytest.approx(expected)
        assert [holm[s, metric].significant for s in others] == [p < 0.05 for p in expected]


# --- every resample is the metric's score of the resampled corpus ----------------------------------------

def _metrics_to_check():
    names = ["bleu", "rouge_l", "cider", "distinct"]
    if fastamfm.registry.metric_class("meteor").missing() is None:
        names.append("meteor")
    return names


def test_each_resample_scores_as_the_metric_scores_the_resampled_responses():
    systems, refs = _corpus(n=40, n_systems=1, seed=11)
    systems["copy"] = list(systems["sys0"])
    names = _metrics_to_check()
    statistics = ScoredSystems.score(systems, refs, metrics=names).statistics
    draws = bootstrap_draws(np.random.default_rng(0), 40, 5)
    stats = statistics["sys0"]
    resampled = bootstrap_scores([stats[m] for m in names], draws)
    df = fastamfm.DocumentFrequencies().update(refs)
    hyps = systems["sys0"]
    for r in range(5):
        picked = draws[r]
        sample_hyps = [hyps[i] for i in picked]
        sample_refs = [refs[i] for i in picked]
        expected = fastamfm.evaluate(sample_hyps, sample_refs, metrics=[m for m in names if m != "cider"]).corpus
        # CIDEr's convention: the document frequencies of the full reference set.
        expected["CIDEr"] = fastamfm.cider(sample_hyps, sample_refs, document_frequencies=df).corpus["CIDEr"]
        for scores in resampled:
            for column, values in scores.items():
                assert values[r] == pytest.approx(expected[column], rel=1e-12, abs=1e-15), column


def test_randomization_trials_score_as_the_metric_scores_the_mixed_responses():
    systems, refs = _corpus(n=30, n_systems=2, seed=12)
    names = [m for m in _metrics_to_check() if m != "cider"]
    statistics = ScoredSystems.score(systems, refs, metrics=names).statistics
    swaps = randomization_swaps(np.random.default_rng(2), 30, 3)
    for metric in names:
        first, second = randomization_scores(statistics["sys0"][metric], statistics["sys1"][metric], swaps)
        for r in range(3):
            mixed = [b if s else a for a, b, s in zip(systems["sys0"], systems["sys1"], swaps[r])]
            rest = [a if s else b for a, b, s in zip(systems["sys0"], systems["sys1"], swaps[r])]
            for values, texts in ((first, mixed), (second, rest)):
                expected = fastamfm.evaluate(texts, refs, metrics=[metric]).corpus
                for column, scores in values.items():
                    assert scores[r] == pytest.approx(expected[column], rel=1e-12, abs=1e-15)


# --- behaviour ------------------------------------------------------------------------

def test_a_system_compared_with_itself_is_not_different():
    systems, refs = _corpus(n=30, n_systems=1)
    systems["twin"] = list(systems["sys0"])
    for method in ("bootstrap", "randomization"):
        res = fastamfm.compare_systems(systems, refs, metrics=["bleu", "rouge_l"], method=method, resamples=100)
        for column in ("Bleu_4", "ROUGE_L"):
            row = res["twin", column]
            assert row.difference == 0 and row.p_value == 1.0 and not row.significant
            assert row.ci_low == row.ci_high == 0


def test_table_json_and_accessors():
    systems, refs = _corpus(n=40)
    res = fastamfm.compare_systems(systems, refs, metrics=["bleu", "rouge_l"], resamples=100, seed=2)
    assert res.systems == ["sys0", "sys1", "sys2"]
    assert res.metrics == ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "ROUGE_L"]
    assert math.isnan(res.p_value("sys0", "ROUGE_L"))
    data = json.loads(res.to_json())
    assert data["baseline"] == "sys0" and data["resamples"] == 100 and len(data["rows"]) == 15
    assert data["rows"][0]["p_value"] is None
    text = str(res)
    assert "Paired bootstrap resampling: 40 paired responses; 100 resamples, seed 2" in text and "(baseline)" in text
    assert set(res.signatures) == {"bleu", "rouge_l"}
    with pytest.raises(KeyError, match="no comparison for system 'nope'"):
        res["nope", "ROUGE_L"]


def test_same_draws_for_every_system_and_reproducible():
    systems, refs = _corpus(n=40)
    a = fastamfm.compare_systems(systems, refs, metrics=["rouge_l"], resamples=120, seed=5)
    b = fastamfm.compare_systems(systems, refs, metrics=["rouge_l"], resamples=120, seed=5)
    assert a.to_records() == b.to_records()


# --- bad input ----------------------------------------------------------------------

def test_bad_input_is_a_clear_error():
    systems, refs = _corpus(n=20)
    with pytest.raises(ValueError, match=r"systems\['sys1'\] has 19 responses but systems\['sys0'\] has 20"):
        fastamfm.compare_systems({"sys0": systems["sys0"], "sys1": systems["sys1"][:19]}, refs, metrics=["bleu"])
    with pytest.raises(ValueError, match="needs at least two systems .* got 1"):
        fastamfm.compare_systems({"sys0": systems["sys0"]}, refs, metrics=["bleu"])
    with pytest.raises(ValueError, match="resamples must be a positive integer, got 0"):
        fastamfm.compare_systems(systems, refs, metrics=["bleu"], resamples=0)
    with pytest.raises(ValueError, match="baseline 'x' is not one of the systems"):
        fastamfm.compare_systems(systems, refs, metrics=["bleu"], baseline="x")
    with pytest.raises(ValueError, match="method must be one of"):
        fastamfm.compare_systems(systems, refs, metrics=["bleu"], method="permutation")
    with pytest.raises(ValueError, match="correction must be one of"):
        fastamfm.compare_systems(systems, refs, metrics=["bleu"], correction="fdr")
    with pytest.raises(ValueError, match="at least 2 responses per system"):
        fastamfm.compare_systems({"a": ["x"], "b": ["y"]}, [["x"]], metrics=["bleu"])
    with pytest.raises(ValueError, match="refs"):
        fastamfm.compare_systems(systems, metrics=["bleu"])
    with pytest.raises(TypeError, match="mapping"):
        fastamfm.compare_systems([systems["sys0"], systems["sys1"]], refs)
    with pytest.raises(ValueError, match=r"\d+ hypotheses but|references"):
        fastamfm.compare_systems(systems, refs[:10], metrics=["bleu"])


class _SetStatistics(Statistics):
    def __add__(self, other):
        return self

    def to_json(self):
        return {}

    @classmethod
    def from_json(cls, data):
        return cls()


def test_a_metric_with_other_statistics_must_say_how_it_resamples():
    class Unsummable(Metric):
        name = "unsummable"
        columns = ("U",)

        def signature(self):
            return "unsummable"

        def update(self, batch):
            return Chunk({"U": np.zeros(len(batch))}, _SetStatistics())

    with pytest.raises(TypeError, match="'unsummable'.*defines no sentence_statistics"):
        Unsummable().sentence_statistics(None, Chunk({"U": np.zeros(3)}, _SetStatistics()))
    stats = Metric.sentence_statistics(Unsummable(), None, Chunk({"U": np.arange(3.0)},
                                                                 MeanStatistics.of({"U": np.arange(3.0)})))
    assert stats.scores(np.array([[3.0, 3.0]]))["U"].tolist() == [1.0]


# --- sacrebleu's paired bootstrap on DSTC-6 ----------------------------------------------------------

DSTC6_PAIRS = ["S_1", "S_2", "S_9", "S_10"]   # differences from nothing to clear, against S_1


def _sacrebleu_inputs(dstc6_systems, dstc6_refs, n):
    sacrebleu = pytest.importorskip("sacrebleu")
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    tok = Tokenizer13a()
    systems = {s: dstc6_systems[s][:n] for s in DSTC6_PAIRS}
    refs = dstc6_refs[:n]
    tokenized = ({s: [tok(h.rstrip()) for h in hyps] for s, hyps in systems.items()},
                 [[tok(r.rstrip()) for r in rs] for rs in refs])
    return sacrebleu, systems, refs, tokenized


def _sacrebleu_paired_bs(sacrebleu, systems, refs, resamples, seed, monkeypatch):
    from sacrebleu.metrics import BLEU
    from sacrebleu.significance import PairedTest

    monkeypatch.setenv("SACREBLEU_SEED", str(seed))
    streams = [[r[k] for r in refs] for k in range(len(refs[0]))]
    test = PairedTest(list(systems.items()), {"BLEU": BLEU(force=True)}, streams, test_type="bs",
                      n_samples=resamples)
    _, scores = test()
    return {s: r for s, r in zip(scores["System"], scores["BLEU"])}


def test_bleu_paired_bootstrap_equals_sacrebleu_on_dstc6(dstc6_systems, dstc6_refs, monkeypatch):
    """Same draws (seed 12345, sacrebleu's default): the same p-values, not just close ones;
    another seed: within the Monte-Carlo error of a p-value estimated from 1000 resamples."""
    sacrebleu, systems, refs, (tok_systems, tok_refs) = _sacrebleu_inputs(dstc6_systems, dstc6_refs, 600)
    theirs = _sacrebleu_paired_bs(sacrebleu, systems, refs, 1000, 12345, monkeypatch)
    same_seed = fastamfm.compare_systems(tok_systems, tok_refs, metrics=["bleu"], seed=12345, correction="none")
    other_seed = fastamfm.compare_systems(tok_systems, tok_refs, metrics=["bleu"], seed=1, correction="none")
    for s in DSTC6_PAIRS:
        assert same_seed[s, "Bleu_4"].score * 100 == pytest.approx(theirs[s].score, rel=1e-9)
        if s == "S_1":
            continue
        p = theirs[s].p_value
        assert same_seed.p_value(s, "Bleu_4") == pytest.approx(p, abs=1e-12)
        # Two independent estimates of the same p: their difference has sd sqrt(2 p (1 - p) / R).
        error = 4 * math.sqrt(2 * max(p, 0.01) * (1 - min(p, 0.99)) / 1000)
        assert abs(other_seed.p_value(s, "Bleu_4") - p) <= error


def test_a_score_that_is_not_a_number_tests_nothing():
    from fastamfm.analysis.resampling import bootstrap_p_value, randomization_p_value

    differences = np.array([0.1, np.nan, -0.2])
    assert math.isnan(bootstrap_p_value(differences, 0.05))
    assert math.isnan(randomization_p_value(differences, 0.05))
    assert math.isnan(randomization_p_value(np.array([0.1, 0.2]), float("nan")))
    assert adjust_p_values([float("nan"), 0.01], "holm").tolist()[1] == 0.01


def test_every_registered_metric_that_runs_here_resamples_to_its_corpus_score():
    """The full sample (every response once) must give back each metric's own corpus score:
    true for every registered metric without a model download (neural metrics are
    mean-type, the default; they are checked in the benchmarks)."""
    from amfm_helpers import train_tiny

    systems, refs = _corpus(n=30, n_systems=2, seed=13)
    rng = np.random.default_rng(0)
    vectors = fastamfm.WordVectors.from_arrays(WORDS, rng.normal(size=(len(WORDS), 8)).astype(np.float32))
    names = [n for n in fastamfm.registry.names() if not n.startswith(("deep_", "bertscore", "learned"))
             and not fastamfm.registry.metric_class(n).needs_contexts     # the LM judges: neural, and need contexts
             and fastamfm.registry.metric_class(n).missing(vectors=vectors) is None]
    assert {"bleu", "rouge_l", "cider", "distinct", "am", "fm", "amfm", "embedding_average"} <= set(names)
    scored = ScoredSystems.score(systems, refs, metrics=names, model=train_tiny(), vectors=vectors)
    everything = np.zeros((1, 30), dtype=np.int64) + np.arange(30)
    for name in systems:
        stats = list(scored.statistics[name].values())
        for scores in bootstrap_scores(stats, everything):
            for column, values in scores.items():
                assert values[0] == pytest.approx(scored.corpus[name][column], rel=1e-12, abs=1e-15), column


# --- output that cannot mislead (issue 37) --------------------------------------------------

def _no_bigram_matches(n=40, seed=9):
    """Two systems that share unigrams with the references but no bigram: every Bleu_k for
    k >= 2 is pycocoevalcap's smoothing constant at work (about 1e-9 and below) in both."""
    rng = random.Random(seed)
    refs, a, b = [], [], []
    for _ in range(n):
        ref = [rng.choice(WORDS) for _ in range(8)]
        refs.append([" ".join(ref)])
        a.append(" zz ".join(ref[:4]))                 # 4 reference words, never two in a row
        b.append(" zz zz ".join(ref[:2]) + " zz")      # 2 reference words: lower unigram precision
    return {"A": a, "B": b}, refs


def test_differences_within_the_metrics_epsilon_are_not_marked():
    systems, refs = _no_bigram_matches()
    res = fastamfm.compare_systems(systems, refs, metrics=["bleu"], resamples=200, seed=0)
    assert res["B", "Bleu_1"].significant and not res["B", "Bleu_1"].negligible   # a real difference
    for column in ("Bleu_2", "Bleu_3", "Bleu_4"):
        row = res["B", column]
        assert abs(row.score) < 1e-6 and abs(row.baseline_score) < 1e-6
        assert row.p_adjusted < 0.05 and row.negligible == "epsilon" and not row.significant
        assert "B" not in res.significant(column)
    text = str(res)
    marks, metric = {}, None
    for line in text.splitlines()[2:]:
        if line.startswith("Bleu_") or line.startswith("ROUGE"):
            metric = line.split()[0]
        if line.split() and line.split()[-1] in ("*", "ε", "≈"):
            marks[metric] = line.split()[-1]
    assert marks == {"Bleu_1": "*", "Bleu_2": "ε", "Bleu_3": "ε", "Bleu_4": "ε"}
    assert "ε p < 0.05 but both scores come from the metric's smoothing constants" in text


def test_differences_below_the_tables_precision_are_not_marked():
    systems, refs = _corpus(n=60, n_systems=3)
    plain = fastamfm.compare_systems(systems, refs, metrics=["rouge_l"], resamples=200)
    assert plain.significant("ROUGE_L")                     # real differences, marked by default
    coarse = fastamfm.compare_systems(systems, refs, metrics=["rouge_l"], resamples=200, min_difference=1.0)
    assert coarse.significant("ROUGE_L") == []
    for name in plain.significant("ROUGE_L"):
        assert coarse["sys0" if name == "sys0" else name, "ROUGE_L"].p_value == plain[name, "ROUGE_L"].p_value
        assert coarse[name, "ROUGE_L"].negligible == "precision"
    assert "≈ p < 0.05 but |Δ| < 1 (below the table's precision): not marked significant" in str(coarse)
    # A difference that prints as 0.0000 is never marked (the default min_difference).
    from fastamfm.analysis.system_comparison import DISPLAY_RESOLUTION

    assert f"{DISPLAY_RESOLUTION * 0.99:+.4f}" in ("+0.0000", "-0.0000")
    with pytest.raises(ValueError, match="min_difference"):
        fastamfm.compare_systems(systems, refs, metrics=["rouge_l"], min_difference=-1)


@pytest.mark.parametrize("method", ["bootstrap", "randomization"])
def test_too_few_responses_warn_and_the_table_says_so(method):
    systems, refs = _corpus(n=5, n_systems=2)
    with pytest.warns(RuntimeWarning, match="only 5 paired responses"):
        res = fastamfm.compare_systems(systems, refs, metrics=["rouge_l"], method=method, resamples=100)
    text = str(res)
    assert "5 paired responses" in text.splitlines()[0]
    assert "note: only 5 paired responses" in text and res.to_dict()["notes"][0].startswith("note: only 5")
    if method == "randomization":
        assert "nothing can be significant at 0.05" in text      # 2^(1-5) = 0.0625
    import warnings as _warnings

    with _warnings.catch_warnings():
        _warnings.simplefilter("error")
        big = fastamfm.compare_systems(*_corpus(n=30, n_systems=2), metrics=["rouge_l"], method=method,
                                       resamples=50)
    assert big.small_sample() is None and "note:" not in str(big)


def test_neural_metrics_read_a_context_once_for_every_system(tmp_path, monkeypatch):
    """Reference-free, compare_systems gives the neural metrics every system's response to a
    context in one update (``Metric.scores_systems_together``): their LM reads each context
    once instead of once per system (issue 44), and each system's scores equal scoring it
    alone up to float rounding."""
    pytest.importorskip("torch", reason="the neural metrics need PyTorch (pip install 'fastamfm[deep]')")
    pytest.importorskip("transformers", reason="the neural metrics need transformers (pip install 'fastamfm[deep]')")
    from causal_models import make_model
    from fastamfm.neural.neural_lm import NeuralLM

    lm = NeuralLM.load(make_model(tmp_path / "llama"), engine="transformers", device="cpu")
    contexts = [[f"we talked about topic {i} for a long while yesterday evening", "it went on and on for hours",
                 "then we went home and slept", f"and what did you think of {i} ?"] for i in range(8)]
    systems = {name: [f"{word} {i}" for i in range(8)] for name, word in (("a", "yes"), ("b", "no way"), ("c", "ok"))}
    evaluated = []
    score_rows = lm._engine._score_rows

    def counting(rows, *args):
        evaluated.append(sum(len(row) for row in rows))
        return score_rows(rows, *args)

    monkeypatch.setattr(lm._engine, "_score_rows", counting)
    ScoredSystems.score(systems, contexts=contexts, metrics=["deep_fm"], lm=lm)
    together = sum(evaluated)
    evaluated.clear()
    for hyps in systems.values():
        fastamfm.evaluate(hyps, contexts=contexts, metrics=["deep_fm"], lm=lm)
    # three systems, contexts several times as long as the replies: about three times the tokens alone
    assert sum(evaluated) > 2.5 * together
    metrics = ["deep_fm", "followup"]
    scored = ScoredSystems.score(systems, contexts=contexts, metrics=metrics, lm=lm)
    alone = {name: fastamfm.evaluate(hyps, contexts=contexts, metrics=metrics, lm=lm).corpus
             for name, hyps in systems.items()}
    for name in systems:
        assert set(scored.corpus[name]) == set(alone[name])
        for column, value in alone[name].items():
            assert scored.corpus[name][column] == pytest.approx(value, abs=1e-5)
    with pytest.warns(RuntimeWarning, match="only 8 paired responses"):
        table = scored.compare(baseline="a", resamples=50)
    assert 0 <= table.p_value("b", "followup") <= 1
