"""Empty and whitespace-only responses: every metric has a defined score for them, and it
is never above the score of a real response (an empty response must not be a reward a
policy can exploit). The rules are listed in docs/bad-input.md ("Empty responses")."""
from __future__ import annotations

import fastamfm
import numpy as np
import pytest

EMPTY = ["", "   ", "\t \n"]
REAL = "happy to check on that flight"
REFS = [["i can check the flight status for you", "happy to check on that flight for you"]]


def _scores(metric, **kwargs) -> np.ndarray:
    # Another segment with other references, so that CIDEr's idf weights are not all 0.
    hyps = EMPTY + [REAL, "thanks"]
    result = metric(hyps, REFS * 4 + [["thanks a lot"]], **kwargs)
    return list(result.sentences.values())[-1]     # the one column, or BLEU's highest order


@pytest.mark.parametrize("metric", [fastamfm.bleu, fastamfm.rouge_l, fastamfm.cider], ids=lambda m: m.__name__)
def test_overlap_metrics_score_zero(metric):
    scores = _scores(metric)
    assert scores[:3].tolist() == [0.0, 0.0, 0.0] and scores[3] > 0


def test_overlap_metrics_equal_pycocoevalcap_on_empty_text():
    """pycocoevalcap defines empty text as 0 (BLEU, ROUGE-L, CIDEr); fastamfm keeps it."""
    pytest.importorskip("pycocoevalcap")
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.rouge.rouge import Rouge

    hyps = EMPTY + [REAL, "thanks"]
    refs = REFS * 4 + [["thanks a lot"]]
    gts = {i: r for i, r in enumerate(refs)}
    res = {i: [h] for i, h in enumerate(hyps)}
    bleu = fastamfm.bleu(hyps, refs)
    want_corpus, want = Bleu(4).compute_score(gts, res, verbose=0)
    np.testing.assert_allclose(list(bleu.corpus.values()), want_corpus, rtol=1e-9)
    np.testing.assert_allclose(np.stack(list(bleu.sentences.values())), want, rtol=1e-9, atol=1e-12)
    for ours, theirs, column in ((fastamfm.rouge_l, Rouge(), "ROUGE_L"), (fastamfm.cider, Cider(), "CIDEr")):
        want_corpus, want = theirs.compute_score(gts, res)
        got = ours(hyps, refs)
        np.testing.assert_allclose(got.sentences[column], want, rtol=1e-9, atol=1e-12)
        assert got.corpus[column] == pytest.approx(want_corpus, rel=1e-9)


def test_meteor_scores_zero():
    try:
        scores = _scores(fastamfm.meteor)
    except fastamfm.meteor_resources.MeteorResourcesNotFound:
        scores = _scores(fastamfm.meteor, stages=("exact", "stem"))
    assert scores[:3].tolist() == [0.0, 0.0, 0.0] and scores[3] > 0


def test_distinct_counts_nothing_for_empty_responses():
    result = fastamfm.distinct(EMPTY + [REAL])
    assert np.asarray(result["sentences"])[:3].tolist() == [[0.0, 0.0]] * 3
    assert result["total"][:3].sum() == 0


def test_amfm_and_the_reward_score_zero():
    scorer = fastamfm.AMFM.default()
    hyps = EMPTY + [REAL, "zzqx qqqz blorp"]  # the last: only words the model does not know
    result = scorer.score(hyps, REFS * len(hyps))
    for column in (result.am, result.fm, result.amfm):
        assert column[[0, 1, 2, 4]].tolist() == [0.0] * 4 and column[3] > 0
    reward = scorer.reward(hyps, REFS * len(hyps))
    assert reward.dtype == np.float32 and reward[[0, 1, 2, 4]].tolist() == [0.0] * 4 and reward[3] > 0
    # The empty rule on the reference side: a hypothesis against an empty reference.
    assert scorer.score([REAL], [[""]]).fm.tolist() == [0.0]


@pytest.mark.parametrize("metric", ["embedding_average", "vector_extrema", "greedy_matching"])
def test_embedding_metrics_refuse_empty_text_or_score_zero(metric):
    words = ["happy", "to", "check", "on", "that", "flight", "i", "can", "the", "status", "for", "you"]
    vectors = fastamfm.WordVectors.from_arrays(words, np.random.default_rng(0).standard_normal((len(words), 8)))
    fn = getattr(fastamfm, metric)
    with pytest.raises(ValueError, match=r"hyps\[0\] has no tokens.*empty='zero'"):
        fn(EMPTY + [REAL], REFS * 4, vectors=vectors)
    result = fn(EMPTY + [REAL], REFS * 4, vectors=vectors, empty="zero")
    (scores,) = result.sentences.values()
    assert scores[:3].tolist() == [0.0, 0.0, 0.0] and scores[3] > 0
