"""BERTScore: a tiny random BERT against the loop oracle (weights, idf, several
references, empty texts, baseline rescaling, References reuse, errors), and the packaged
MiniLM against the bert-score package on DSTC-6 sentences."""
from __future__ import annotations

import fastamfm
import numpy as np
import pytest
from oracles import deep as oracle

HYPS = ["i can check the flight status", "sorry about the delay", "thanks", "", "the gate is open"]
REFS = [["please check the flight", "the status is good"], ["sorry"], ["thanks for the help", "no", "hello"],
        ["thanks"], [""]]


@pytest.fixture(scope="module")
def plain(tiny_bert):
    return oracle.load_plain(tiny_bert)


@pytest.fixture(scope="module")
def encoder(tiny_bert):
    from fastamfm.deep.bertscore import load_bertscore_encoder

    return load_bertscore_encoder(str(tiny_bert), "cpu", -1)


def columns(res) -> np.ndarray:
    return np.stack([res.bertscore_precision, res.bertscore_recall, res.bertscore_f1], axis=1)


@pytest.mark.parametrize("idf", [False, True])
@pytest.mark.parametrize("layer", [1, None])
def test_bertscore_equals_oracle(encoder, plain, idf, layer):
    res = fastamfm.bertscore(HYPS, REFS, encoder=encoder, layer=layer, idf=idf, batch_size=2, peer_batch=None)
    want = oracle.bertscore(*plain, HYPS, REFS, layer=2 if layer is None else layer, idf=idf,
                            max_length=encoder.max_length)
    np.testing.assert_allclose(columns(res), want, atol=2e-5)
    assert res.columns == ("bertscore_precision", "bertscore_recall", "bertscore_f1")
    assert res.corpus["bertscore_f1"] == pytest.approx(res.bertscore_f1.mean())
    np.testing.assert_array_equal(columns(res)[3:], 0.0)   # an empty response or reference scores 0


def test_bertscore_baseline_rescaling(encoder, plain, tmp_path):
    baseline = tmp_path / "baseline.tsv"
    baseline.write_text("LAYER,P,R,F\n0,0.5,0.4,0.3\n1,0.2,0.1,0.15\n2,0.3,0.3,0.3\n")
    res = fastamfm.bertscore(HYPS, REFS, encoder=encoder, layer=1, baseline=baseline, peer_batch=4)
    want = oracle.bertscore(*plain, HYPS, REFS, layer=1, max_length=encoder.max_length, baseline=[0.2, 0.1, 0.15],
                            peer_batch=4)
    np.testing.assert_allclose(columns(res), want, atol=2e-5)
    assert "rescaled=baseline.tsv" in res.signature


def test_bertscore_reuses_reference_tokens(encoder):
    refs = fastamfm.References(REFS)
    first = fastamfm.bertscore(HYPS, refs, encoder=encoder)
    again = fastamfm.bertscore(HYPS[::-1], refs, encoder=encoder, batch_size=1)
    assert len([k for k in refs._derived if "bertscore" in str(k[0])]) == 1
    np.testing.assert_allclose(columns(first), columns(fastamfm.bertscore(HYPS, REFS, encoder=encoder)), atol=1e-6)
    assert again.bertscore_f1.shape == (5,)


def test_bertscore_errors(encoder, tmp_path):
    with pytest.raises(ValueError, match=r"layer must be in -3\.\.2"):
        fastamfm.bertscore(HYPS, REFS, encoder=encoder, layer=5)
    with pytest.raises(FileNotFoundError, match="baseline file"):
        fastamfm.bertscore(HYPS, REFS, encoder=encoder, baseline=tmp_path / "none.csv")
    short = tmp_path / "short.csv"
    short.write_text("LAYER,P,R,F\n0,0.1,0.1,0.1\n")
    with pytest.raises(ValueError, match="no baseline row for layer 2"):
        fastamfm.bertscore(HYPS, REFS, encoder=encoder, baseline=short)
    with pytest.raises(TypeError, match="idf must be True or False"):
        fastamfm.bertscore(HYPS, REFS, encoder=encoder, idf="yes")
    with pytest.raises(ValueError, match="peer_batch must be a positive integer or None"):
        fastamfm.bertscore(HYPS, REFS, encoder=encoder, peer_batch=0)
    with pytest.raises(ValueError, match="5 hypotheses but 4"):
        fastamfm.bertscore(HYPS, REFS[:4], encoder=encoder)


def test_registry_metric_equals_function(encoder):
    from fastamfm.deep.metrics import BERTScore
    from fastamfm.registry import Batch, metric_class

    assert metric_class("bertscore_f1") is BERTScore
    refs = fastamfm.References(REFS)
    metric = BERTScore(encoder=encoder, idf=True)
    chunk = metric.update(Batch(hyps=fastamfm.Hypotheses(HYPS), refs=refs))
    want = fastamfm.bertscore(HYPS, REFS, encoder=encoder, idf=True)
    for column in ("precision", "recall", "f1"):
        np.testing.assert_allclose(chunk.columns[f"bertscore_{column}"], want[f"bertscore_{column}"], atol=1e-6)
    assert len([k for k in refs._derived if "bertscore" in str(k[0])]) == 1
    assert "idf=True" in metric.signature()


@pytest.mark.slow
@pytest.mark.parametrize("idf,layer,rescale", [(False, 4, False), (True, 6, True)])
def test_bertscore_equals_bert_score_package(minilm_dir, dstc6_systems, dstc6_refs, tmp_path, idf, layer, rescale):
    bert_score = pytest.importorskip("bert_score", reason="the bert-score package is the peer checked here")
    # S_2's first 100 responses include pairs whose best token matches are negative, where
    # bert-score's batch padding shows (peer_batch).
    hyps = dstc6_systems["S_2"][:100]
    refs = dstc6_refs[:100]
    options = {}
    if rescale:
        baseline = tmp_path / "baseline.csv"
        baseline.write_text("LAYER,P,R,F\n" + "".join(f"{i},0.{i}1,0.{i}2,0.{i}3\n" for i in range(7)))
        options = {"rescale_with_baseline": True, "baseline_path": str(baseline), "lang": "en"}
    p, r, f = bert_score.score(hyps, refs, model_type=str(minilm_dir), num_layers=layer, idf=idf, **options)
    res = fastamfm.bertscore(hyps, refs, encoder=minilm_dir, layer=layer, idf=idf,
                             baseline=options.get("baseline_path"))
    np.testing.assert_allclose(columns(res), np.stack([p.numpy(), r.numpy(), f.numpy()], axis=1), atol=1e-4)


def test_peer_batch_padding_floors_best_matches():
    torch = pytest.importorskip("torch")
    from fastamfm.deep.bertscore import padded_in_peer_batches, pair_scores

    # Pairs (response length, reference length), two per response, batches of 3 pairs.
    hyp_padded, ref_padded = padded_in_peer_batches(np.array([4, 6]), np.array([5, 3, 2, 2]),
                                                    np.array([0, 2, 4]), 3)
    assert hyp_padded.tolist() == [True, True, False, False]
    assert ref_padded.tolist() == [False, True, True, False]
    assert not any(padded_in_peer_batches(np.array([4, 6]), np.array([5, 3, 2, 2]), np.array([0, 2, 4]), None)[0])
    # One response token opposite to the single reference token: cosine -1, or 0 when padded.
    hyp = torch.tensor([[[1.0, 0.0]]])
    ref = torch.tensor([[[[-1.0, 0.0]]]])
    ones_h, ones_r = torch.ones(1, 1, dtype=torch.bool), torch.ones(1, 1, 1, dtype=torch.bool)
    for hyp_floor, ref_floor, want in ((False, False, (-1.0, -1.0)), (True, False, (-1.0, 0.0)),
                                       (False, True, (0.0, -1.0))):
        p, r, _ = pair_scores(hyp, ones_h, torch.ones(1, 1), ref, ones_r, torch.ones(1, 1, 1),
                              torch.tensor([[hyp_floor]]), torch.tensor([[ref_floor]]))
        assert (p.item(), r.item()) == want
