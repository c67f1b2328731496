"""BLEU: pycocoevalcap 1.2 / nlg-eval numbers, summable statistics, sacrebleu smoothing."""
from __future__ import annotations

import fastamfm
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import nlg as oracle

corpus = oracle.text_strategies()

NLGEVAL_REFS = [["this is a test", "this is also a test"]]
NLGEVAL_HYP = ["this is a good test"]


def test_nlgeval_single_segment_example():
    # nlg-eval's test_compute_individual_metrics expectations.
    res = fastamfm.bleu(NLGEVAL_HYP, NLGEVAL_REFS)
    assert list(res.corpus.values()) == pytest.approx([0.799999, 0.632455, 0.5108729, 0.0000903602], rel=1e-5)
    assert np.column_stack(list(res.sentences.values())).shape == (1, 4)


@settings(max_examples=150, deadline=None)
@given(corpus())
def test_equals_pycocoevalcap_on_generated_data(data):
    hyps, refs = data
    corpus_ref, sentences_ref = oracle.pycoco_bleu(hyps, refs)
    res = fastamfm.bleu(hyps, refs)
    # Same operations in the same order: equal to the last bit.
    assert list(res.corpus.values()) == list(corpus_ref)
    assert [col.tolist() for col in res.sentences.values()] == [list(col) for col in sentences_ref]


@settings(max_examples=50, deadline=None)
@given(corpus())
def test_equals_readable_oracle(data):
    hyps, refs = data
    corpus_ref, sentences_ref = oracle.bleu(hyps, refs)
    res = fastamfm.bleu(hyps, refs)
    np.testing.assert_allclose(list(res.corpus.values()), corpus_ref, rtol=1e-12, atol=0)
    np.testing.assert_allclose(np.column_stack(list(res.sentences.values())), sentences_ref, rtol=1e-12, atol=0)


@pytest.mark.parametrize("option", ["shortest", "average"])
def test_other_reference_lengths_equal_bleu_scorer(option):
    from pycocoevalcap.bleu.bleu_scorer import BleuScorer

    hyps = ["a b c d e", "a b", "x y z a b c d"]
    refs = [["a b c", "a b c d e f g h"], ["a b c d", "b"], ["x y z", "a b c d"]]
    scorer = BleuScorer(n=4)
    for h, r in zip(hyps, refs):
        scorer += (h, r)
    expected, per_segment = scorer.compute_score(option=option)
    res = fastamfm.bleu(hyps, refs, ref_length=option)
    assert list(res.corpus.values()) == list(expected)
    assert [col.tolist() for col in res.sentences.values()] == [list(c) for c in per_segment]


def test_chunks_add_up_to_the_whole_corpus():
    rng = np.random.default_rng(1)
    vocab = [f"w{i}" for i in range(30)]
    hyps = [" ".join(rng.choice(vocab, rng.integers(0, 15))) for _ in range(300)]
    refs = [[" ".join(rng.choice(vocab, rng.integers(1, 15))) for _ in range(rng.integers(1, 5))] for _ in range(300)]
    whole = fastamfm.bleu(hyps, refs)
    stats = None
    for start in range(0, 300, 70):
        part = fastamfm.bleu(hyps[start:start + 70], refs[start:start + 70]).extra["statistics"]
        stats = part if stats is None else stats + part
    assert stats == whole.extra["statistics"]
    assert stats.score().tolist() == list(whole.corpus.values())


def test_references_encoded_once_and_thread_count_give_the_same_result():
    hyps = ["a b c", "c d e f", "g"] * 50
    refs = [["a b c d", "a c"], ["c d", "e f g"], ["g h"]] * 50
    encoded = fastamfm.References(refs)
    base = fastamfm.bleu(hyps, refs, workers=1)
    for other in (fastamfm.bleu(hyps, encoded, workers=2), fastamfm.bleu(hyps, refs, workers=-1),
                  fastamfm.bleu(fastamfm.Hypotheses(hyps), encoded)):
        assert other.corpus == base.corpus
        assert {c: v.tolist() for c, v in other.sentences.items()} == {c: v.tolist() for c, v in base.sentences.items()}


def test_max_order_selects_columns():
    hyps, refs = ["a b c d", "a b"], [["a b c d"], ["a b c"]]
    full = fastamfm.bleu(hyps, refs)
    two = fastamfm.bleu(hyps, refs, max_order=2)
    assert list(two.corpus.values()) == [full.corpus["Bleu_1"], full.corpus["Bleu_2"]]
    assert np.column_stack(list(two.sentences.values())).shape == (2, 2)


def test_lowercase_option():
    res = fastamfm.bleu(["The Flight IS late"], [["the flight is late"]], lowercase=True)
    assert res.corpus["Bleu_4"] == pytest.approx(1.0)
    assert "lc" in res.signature


@pytest.mark.parametrize("smooth", ["none", "floor", "add-k", "exp"])
@settings(max_examples=40, deadline=None)
@given(data=corpus())
def test_smoothed_sentences_equal_sacrebleu(smooth, data):
    from sacrebleu.metrics import BLEU

    hyps, refs = data
    res = fastamfm.bleu(hyps, refs, smooth=smooth)
    for order in range(1, 5):
        scorer = BLEU(tokenize="none", smooth_method=smooth, effective_order=True, max_ngram_order=order)
        expected = [scorer.sentence_score(h, r).score / 100 for h, r in zip(hyps, refs)]
        np.testing.assert_allclose(res.sentences[f"Bleu_{order}"], expected, rtol=1e-12, atol=1e-15)
    assert list(res.corpus.values()) == list(fastamfm.bleu(hyps, refs).corpus.values())


def test_smooth_value_overrides_default():
    from sacrebleu.metrics import BLEU

    hyp, refs = "a b x y", ["a b c d"]
    res = fastamfm.bleu([hyp], [refs], smooth="floor", smooth_value=0.5)
    expected = BLEU(tokenize="none", smooth_method="floor", smooth_value=0.5,
                    effective_order=True).sentence_score(hyp, refs).score / 100
    assert res.sentences["Bleu_4"][0] == pytest.approx(expected, rel=1e-12)


# --- bad input -------------------------------------------------------------------

def test_empty_hypothesis_list():
    with pytest.raises(ValueError, match="bleu: hyps is empty"):
        fastamfm.bleu([], [])


def test_length_mismatch():
    with pytest.raises(ValueError, match="bleu: 2 hypotheses but 3 reference lists"):
        fastamfm.bleu(["a", "b"], [["a"], ["b"], ["c"]])


def test_length_mismatch_with_encoded_references():
    with pytest.raises(ValueError, match="bleu: 1 hypotheses but References holds 2 segments"):
        fastamfm.bleu(["a"], fastamfm.References([["a"], ["b"]]))


def test_a_response_without_references():
    with pytest.raises(ValueError, match=r"refs\[1\] has no reference"):
        fastamfm.bleu(["a", "b"], [["a"], []])


def test_non_string_hypothesis():
    # named with the call, as the references are, before anything is scored
    with pytest.raises(TypeError, match=r"^bleu: hyps\[1\] is int, expected str$"):
        fastamfm.bleu(["a", 3], [["a"], ["b"]])
    with pytest.raises(TypeError, match=r"^evaluate: hyps\[0\] is NoneType, expected str$"):
        fastamfm.evaluate([None], [["a"]], ["rouge_l"])


def test_non_string_reference():
    with pytest.raises(TypeError, match=r"^bleu: refs\[1\]\[0\] is NoneType, expected str$"):
        fastamfm.bleu(["a", "b"], [["a"], [None]])


def test_single_string_instead_of_list():
    with pytest.raises(TypeError, match="not a single string"):
        fastamfm.bleu("a b c", [["a b c"]])


@pytest.mark.parametrize("kwargs, message", [
    ({"max_order": 0}, "max_order must be an int in 1..16"),
    ({"ref_length": "longest"}, "ref_length must be one of"),
    ({"smooth": "laplace"}, "smooth must be None"),
    ({"smooth": "exp", "smooth_value": 0.1}, "smooth_value applies to"),
    ({"workers": -2}, "workers must be -1"),
])
def test_bad_options(kwargs, message):
    with pytest.raises(ValueError, match=message):
        fastamfm.bleu(["a"], [["a"]], **kwargs)


def test_references_encode_for_the_tokenizer_the_metric_asks_for():
    shared = fastamfm.References([["A b"], ["c D"]])  # prepared for the whitespace preset
    lowered = fastamfm.bleu(["a B", "C d"], shared, lowercase=True)
    expected = fastamfm.bleu(["a B", "C d"], [["A b"], ["c D"]], lowercase=True)
    assert list(lowered.corpus.values()) == list(expected.corpus.values())
    assert lowered.corpus["Bleu_1"] == pytest.approx(1.0)


@settings(max_examples=60, deadline=None)
@given(corpus(), st.booleans())
def test_text_path_equals_encoded_path(data, lowercase):
    # Raw lists are scored straight from text; References/Hypotheses through cached tables.
    hyps, refs = data
    hyps = [h.upper() if i % 2 else h for i, h in enumerate(hyps)]
    raw = fastamfm.bleu(hyps, refs, lowercase=lowercase)
    encoded = fastamfm.bleu(fastamfm.Hypotheses(hyps, lowercase=lowercase),
                            fastamfm.References(refs, lowercase=lowercase), lowercase=lowercase)
    assert [c.tolist() for c in raw.sentences.values()] == [c.tolist() for c in encoded.sentences.values()]
    assert raw.extra["statistics"] == encoded.extra["statistics"]


def test_workers_must_be_an_int():
    with pytest.raises(TypeError, match="bleu: workers must be an int"):
        fastamfm.bleu(["a"], [["a"]], workers=1.5)
