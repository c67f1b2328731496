"""fastamfm.pairwise (float32 [n, m] matrices, equal to the loop of single calls) and
fastamfm.mbr_select."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastamfm
from generation_data import text, words

TEXTS = ["the cat sat on the mat.", "A cat is on a mat!", "dogs bark loudly", "the cat sat", "", "Hello, world",
         "the cat sat on the mat."]


def _loop(score, candidates, references):
    return np.array([[score(c, r) for r in references] for c in candidates], dtype=np.float32)


def test_sacrebleu_chrf_and_rouge_equal_their_sentence_scores():
    from rouge_score.rouge_scorer import RougeScorer
    from sacrebleu.metrics import BLEU, CHRF

    bleu, chrf, chrf_pp = BLEU(effective_order=True), CHRF(), CHRF(word_order=2)
    rouge = RougeScorer(["rougeL", "rouge2"], use_stemmer=True)
    cases = [("sacrebleu", {}, lambda c, r: bleu.sentence_score(c, [r]).score),
             ("chrf", {}, lambda c, r: chrf.sentence_score(c, [r]).score),
             ("chrf++", {}, lambda c, r: chrf_pp.sentence_score(c, [r]).score),
             ("rouge", {"use_stemmer": True}, lambda c, r: rouge.score(r, c)["rougeL"].fmeasure),
             ("rouge", {"use_stemmer": True, "rouge_type": "rouge2"}, lambda c, r: rouge.score(r, c)["rouge2"].fmeasure)]
    for metric, options, score in cases:
        matrix = fastamfm.pairwise(TEXTS, TEXTS[:4], metric=metric, **options)
        assert matrix.dtype == np.float32 and matrix.shape == (7, 4)
        assert (matrix == _loop(score, TEXTS, TEXTS[:4])).all(), metric
        assert (fastamfm.pairwise(TEXTS, metric=metric, **options) ==
                fastamfm.pairwise(TEXTS, TEXTS, metric=metric, **options)).all()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(text, words), min_size=1, max_size=6), st.lists(st.one_of(text, words), min_size=1,
                                                                          max_size=5))
def test_generated_text_equals_single_calls(candidates, references):
    for metric in ("chrf", "sacrebleu", "rouge"):
        matrix = fastamfm.pairwise(candidates, references, metric=metric, workers=2)
        column = {"chrf": "chrF", "sacrebleu": "sacreBLEU", "rouge": "rougeL"}[metric]
        expected = [[fastamfm.evaluate([c], [[r]], metrics=[metric])[column][0] for r in references]
                    for c in candidates]
        assert (matrix == np.array(expected, dtype=np.float32)).all(), metric


def test_bleu_meteor_and_the_neural_metrics_run_the_metric_over_every_pair(request):
    matrix = fastamfm.pairwise(TEXTS[:3], TEXTS[3:], metric="bleu")
    expected = _loop(lambda c, r: fastamfm.bleu([c], [[r]]).sentences["Bleu_4"][0], TEXTS[:3], TEXTS[3:])
    assert (matrix == expected).all()
    if fastamfm.registry.metric_class("meteor").missing() is None:
        matrix = fastamfm.pairwise(TEXTS[:2], TEXTS[2:4], metric="meteor")
        assert (matrix == _loop(lambda c, r: fastamfm.meteor([c], [[r]]).sentences["METEOR"][0], TEXTS[:2],
                                TEXTS[2:4])).all()


def test_deep_am_and_bertscore(tiny_bert):
    encoder = fastamfm.SentenceEncoder.load(str(tiny_bert))
    matrix = fastamfm.pairwise(TEXTS, TEXTS[:3], metric="deep_am", encoder=encoder)
    expected = _loop(lambda c, r: fastamfm.deep_am([c], [[r]], encoder=encoder).sentences["deep_am"][0], TEXTS,
                     TEXTS[:3])
    # Not to the bit: the encoder's vectors of a text depend slightly on the batch it is encoded in.
    np.testing.assert_allclose(matrix, expected, atol=2e-6)
    matrix = fastamfm.pairwise(TEXTS[:3], TEXTS[3:5], metric="bertscore", encoder=encoder)
    expected = _loop(lambda c, r: fastamfm.bertscore([c], [[r]], encoder=encoder).bertscore_f1[0], TEXTS[:3], TEXTS[3:5])
    np.testing.assert_allclose(matrix, expected, atol=2e-6)


def test_fastchrf_agrees():
    fastchrf = pytest.importorskip("fastchrf", reason="fastchrf is a peer of the test extra")
    candidates, references = TEXTS[:5], TEXTS[2:]
    theirs = np.array(fastchrf.pairwise_chrf([candidates], [references])[0])
    assert np.abs(fastamfm.pairwise(candidates, references, metric="chrf") - theirs).max() < 1e-5


def test_mbr_picks_the_consensus_candidate():
    candidates = [["the cat sat on the mat", "a cat sat on the mat", "the cat sat on a mat", "dogs"],
                  ["x y z", "x y", "q"]]
    chosen = fastamfm.mbr_select(candidates, metric="chrf")
    for s, cands in enumerate(candidates):
        matrix = fastamfm.pairwise(cands, metric="chrf").astype(np.float64)
        np.fill_diagonal(matrix, 0)
        utility = matrix.sum(axis=1) / (len(cands) - 1)
        assert chosen.index[s] == int(np.argmax(utility)) and chosen.text[s] == cands[chosen.index[s]]
        assert chosen.utility[s] == utility.max()
    with_refs = fastamfm.mbr_select(candidates[0], ["the cat sat on the mat"], metric="sacrebleu")
    assert with_refs.text == ["the cat sat on the mat"]


def test_bad_input():
    with pytest.raises(ValueError, match="has no pairwise form"):
        fastamfm.pairwise(["a"], ["b"], metric="cider")
    with pytest.raises(ValueError, match="unknown metric"):
        fastamfm.pairwise(["a"], ["b"], metric="nope")
    with pytest.raises(ValueError, match="candidates is empty"):
        fastamfm.pairwise([], ["b"])
    with pytest.raises(TypeError, match=r"pairwise: references\[1\] is int"):
        fastamfm.pairwise(["a"], ["b", 3])
    with pytest.raises(ValueError, match="2 sources of candidates but 1 of references"):
        fastamfm.mbr_select([["a"], ["b"]], [["a"]])
