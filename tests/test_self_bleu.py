"""fastamfm.self_bleu / the registry metric "self_bleu": each response's NLTK sentence
BLEU (method1) against the others, equal to the literature's loop (Texygen) and to
fast-bleu's SelfBLEU; a whole-set metric that chunked entry points refuse."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastamfm
from oracles import generation as oracle


def _nltk_loop(responses, max_order=4):
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    toks = [r.split() for r in responses]
    weights = (1.0 / max_order,) * max_order
    method1 = SmoothingFunction().method1
    return [sentence_bleu(toks[:i] + toks[i + 1:], toks[i], weights, smoothing_function=method1)
            for i in range(len(toks))]


@pytest.mark.slow
def test_dstc6_systems_equal_the_nltk_loop(dstc6_systems):
    # NLTK's loop is quadratic (~20 s for 300 responses): benchmarks/generation/exactness.py
    # compares whole systems.
    for name in ("S_1",):
        hyps = dstc6_systems[name][:200]
        ours = fastamfm.self_bleu(hyps)
        assert ours.sentences["Self-BLEU"].tolist() == _nltk_loop(hyps), name
        assert ours.corpus["Self-BLEU"] == pytest.approx(np.mean(_nltk_loop(hyps)), rel=1e-15)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["a", "b", "c", "d", "ab"]), max_size=8).map(" ".join), min_size=2,
                max_size=12), st.integers(1, 5))
def test_generated_sets_equal_nltk_and_the_oracle(responses, max_order):
    ours = fastamfm.self_bleu(responses, max_order=max_order).sentences["Self-BLEU"].tolist()
    assert ours == _nltk_loop(responses, max_order)
    assert ours == oracle.self_bleu(responses, max_order)


def test_equals_fast_bleu(dstc6_systems):
    fast_bleu = pytest.importorskip("fast_bleu", reason="fast-bleu is a peer of the test extra")
    hyps = dstc6_systems["S_15"][:500]
    weights = {"bleu4": (0.25,) * 4, "bleu2": (0.5, 0.5)}
    theirs = fast_bleu.SelfBLEU([h.split() for h in hyps], weights).get_score()
    for key, order in (("bleu4", 4), ("bleu2", 2)):
        ours = fastamfm.self_bleu(hyps, max_order=order).sentences["Self-BLEU"]
        # fast-bleu sums the logs in plain double arithmetic, NLTK with math.fsum.
        assert np.abs(ours - np.array(theirs[key])).max() <= 1e-12


def test_evaluate_scores_the_responses_against_each_other_without_references():
    hyps = ["the cat sat down", "the cat sat down", "a dog ran off"]
    res = fastamfm.evaluate(hyps, metrics=["self_bleu"])
    assert res["Self-BLEU"].tolist() == fastamfm.self_bleu(hyps).sentences["Self-BLEU"].tolist() == _nltk_loop(hyps)
    assert res["Self-BLEU"][0] == pytest.approx(1.0)


def test_a_single_response_is_a_clear_error():
    with pytest.raises(ValueError, match="self_bleu: needs at least 2 responses"):
        fastamfm.self_bleu(["only one"])


def test_empty_responses_score_zero_as_nltk_does():
    for responses in (["", "a b", "a b"], ["", ""], ["", "a b c d"]):
        ours = fastamfm.self_bleu(responses).sentences["Self-BLEU"].tolist()
        assert ours == _nltk_loop(responses) and ours[0] == 0.0


def test_chunked_entry_points_refuse_it(tmp_path):
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("a b\nc d\n")
    with pytest.raises(ValueError, match="score_files: self_bleu compares each response with all the others"):
        fastamfm.score_files(tmp_path / "out.jsonl", hyp=hyp, metrics=["self_bleu"])
