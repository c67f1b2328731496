"""Distinct-n over the corpus and per response."""
from __future__ import annotations

import fastamfm
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import nlg as oracle

texts = st.lists(st.lists(st.sampled_from(["a", "b", "c", "日本", "café"]), max_size=8).map(" ".join),
                 min_size=1, max_size=20)


@settings(max_examples=80, deadline=None)
@given(texts)
def test_equals_oracle(hyps):
    res = fastamfm.distinct(hyps, orders=(1, 2, 3))
    for k, n in enumerate((1, 2, 3)):
        corpus, per_response = oracle.distinct(hyps, n)
        assert res[f"distinct_{n}"] == pytest.approx(corpus, rel=1e-15)
        assert res["sentences"][:, k].tolist() == pytest.approx(per_response, rel=1e-15)


def test_counts_by_hand():
    res = fastamfm.distinct(["a a b", "a b", ""])
    assert res["distinct_1"] == 2 / 5
    assert res["distinct_2"] == 2 / 3  # (a a), (a b), (a b)
    assert res["sentences"].tolist() == [[2 / 3, 1.0], [1.0, 1.0], [0.0, 0.0]]
    assert res["corpus_unique"].tolist() == [2, 2]
    assert res["corpus_total"].tolist() == [5, 3]
    assert res["orders"] == (1, 2)


def test_thread_count_and_many_parts_give_the_same_result():
    hyps = [f"w{i % 97} w{i % 13} w{i % 7}" for i in range(20000)]
    one = fastamfm.distinct(hyps, workers=1)
    two = fastamfm.distinct(hyps, workers=2)
    assert one["distinct_1"] == two["distinct_1"] == 97 / 60000
    assert one["sentences"].tolist() == two["sentences"].tolist()


def test_lowercase_and_single_order():
    res = fastamfm.distinct(["A a", "B"], orders=1, lowercase=True)
    assert res["distinct_1"] == 2 / 3
    assert "distinct_2" not in res


def test_bad_input():
    with pytest.raises(ValueError, match="distinct: hyps is empty"):
        fastamfm.distinct([])
    with pytest.raises(TypeError, match=r"hyps\[1\] is int, expected str"):
        fastamfm.distinct(["a", 1])
    with pytest.raises(ValueError, match="orders must be a non-empty sequence"):
        fastamfm.distinct(["a"], orders=())
    with pytest.raises(ValueError, match="orders must be a non-empty sequence"):
        fastamfm.distinct(["a"], orders=(0,))
