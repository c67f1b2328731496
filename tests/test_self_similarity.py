"""The self_ form of the pairwise metrics: each response's mean score against every other
response alone equals a loop of the metric's own single-reference sentence scores."""
from __future__ import annotations

import numpy as np
import pytest

import fastamfm

RESPONSES = ["i can check that flight for you", "i can check the flight for you now", "your bag is on its way",
             "the bag is on its way to you", "sorry, i do not know"]


def _loop(metric: str, column: str, **options) -> np.ndarray:
    """The definition: for each response, the mean over the others of its score with that one reference."""
    out = []
    for i, response in enumerate(RESPONSES):
        others = [r for j, r in enumerate(RESPONSES) if j != i]
        scores = [fastamfm.evaluate([response], [[other]], metrics=[metric], **options)[column][0] for other in others]
        out.append(np.mean(scores))
    return np.asarray(out)


@pytest.mark.parametrize("metric, column", [("chrf", "chrF"), ("sacrebleu", "sacreBLEU"), ("rouge", "rougeL")])
def test_equals_the_loop_of_single_reference_scores(metric, column):
    result = fastamfm.self_similarity(RESPONSES, metric=metric)
    assert result.name == f"self_{metric}"
    own = f"self_{metric}"   # the result's one column
    np.testing.assert_allclose(result.sentences[own], _loop(metric, column), rtol=0, atol=1e-4)
    assert result.corpus[own] == pytest.approx(float(np.mean(result.sentences[own])))
    assert f"self_{metric}|" in result.signature and "refs=each-other-alone" in result.signature


def test_identical_responses_are_maximally_alike_and_options_reach_the_metric():
    same = fastamfm.self_similarity(["the same reply"] * 3, metric="chrf")
    assert same.sentences["self_chrf"].tolist() == [100.0] * 3
    plus = fastamfm.self_similarity(RESPONSES, metric="chrf", word_order=2)
    assert not np.allclose(plus.sentences["self_chrf"],
                           fastamfm.self_similarity(RESPONSES, metric="chrf").sentences["self_chrf"])
    assert "word_order=2" in plus.signature


def test_bad_input():
    with pytest.raises(ValueError, match="needs at least 2 responses"):
        fastamfm.self_similarity(["alone"])
    with pytest.raises(ValueError, match="has no pairwise form"):
        fastamfm.self_similarity(RESPONSES, metric="cider")
