"""nlg-eval drop-in: compute_metrics / compute_individual_metrics, DSTC-6 conformance."""
from __future__ import annotations

import warnings

import fastamfm
import numpy as np
import pytest
from conftest import REFERENCE_FILES, SYSTEMS
from fastamfm import registry
from fastamfm.metrics import nlgeval
from oracles import nlg as oracle

KEYS = ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "ROUGE_L", "CIDEr"]


def test_dstc6_all_systems_equal_the_published_objective_results(dstc6_dir, dstc6_objective):
    # objective_evaluation_results.txt holds nlg-eval's numbers with 6 decimals.
    refs = fastamfm.References.from_files([dstc6_dir / "references" / f for f in REFERENCE_FILES])
    for system in SYSTEMS:
        scores = fastamfm.compute_metrics(dstc6_dir / "hypotheses" / f"{system}.txt", refs, metrics=KEYS)
        for key in KEYS:
            expected = dstc6_objective[system][key]
            assert abs(scores[key] - expected) <= 5e-7 + 1e-12, (system, key, scores[key], expected)
            assert float(f"{scores[key]:.6f}") == expected, (system, key)


def test_dstc6_one_system_from_files_equals_pycocoevalcap(dstc6_dir, dstc6_refs, dstc6_systems):
    paths = [dstc6_dir / "references" / f for f in REFERENCE_FILES]
    scores = fastamfm.compute_metrics(str(dstc6_dir / "hypotheses" / "S_7.txt"), [str(p) for p in paths],
                                      metrics=KEYS)
    hyps = dstc6_systems["S_7"][:400]
    refs = dstc6_refs[:400]
    small = fastamfm.compute_metrics(hyps, refs, metrics=KEYS)
    bleu, _ = oracle.pycoco_bleu(hyps, refs)
    rouge, _ = oracle.pycoco_rouge_l(hyps, refs)
    cider, _ = oracle.pycoco_cider(hyps, refs)
    assert [small[f"Bleu_{k}"] for k in range(1, 5)] == list(bleu)
    assert small["ROUGE_L"] == rouge
    assert small["CIDEr"] == pytest.approx(cider, rel=1e-12)
    assert set(scores) == set(KEYS)


def test_compute_individual_metrics_nlgeval_example():
    scores = fastamfm.compute_individual_metrics(["this is a test", "this is also a test"], "this is a good test")
    assert scores["Bleu_1"] == pytest.approx(0.799999, rel=1e-5)
    assert scores["Bleu_2"] == pytest.approx(0.632455, rel=1e-5)
    assert scores["Bleu_3"] == pytest.approx(0.5108729, rel=1e-6)
    assert scores["Bleu_4"] == pytest.approx(0.0000903602, rel=1e-5)
    assert scores["ROUGE_L"] == pytest.approx(0.9070631, rel=1e-6)
    assert scores["CIDEr"] == 0.0
    assert scores["METEOR"] == pytest.approx(0.44434387, abs=1e-8)
    # nlg-eval's default key set (no word vectors given: the embedding metrics are left out).
    assert list(scores) == ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "METEOR", "ROUGE_L", "CIDEr"]
    own = fastamfm.compute_individual_metrics(["this is a test"], "this is a good test", metrics=["am", "fm", "amfm"])
    assert list(own) == ["AM", "FM", "AM-FM"] and all(0.0 <= v <= 1.0 for v in own.values())


def test_default_keys_leave_out_what_has_no_resources(caplog):
    # The default set without vectors= leaves the embedding metrics out as expected: one INFO
    # line naming them and saying how to enable them, no warning (issue 37).
    with warnings.catch_warnings(), caplog.at_level("INFO", logger="fastamfm"):
        warnings.simplefilter("error")
        scores = fastamfm.compute_metrics(["the flight is late"], [["the flight is late today"]])
    assert "EmbeddingAverageCosineSimilarity" not in scores
    lines = [r.getMessage() for r in caplog.records if "left out" in r.getMessage()]
    assert len(lines) == 1 and "GreedyMatchingScore left out (no word vectors given" in lines[0]
    # Asked for by name, it is a warning.
    with pytest.warns(RuntimeWarning, match="GreedyMatchingScore left out: no word vectors given"):
        fastamfm.compute_metrics(["a"], [["a"]], metrics=["Bleu_1", "GreedyMatchingScore"])
    with pytest.warns(RuntimeWarning, match="AM left out: model=None"):
        scores = fastamfm.compute_metrics(["a"], [["a"]], metrics=["AM", "Bleu_1"], model=None)
    assert list(scores) == ["Bleu_1"]


def test_embedding_and_amfm_families_equal_their_functions(tmp_path):
    hyps = ["the flight is late", "your bag is at gate 12"]
    refs = [["the flight is late today", "delayed"], ["the bag is at gate twelve"]]
    words = sorted({w for t in hyps + [r for rs in refs for r in rs] for w in t.split()})
    vec_file = tmp_path / "v.txt"
    vec_file.write_text("".join(f"{w} {' '.join(str((i * 7 + d) % 5 - 2) for d in range(4))}\n"
                                for i, w in enumerate(words)))
    vectors = fastamfm.WordVectors.load(vec_file, cache_dir=tmp_path)
    scores = fastamfm.compute_metrics(hyps, refs, vectors=vectors, metrics=list(nlgeval.GLOVE_KEYS) + ["AM-FM"])
    assert scores["EmbeddingAverageCosineSimilarity"] == pytest.approx(
        fastamfm.embedding_average(hyps, refs, vectors=vectors).corpus["EmbeddingAverageCosineSimilarity"], abs=1e-12)
    assert scores["GreedyMatchingScore"] == pytest.approx(
        fastamfm.greedy_matching(hyps, refs, vectors=vectors).corpus["GreedyMatchingScore"], abs=1e-12)
    assert scores["AM-FM"] == pytest.approx(fastamfm.AMFM.default().score(hyps, refs).corpus["AM-FM"], abs=1e-12)


def test_compute_individual_metrics_accepts_nlgevals_joined_string():
    joined = fastamfm.compute_individual_metrics("this is a test||<|>||this is also a test", "this is a good test ")
    listed = fastamfm.compute_individual_metrics(["this is a test", "this is also a test"], "this is a good test")
    assert joined == listed


def _write(tmp_path, name, lines):
    path = tmp_path / name
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_compute_metrics_from_files_equals_in_memory_and_pycocoevalcap(tmp_path):
    hyps = ["the flight is late", "your bag is at gate 12", "ok"]
    refs1 = ["the flight is late today", "the bag is at gate twelve", "okay then"]
    refs2 = ["flight delayed", "your bag arrived at gate 12 !", "ok"]
    hyp_file = _write(tmp_path, "hyp.txt", hyps)
    ref_files = [_write(tmp_path, "ref1.txt", refs1), _write(tmp_path, "ref2.txt", refs2)]
    from_files = fastamfm.compute_metrics(hypothesis=str(hyp_file), references=[str(p) for p in ref_files])
    refs = [list(r) for r in zip(refs1, refs2)]
    assert from_files == fastamfm.compute_metrics(hyps, refs)
    bleu, _ = oracle.pycoco_bleu(hyps, refs)
    assert [from_files[f"Bleu_{k}"] for k in range(1, 5)] == list(bleu)
    # Corpus means are the correctly rounded mean (exact sums); numpy's mean may differ in the last bit.
    assert from_files["ROUGE_L"] == pytest.approx(oracle.pycoco_rouge_l(hyps, refs)[0], rel=1e-15)
    assert from_files["CIDEr"] == pytest.approx(oracle.pycoco_cider(hyps, refs)[0], rel=1e-12)
    assert all(isinstance(v, float) for v in from_files.values())


def test_metrics_selects_keys_and_no_overlap_drops_them():
    hyps, refs = ["a b c"], [["a b c"]]
    assert list(fastamfm.compute_metrics(hyps, refs, metrics=["CIDEr", "Bleu_2"])) == ["CIDEr", "Bleu_2"]
    assert list(fastamfm.compute_metrics(hyps, refs, metrics="ROUGE_L")) == ["ROUGE_L"]
    # nlg-eval's switches drop their families; fastamfm's own metrics come only when asked for.
    assert fastamfm.compute_metrics(hyps, refs, no_overlap=True, no_glove=True) == {}
    assert list(fastamfm.compute_metrics(hyps, refs, metrics=["Bleu_1", "am", "fm", "amfm"], no_overlap=True)) == [
        "AM", "FM", "AM-FM"]


def test_options_reach_the_metrics():
    scores = fastamfm.compute_metrics(["The Flight"], [["the flight"]], lowercase=True, workers=1)
    assert scores["Bleu_2"] == pytest.approx(1.0)
    assert scores["ROUGE_L"] == pytest.approx(1.0)


class _FakeMetric(registry.Metric):
    """A metric whose resource is absent unless fake= is given."""

    name = "fake_metric"
    columns = ("FakeMetric",)
    default = True

    def __init__(self, *, fake=None):
        self.fake = fake

    @classmethod
    def missing(cls, **options):
        return None if options.get("fake") else "fake resources absent; pass fake=... to enable"

    def signature(self):
        return "fake"

    def update(self, batch):
        columns = {"FakeMetric": np.ones(len(batch))}
        return registry.Chunk(columns, registry.MeanStatistics.of(columns))


@pytest.fixture()
def fake_metric_registered(monkeypatch):
    from fastamfm.registry import table

    registry.names()   # the plugins loaded before the table is copied
    monkeypatch.setattr(table, "_REGISTRY", dict(table._REGISTRY))
    monkeypatch.setattr(table, "_ALIASES", dict(table._ALIASES))
    registry.register(_FakeMetric)


def test_registering_a_metric_is_one_place(fake_metric_registered):
    # Every entry point sees it: evaluate, compute_metrics, the streaming pipeline.
    with pytest.warns(RuntimeWarning, match="FakeMetric left out: fake resources absent"):
        scores = fastamfm.evaluate(["a"], [["a"]], metrics=["fake_metric", "bleu"])
    assert "FakeMetric" not in scores.corpus and "Bleu_1" in scores.corpus
    assert fastamfm.evaluate(["a", "b"], [["a"], ["b"]], metrics="FakeMetric", fake=1).corpus == {"FakeMetric": 1.0}
    assert fastamfm.compute_metrics(["a"], [["a"]], metrics=["FakeMetric"], fake=1) == {"FakeMetric": 1.0}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fastamfm.compute_metrics(["a"], [["a"]], metrics=["Bleu_1"])  # not asked for: no warning


def test_register_rejects_a_name_clash(fake_metric_registered):
    class Clash(_FakeMetric):
        name = "other_fake"
        columns = ("CIDEr",)

    with pytest.raises(ValueError, match="already belongs to metric 'cider'"):
        registry.register(Clash)


# --- bad input -------------------------------------------------------------------

def test_unknown_metric_and_option():
    with pytest.raises(ValueError, match=r"unknown metric 'BLUE'"):
        fastamfm.compute_metrics(["a"], [["a"]], metrics=["BLUE"])
    with pytest.raises(TypeError, match=r"unknown option\(s\) \['lowercse'\]"):
        fastamfm.compute_metrics(["a"], [["a"]], lowercse=True)


def test_empty_hypotheses_and_length_mismatch():
    with pytest.raises(ValueError, match="compute_metrics: hyps is empty"):
        fastamfm.compute_metrics([], [])
    with pytest.raises(ValueError, match="compute_metrics: 2 hypotheses but 1 reference lists"):
        fastamfm.compute_metrics(["a", "b"], [["a"]])


def test_a_response_without_references_and_non_strings():
    with pytest.raises(ValueError, match=r"refs\[0\] has no reference"):
        fastamfm.compute_metrics(["a"], [[]])
    with pytest.raises(TypeError, match=r"hyps\[0\] is int, expected str"):
        fastamfm.compute_metrics([7], [["a"]])
    with pytest.raises(TypeError, match="hyp must be a str"):
        fastamfm.compute_individual_metrics(["a"], None)


def test_files_with_different_line_counts(tmp_path):
    hyp = _write(tmp_path, "hyp.txt", ["a", "b"])
    ref1 = _write(tmp_path, "ref1.txt", ["a", "b", "c"])
    ref2 = _write(tmp_path, "ref2.txt", ["a", "b"])
    with pytest.raises(ValueError, match="line counts differ"):
        fastamfm.compute_metrics(str(hyp), [str(ref1), str(ref2)])
    with pytest.raises(ValueError, match="hyp.txt has 2 lines but the reference files have 3"):
        fastamfm.compute_metrics(str(hyp), [str(ref1)])
    with pytest.raises(FileNotFoundError, match="no such file"):
        fastamfm.compute_metrics(str(tmp_path / "missing.txt"), [str(ref1)])


def test_hypotheses_encoded_once_are_accepted_and_checked():
    hyps, refs = ["the flight is late", "ok"], [["the flight is late today"], ["ok then"]]
    encoded = fastamfm.Hypotheses(hyps, tokenize="whitespace")
    assert fastamfm.compute_metrics(encoded, refs) == fastamfm.compute_metrics(hyps, refs)
    # Another tokenizer or a higher n-gram order is encoded on demand, once.
    assert list(fastamfm.bleu(encoded, refs, lowercase=True).corpus.values()) == \
        list(fastamfm.bleu(hyps, refs, lowercase=True).corpus.values())
    short = fastamfm.Hypotheses(hyps, tokenize="whitespace", max_order=2)
    assert fastamfm.cider(short, refs).corpus["CIDEr"] == fastamfm.cider(hyps, refs).corpus["CIDEr"]
