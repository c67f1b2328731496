"""ROUGE-L: pycocoevalcap 1.2 / nlg-eval numbers, rouge-score's multi-reference rule."""
from __future__ import annotations

import fastamfm
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from oracles import nlg as oracle

corpus = oracle.text_strategies()


def test_nlgeval_single_segment_example():
    res = fastamfm.rouge_l(["this is a good test"], [["this is a test", "this is also a test"]])
    assert res.corpus["ROUGE_L"] == pytest.approx(0.9070631, abs=1e-7)


@settings(max_examples=150, deadline=None)
@given(corpus())
# F = 0.18154761904761904 exactly as Python computes it; a build that contracts the F-score's
# products into fused multiply-adds (-march=native without -ffp-contract=off) gave 0.181547619047619
@example((["the " * 11 + "the"], [["the"]]))
def test_equals_pycocoevalcap_on_generated_data(data):
    hyps, refs = data
    expected_corpus, expected = oracle.pycoco_rouge_l(hyps, refs)
    res = fastamfm.rouge_l(hyps, refs)
    assert res.sentences["ROUGE_L"].tolist() == expected.tolist()
    # The corpus score is the correctly rounded mean (exact sums, the same however the
    # corpus is chunked); numpy's pairwise mean in pycocoevalcap may differ in the last bit.
    assert res.corpus["ROUGE_L"] == pytest.approx(expected_corpus, rel=1e-15, abs=1e-300)


PIECES = ["a", "b", " ", "  ", "c", "é", "\t", "\u3000", "\u00a0"]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=12).map("".join),
       st.lists(st.lists(st.sampled_from(PIECES), max_size=12).map("".join), min_size=1, max_size=3))
def test_runs_of_spaces_count_as_pycocoevalcap_counts_them(hyp, refs):
    # pycocoevalcap splits nlg-eval's stripped lines on single spaces: a double space is
    # an empty token that lengthens the text (the DSTC-6 references have some), a tab or
    # other whitespace inside a line does not separate, and strip() removes unicode spaces.
    _, expected = oracle.pycoco_rouge_l([hyp], [refs])
    assert fastamfm.rouge_l([hyp], [refs]).sentences["ROUGE_L"].tolist() == expected.tolist()
    assert fastamfm.rouge_l([hyp], [refs]).sentences["ROUGE_L"][0] == pytest.approx(oracle.rouge_l(hyp, refs), rel=1e-15)


def test_empty_hypothesis_matches_an_empty_reference_as_pycocoevalcap():
    assert fastamfm.rouge_l([""], [["", "a b"]]).sentences["ROUGE_L"].tolist() == [1.0]
    assert fastamfm.rouge_l([""], [["a b"]]).sentences["ROUGE_L"].tolist() == [0.0]


@pytest.mark.parametrize("hyp_len, ref_len", [(63, 70), (64, 64), (65, 130), (200, 150)])
def test_long_texts_use_several_words_of_the_bit_vector(hyp_len, ref_len):
    rng = np.random.default_rng(hyp_len)
    vocab = [f"t{i}" for i in range(6)]
    hyp = " ".join(rng.choice(vocab, hyp_len))
    refs = [" ".join(rng.choice(vocab, ref_len)), " ".join(rng.choice(vocab, ref_len // 2))]
    assert fastamfm.rouge_l([hyp], [refs]).sentences["ROUGE_L"][0] == pytest.approx(oracle.rouge_l(hyp, refs), rel=1e-15)


@settings(max_examples=60, deadline=None)
@given(corpus())
def test_max_f_equals_rouge_score(data):
    from rouge_score.rouge_scorer import RougeScorer

    hyps, refs = data
    # rouge-score drops non-alphanumeric characters; compare on text it keeps as is.
    keep = lambda s: " ".join(t for t in s.split() if t.isascii() and t.isalnum() and t.islower())  # noqa: E731
    hyps = [keep(h) for h in hyps]
    refs = [[keep(r) for r in rs] for rs in refs]
    scorer = RougeScorer(["rougeL"])
    expected = [scorer.score_multi(rs, h)["rougeL"].fmeasure for h, rs in zip(hyps, refs)]
    res = fastamfm.rouge_l(hyps, refs, beta=1.0, multi_ref="max-f")
    assert res.sentences["ROUGE_L"].tolist() == expected


def test_max_f_and_max_pr_differ_where_they_should():
    # P is best on one reference and R on another: max-pr combines them, max-f does not.
    hyps, refs = ["a b"], [["a b c d e f", "a x"]]
    max_pr = fastamfm.rouge_l(hyps, refs, beta=1.0).sentences["ROUGE_L"][0]
    max_f = fastamfm.rouge_l(hyps, refs, beta=1.0, multi_ref="max-f").sentences["ROUGE_L"][0]
    assert max_pr == pytest.approx(2 * 1.0 * 0.5 / 1.5)  # P = 1 (first), R = 1/2 (second)
    assert max_f == pytest.approx(oracle.rouge_l_max_f("a b", refs[0]))
    assert max_f == pytest.approx(0.5)
    assert max_pr > max_f


def test_beta_and_thread_count():
    hyps = ["a b c d", "b c", "d"] * 40
    refs = [["a c d", "b"], ["c b", "b c"], ["x"]] * 40
    base = fastamfm.rouge_l(hyps, refs, beta=2.0, workers=1)
    encoded = fastamfm.rouge_l(hyps, fastamfm.References(refs), beta=2.0, workers=2)
    assert base.sentences["ROUGE_L"].tolist() == encoded.sentences["ROUGE_L"].tolist()
    assert base.sentences["ROUGE_L"][0] == pytest.approx(oracle.rouge_l(hyps[0], refs[0], beta=2.0), rel=1e-15)


def test_amfm_tokenizer_is_accepted():
    res = fastamfm.rouge_l(["The flight, late!"], [["the flight is late"]], tokenize="amfm")
    assert res.sentences["ROUGE_L"][0] == pytest.approx(oracle.rouge_l("the flight late", ["the flight is late"]), rel=1e-15)


# --- bad input -------------------------------------------------------------------

def test_empty_hypothesis_list():
    with pytest.raises(ValueError, match="rouge_l: hyps is empty"):
        fastamfm.rouge_l([], [])


def test_length_mismatch():
    with pytest.raises(ValueError, match="rouge_l: 1 hypotheses but 2 reference lists"):
        fastamfm.rouge_l(["a"], [["a"], ["b"]])


def test_a_response_without_references():
    with pytest.raises(ValueError, match=r"refs\[0\] has no reference"):
        fastamfm.rouge_l(["a"], [[]])


def test_non_string_items():
    with pytest.raises(TypeError, match=r"hyps\[0\] is bytearray, expected str"):
        fastamfm.rouge_l([bytearray(b"a")], [["a"]])
    with pytest.raises(TypeError, match=r"refs\[0\]\[0\] is int, expected str"):
        fastamfm.rouge_l(["a"], [[1]])


@pytest.mark.parametrize("kwargs, message", [
    ({"beta": 0}, "beta must be a positive number"),
    ({"beta": float("nan")}, "beta must be a positive number"),
    ({"multi_ref": "mean"}, "multi_ref must be one of"),
])
def test_bad_options(kwargs, message):
    with pytest.raises(ValueError, match=message):
        fastamfm.rouge_l(["a"], [["a"]], **kwargs)


@settings(max_examples=60, deadline=None)
@given(corpus(), st.booleans(), st.sampled_from(["max-pr", "max-f"]))
def test_text_path_equals_encoded_path(data, lowercase, multi_ref):
    hyps, refs = data
    hyps = [h.replace(" ", "  ", 1).upper() if i % 2 else h for i, h in enumerate(hyps)]
    raw = fastamfm.rouge_l(hyps, refs, lowercase=lowercase, multi_ref=multi_ref)
    encoded = fastamfm.rouge_l(fastamfm.Hypotheses(hyps, lowercase=lowercase),
                               fastamfm.References(refs, lowercase=lowercase), lowercase=lowercase,
                               multi_ref=multi_ref)
    assert raw.sentences["ROUGE_L"].tolist() == encoded.sentences["ROUGE_L"].tolist()
