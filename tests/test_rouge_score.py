"""fastamfm.rouge / the registry metric "rouge": rouge-score's ROUGE-1/2/L/Lsum with its
tokenizer, Porter stemming, precision/recall/F1 per response and score_multi's best
reference, on DSTC-6 and Topical-Chat, against rouge-score and the readable oracle."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastamfm
from generation_data import corpus, text, topical_chat_pairs, words
from oracles import generation as oracle

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
MEASURES = {"": "fmeasure", "_precision": "precision", "_recall": "recall"}


def _max_difference(ours, hyps, refs, types, stem) -> float:
    scorer = rouge_scorer.RougeScorer(types, use_stemmer=stem)
    expected = [scorer.score_multi(r, h) for h, r in zip(hyps, refs)]
    worst = 0.0
    for t in types:
        for suffix, attr in MEASURES.items():
            theirs = np.array([getattr(e[t], attr) for e in expected])
            worst = max(worst, float(np.abs(ours[t + suffix] - theirs).max()))
    return worst


@pytest.mark.slow
def test_dstc6_every_system(dstc6_systems, dstc6_refs):
    """All 20 systems scored whole, compared with rouge-score on the first 100 responses of
    each (x 11 references: rouge-score needs ~5 ms a response; benchmarks/generation/exactness.py
    compares all 40,000)."""
    refs = fastamfm.References(dstc6_refs)
    for name, hyps in dstc6_systems.items():
        ours = fastamfm.rouge(hyps, refs)
        n = 100
        assert _max_difference({k: v[:n] for k, v in ours.sentences.items()}, hyps[:n], dstc6_refs[:n], TYPES,
                               False) <= 1e-9, name


@pytest.mark.parametrize("stem", [False, True])
def test_topical_chat(topical_chat_dir, stem):
    hyps, refs = topical_chat_pairs(topical_chat_dir, 1000)
    ours = fastamfm.rouge(hyps, refs, use_stemmer=stem)
    assert _max_difference(ours, hyps, refs, TYPES, stem) <= 1e-9


@settings(max_examples=80, deadline=None)
@given(data=corpus(st.one_of(text, words)), stem=st.booleans())
def test_generated_text(data, stem):
    hyps, refs = data
    types = ["rouge1", "rouge2", "rouge3", "rougeL", "rougeLsum"]
    ours = fastamfm.rouge(hyps, refs, rouge_types=types, use_stemmer=stem)
    assert _max_difference(ours, hyps, refs, types, stem) == 0.0


@settings(max_examples=60, deadline=None)
@given(lines=st.lists(st.lists(st.lists(st.sampled_from("abcde"), max_size=6), max_size=3), min_size=2, max_size=2))
def test_summary_level_lcs_equals_the_oracle(lines):
    hyp_lines, ref_lines = lines
    hyp = "\n".join(" ".join(line) for line in hyp_lines)
    ref = "\n".join(" ".join(line) for line in ref_lines)
    ours = fastamfm.rouge([hyp], [[ref]], rouge_types=["rougeLsum"])
    p, r, f = oracle.rouge_lsum(hyp_lines, ref_lines)
    assert (ours["rougeLsum_precision"][0], ours["rougeLsum_recall"][0], ours["rougeLsum"][0]) == (p, r, f)


def test_corpus_is_the_mean_and_aggregator_mid_is_near_it(dstc6_systems, dstc6_refs):
    from rouge_score.scoring import BootstrapAggregator

    hyps, refs = dstc6_systems["S_6"][:300], dstc6_refs[:300]
    ours = fastamfm.rouge(hyps, refs, rouge_types=["rouge1", "rougeL"])
    scorer = rouge_scorer.RougeScorer(["rouge1", "rougeL"])
    aggregator = BootstrapAggregator()
    for h, r in zip(hyps, refs):
        aggregator.add_scores(scorer.score_multi(r, h))
    mid = aggregator.aggregate()
    for t in ("rouge1", "rougeL"):
        assert ours.corpus[t] == pytest.approx(float(np.mean(ours[t])), rel=1e-15)
        # The mid is a bootstrap median of means: within its resampling noise of the mean.
        assert abs(mid[t].mid.fmeasure - ours.corpus[t]) < 0.01


def test_rouge_l_of_pycocoevalcap_stays_apart():
    hyps, refs = ["the cat sat on the mat today"], [["the cat on mat"]]
    res = fastamfm.evaluate(hyps, refs, metrics=["rouge", "rouge_l"])
    assert res["rougeL"][0] != res["ROUGE_L"][0]
    assert fastamfm.registry.resolve(["rougeL"]) == ["rouge"]


def test_bad_options_and_input():
    with pytest.raises(ValueError, match="unknown rouge type 'rougeX'"):
        fastamfm.rouge(["a"], [["a"]], rouge_types=["rougeX"])
    with pytest.raises(ValueError, match="split_summaries=True needs NLTK's punkt"):
        fastamfm.evaluate(["a"], [["a"]], metrics=["rouge"], split_summaries=True)
    with pytest.raises(ValueError, match="rouge: 1 hypotheses but 2 reference lists"):
        fastamfm.rouge(["a"], [["a"], ["b"]])


def test_empty_responses_score_zero_as_rouge_score_does():
    hyps, refs = ["", "!!", "a"], [["a b"], ["a"], [""]]
    ours = fastamfm.rouge(hyps, refs)
    assert _max_difference(ours, hyps, refs, TYPES, False) == 0.0
    assert all(v.tolist() == [0.0, 0.0, 0.0] for v in ours.sentences.values())
