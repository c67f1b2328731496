"""CIDEr-D: pycocoevalcap 1.2's Cider (nlg-eval's "CIDEr"), and two-pass streaming."""
from __future__ import annotations

import fastamfm
import numpy as np
import pytest
from hypothesis import given, settings
from oracles import nlg as oracle

corpus = oracle.text_strategies()

# The tf-idf sums run over n-grams in key order rather than pycocoevalcap's dict
# order, and numpy's log may differ from the C library's in the last bit.
RTOL = 1e-12


def test_nlgeval_single_segment_scores_zero():
    # One segment: every n-gram has df = N = 1 and log 1 = 0.
    res = fastamfm.cider(["this is a good test"], [["this is a test", "this is also a test"]])
    assert res.corpus["CIDEr"] == 0.0


def test_small_corpus_by_hand():
    hyps = ["a b c", "d e"]
    refs = [["a b c"], ["x y"]]
    res = fastamfm.cider(hyps, refs)
    # Segment 0 equals its only reference (cosine 1 for orders 1..3, order 4 absent), x10 / 4.
    assert res.sentences["CIDEr"][0] == pytest.approx(7.5)
    assert res.sentences["CIDEr"][1] == 0.0
    assert res.corpus["CIDEr"] == pytest.approx(3.75)


@settings(max_examples=150, deadline=None)
@given(corpus(min_size=2))
def test_equals_pycocoevalcap_on_generated_data(data):
    hyps, refs = data
    if not any(r.split() for rs in refs for r in rs):
        return  # pycocoevalcap fails on references without a single token (max of no df)
    expected_corpus, expected = oracle.pycoco_cider(hyps, refs)
    res = fastamfm.cider(hyps, refs, layout="responses")
    np.testing.assert_allclose(res.sentences["CIDEr"], expected, rtol=RTOL, atol=1e-15)
    assert res.corpus["CIDEr"] == pytest.approx(expected_corpus, rel=RTOL, abs=1e-15)


@settings(max_examples=40, deadline=None)
@given(corpus(min_size=2))
def test_equals_readable_oracle_with_other_sigma(data):
    hyps, refs = data
    res = fastamfm.cider(hyps, refs, sigma=2.5)
    np.testing.assert_allclose(res.sentences["CIDEr"], oracle.cider_d(hyps, refs, sigma=2.5), rtol=RTOL, atol=1e-15)


def _random_corpus(n, seed=0):
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(25)]
    hyps = [" ".join(rng.choice(vocab, rng.integers(0, 12))) for _ in range(n)]
    refs = [[" ".join(rng.choice(vocab, rng.integers(1, 12))) for _ in range(rng.integers(1, 5))] for _ in range(n)]
    return hyps, refs


def test_two_pass_chunks_equal_the_whole_corpus():
    hyps, refs = _random_corpus(500)
    whole = fastamfm.cider(hyps, refs)
    df = fastamfm.DocumentFrequencies()
    for start in range(0, 500, 120):
        df.update(refs[start:start + 120])
    assert df.num_segments == 500
    parts = [fastamfm.cider(hyps[s:s + 120], refs[s:s + 120], document_frequencies=df).sentences["CIDEr"]
             for s in range(0, 500, 120)]
    sentences = np.concatenate(parts)
    assert sentences.tolist() == whole.sentences["CIDEr"].tolist()
    assert float(np.mean(sentences)) == pytest.approx(whole.corpus["CIDEr"], rel=1e-15)


def test_document_frequencies_count_segments_not_references():
    refs = [["a b", "a c"], ["a"], ["b b"]]
    df = fastamfm.DocumentFrequencies().update(refs)
    expected = oracle.document_frequency(refs)
    for gram in [("a",), ("b",), ("c",), ("a", "b"), ("b", "b"), ("z",)]:
        assert df.count(list(gram)) == expected[gram]
    assert df.count("a b") == 1
    assert df.num_ngrams == len(expected)


def test_external_document_frequencies_from_a_larger_corpus():
    hyps, refs = _random_corpus(60, seed=3)
    df = fastamfm.DocumentFrequencies().update(refs)
    res = fastamfm.cider(hyps[:10], refs[:10], document_frequencies=df)
    expected = oracle.cider_d(hyps[:10], refs[:10], df=oracle.document_frequency(refs), num_segments=60)
    np.testing.assert_allclose(res.sentences["CIDEr"], expected, rtol=RTOL)


def test_references_encoded_once_and_thread_count():
    hyps, refs = _random_corpus(300, seed=5)
    encoded = fastamfm.References(refs)
    base = fastamfm.cider(hyps, refs, workers=1).sentences["CIDEr"].tolist()
    assert fastamfm.cider(hyps, encoded, workers=2).sentences["CIDEr"].tolist() == base
    assert fastamfm.cider(hyps, encoded, workers=-1).sentences["CIDEr"].tolist() == base


# --- bad input -------------------------------------------------------------------

def test_empty_hypothesis_list():
    with pytest.raises(ValueError, match="cider: hyps is empty"):
        fastamfm.cider([], [])


def test_length_mismatch():
    with pytest.raises(ValueError, match="cider: 2 hypotheses but 1 reference lists"):
        fastamfm.cider(["a", "b"], [["a"]])


def test_a_response_without_references():
    with pytest.raises(ValueError, match=r"refs\[1\] has no reference"):
        fastamfm.cider(["a", "b"], [["a"], []])


def test_non_string_items():
    with pytest.raises(TypeError, match=r"hyps\[0\] is float, expected str"):
        fastamfm.cider([1.5], [["a"]])


@pytest.mark.parametrize("kwargs, exc, message", [
    ({"sigma": 0}, ValueError, "sigma must be a positive number"),
    ({"max_order": 17}, ValueError, "max_order must be an int in 1..16"),
    ({"document_frequencies": {}}, TypeError, "must be a fastamfm.DocumentFrequencies"),
    ({"document_frequencies": fastamfm.DocumentFrequencies()}, ValueError, "document_frequencies is empty"),
    ({"document_frequencies": fastamfm.DocumentFrequencies(max_order=2)}, ValueError, "counted up to order 2"),
])
def test_bad_options(kwargs, exc, message):
    with pytest.raises(exc, match=message):
        fastamfm.cider(["a"], [["a"]], **kwargs)


def test_document_frequencies_must_match_the_tokenizer():
    df = fastamfm.DocumentFrequencies(lowercase=True).update([["a b"], ["b c"]])
    with pytest.raises(ValueError, match="document_frequencies use tok:whitespace\\+lc but the metric"):
        fastamfm.cider(["a", "b"], [["a b"], ["b c"]], document_frequencies=df)
    # References prepared for another tokenizer are counted as the table's tokenizer reads them.
    assert df.update(fastamfm.References([["A"]])).count("a") == 2
