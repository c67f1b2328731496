"""Bad input to the generation metrics: any bytes, any Unicode, empty and all-empty
corpora, oversized pairs -- a score or a clear ValueError/TypeError naming the place,
never a crash (also run under ASan/UBSan by .ci/run)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastamfm

METRICS = ["sacrebleu", "chrf", "chrf_plus", "rouge", "bleu"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.binary(max_size=40), min_size=2, max_size=5))
def test_any_bytes_score_or_name_the_bad_text(blobs):
    refs = [[b] for b in blobs]
    for metric in METRICS + ["self_bleu"]:
        try:
            res = fastamfm.evaluate(blobs, None if metric == "self_bleu" else refs, metrics=[metric])
        except ValueError as exc:
            assert "invalid UTF-8" in str(exc) and ("hyps[" in str(exc) or "refs[" in str(exc)), str(exc)
            continue
        assert all(math.isfinite(v) for v in res.corpus.values())
    try:
        matrix = fastamfm.pairwise([b.decode("utf-8") for b in blobs], metric="chrf")
    except UnicodeDecodeError:
        return
    assert np.isfinite(matrix).all()


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(max_size=40), min_size=2, max_size=5))
def test_any_unicode_text_scores_finite(texts):
    texts = [t.encode("utf-8", "replace").decode("utf-8", "replace") if not t.isprintable() else t for t in texts]
    try:
        res = fastamfm.evaluate(texts, [[t] for t in reversed(texts)], metrics=METRICS)
    except (ValueError, TypeError) as exc:
        assert "hyps[" in str(exc) or "refs[" in str(exc) or "references[" in str(exc), str(exc)
        return
    assert all(math.isfinite(v) for v in res.corpus.values())
    assert np.isfinite(fastamfm.self_bleu(texts).sentences["Self-BLEU"]).all()
    for metric in ("sacrebleu", "chrf", "rouge"):
        assert np.isfinite(fastamfm.pairwise(texts, metric=metric)).all()


def test_a_lone_surrogate_is_named():
    with pytest.raises((ValueError, TypeError), match=r"hyps\[1\]"):
        fastamfm.sacrebleu(["ok", "bad \ud800"], [["ok"], ["x"]])


def test_all_empty_corpora_give_the_tools_values():
    empty = ["", "   ", "\n"]
    refs = [[""], [" "], ["\t"]]
    res = fastamfm.evaluate(empty, refs, metrics=["sacrebleu", "chrf", "rouge"])
    assert res.corpus["sacreBLEU"] == 0.0 and res.corpus["chrF"] == 0.0 and res.corpus["rouge1"] == 0.0
    assert fastamfm.self_bleu(empty).corpus["Self-BLEU"] == 0.0
    assert (fastamfm.pairwise(empty, metric="chrf") == 0).all()


def test_rouge_lsum_of_huge_multi_line_pairs_is_a_clear_error():
    line = " ".join(f"w{i}" for i in range(20000))
    with pytest.raises(ValueError, match="rougeLsum: lines of 20000 and 20000 tokens"):
        fastamfm.rouge([line + "\nx"], [[line + "\ny"]], rouge_types=["rougeLsum"])
    # One line each: the bit-parallel LCS, no table.
    assert fastamfm.rouge([line], [[line]], rouge_types=["rougeLsum"])["rougeLsum"][0] == 1.0


def test_mismatched_lengths_name_the_sizes():
    for metric in METRICS:
        with pytest.raises(ValueError, match="2 hypotheses but 1 reference lists"):
            fastamfm.evaluate(["a", "b"], [["a"]], metrics=[metric])
