"""Empty and whitespace-only responses in the neural metrics and rewards (issue 29): each
scores the lowest value of its scale -- 0 on [0, 1] (FM ratios, "unconditional",
BERTScore), -1 for Deep AM's signed cosine, -inf for the log-probability formulas, and the
calibrated floor for DeepAMFM's amfm and reward -- through the functions, the registry
and ``DeepAMFM.score``/``reward``; with the packaged models, never above real weak
replies."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch", reason="the neural metrics need torch (pip install 'fastamfm[deep]')")
pytest.importorskip("transformers", reason="the neural metrics need transformers")

import fastamfm  # noqa: E402
from causal_models import make_model  # noqa: E402
from fastamfm.deep.deep_amfm import DeepAMFM  # noqa: E402
from fastamfm.deep.fm import EMPTY_SCORES, REFERENCE_FREE_FORMULAS, deep_fm  # noqa: E402
from fastamfm.neural.encoder import SentenceEncoder  # noqa: E402
from fastamfm.neural.neural_lm import NeuralLM  # noqa: E402

EMPTY = ["", "   ", "\t\n ", "\u3000"]
REAL = ["i like hiking and reading books .", "hello , how are you today ?"]
HYPS = EMPTY + REAL
REFS = [["hello , how are you ?", "i like to read"]] * len(HYPS)
CONTEXTS = [["what do you like to do on weekends ?", "hi"]] * len(HYPS)
MODES = {"reference": (REFS, None), "context": (None, CONTEXTS), "both": (REFS, CONTEXTS)}


@pytest.fixture(scope="module")
def lm(tmp_path_factory):
    return NeuralLM.load(str(make_model(tmp_path_factory.mktemp("llama") / "llama")), device="cpu")


@pytest.fixture(scope="module")
def encoder(tiny_bert):
    return SentenceEncoder.load(str(tiny_bert), device="cpu")


def _empty(values) -> np.ndarray:
    return np.asarray(values)[:len(EMPTY)]


def test_deep_am_gives_empty_responses_the_lowest_cosine(encoder):
    for refs, contexts in ((REFS, None), (None, CONTEXTS)):
        for kwargs in ({}, {"combine": "mean"}, {"context": "last"}, {"context": "joined"}):
            if refs is not None and "context" in kwargs or refs is None and "combine" in kwargs:
                continue
            result = fastamfm.deep_am(HYPS, refs, contexts, encoder=encoder, **kwargs)
            values = result.sentences["deep_am"]
            assert (_empty(values) == -1.0).all() and (values[len(EMPTY):] > -1).all()


def test_deep_fm_gives_empty_responses_the_lowest_value_of_each_formula(lm):
    for formula in ("ratio", "dstc10"):
        for combine in ("max", "maxmin", "mean"):
            values = deep_fm(HYPS, REFS, lm=lm, formula=formula, combine=combine).sentences["deep_fm"]
            assert (_empty(values) == 0.0).all()
    for formula in REFERENCE_FREE_FORMULAS:
        values = deep_fm(HYPS, contexts=CONTEXTS, lm=lm, formula=formula).sentences["deep_fm"]
        assert (_empty(values) == EMPTY_SCORES[formula]).all(), formula
        assert np.isfinite(values[len(EMPTY):]).all() and (values[len(EMPTY):] > EMPTY_SCORES[formula]).all()


def test_bertscore_scores_empty_responses_zero(encoder):
    for idf in (False, True):
        result = fastamfm.bertscore(HYPS, REFS, encoder=encoder, idf=idf)
        for column in ("bertscore_precision", "bertscore_recall", "bertscore_f1"):
            assert (_empty(result[column]) == 0.0).all() and (result[column][len(EMPTY):] > 0).all()


@pytest.mark.parametrize("mode", sorted(MODES))
def test_deep_amfm_gives_empty_responses_the_lowest_reward(lm, encoder, mode):
    refs, contexts = MODES[mode]
    scorer = DeepAMFM(encoder=encoder, lm=lm, device="cpu")
    lowest = scorer.lowest(mode)
    result = scorer.score(HYPS, refs, contexts)
    assert (_empty(result["deep_amfm_am"]) == -1.0).all()
    assert (_empty(result["deep_amfm"]) == lowest).all() and (result["deep_amfm"][len(EMPTY):] > lowest).all()
    reward = scorer.reward(HYPS, refs, contexts).numpy()
    assert (_empty(reward) == np.float32(lowest)).all() and (reward[len(EMPTY):] > np.float32(lowest)).all()
    for lam in (0.0, 0.3, 1.0):
        _, _, amfm = scorer.combine(scorer.components(HYPS, refs, contexts, which=scorer.parts(mode)), mode, lam=lam)
        assert (_empty(amfm) == scorer.lowest(mode, lam=lam)).all()


def test_the_registry_metrics_agree(lm, encoder):
    table = fastamfm.evaluate(HYPS, REFS, metrics=["deep_am", "deep_fm", "deep_amfm", "bertscore"],
                              encoder=encoder, lm=lm, device="cpu")
    assert (_empty(table["deep_am"]) == -1).all() and (_empty(table["deep_fm"]) == 0).all()
    assert (_empty(table["bertscore_f1"]) == 0).all()
    assert (_empty(table["deep_amfm"]) == DeepAMFM(encoder=encoder, lm=lm, device="cpu").lowest("reference")).all()


def test_the_lm_judges_give_empty_replies_the_lowest_value(tmp_path):
    from fastamfm.deep import followup, lm_judge

    lm = NeuralLM.load(str(make_model(tmp_path / "llama", max_positions=2048)), device="cpu")
    table = fastamfm.evaluate(HYPS, contexts=CONTEXTS, metrics=["followup", "lm_judge"], lm=lm,
                              aspects=["relevance", "naturalness"])
    assert (_empty(table["followup"]) == followup.LOWEST).all() and (table["followup"][len(EMPTY):] > -20).all()
    for column in ("lm_judge", "lm_judge_relevance", "lm_judge_naturalness"):
        assert (_empty(table[column]) == lm_judge.LOWEST).all() and (table[column][len(EMPTY):] > 1).all()


# --- the packaged models against real weak replies ------------------------------------------
WEAK = ["ok", "yes", "no", "hmm", "lol", ".", "?", "i don't know", "what?", "the", "asdf qwerty", "a a a a",
        "ok ok ok ok ok", "sure", "idk", "...", "yeah yeah", "no no no no", "k", "bye"]
WEAK_CONTEXTS = [["hi , how was your weekend ?", "it was great , i went hiking with my dog ."],
                 ["do you like pizza ?"], ["what is your favourite movie and why ?"]]
WEAK_REFS = [["sounds like a lot of fun , where did you go ?"], ["yes , pepperoni is my favourite ."],
             ["i love the matrix because of its story ."]]


@pytest.fixture(scope="module")
def packaged():
    from fastamfm.models.location import ModelNotFound

    pytest.importorskip("gguf", reason="reading the packaged GGUF needs gguf (fastamfm[deep])")
    try:
        return DeepAMFM.default(device="cpu")
    except ModelNotFound as exc:
        pytest.skip(str(exc))


@pytest.mark.slow
def test_no_empty_reply_is_above_a_real_weak_reply_with_the_packaged_models(packaged):
    n = len(WEAK_CONTEXTS)
    hyps = [h for _ in range(n) for h in EMPTY + WEAK]
    per = len(EMPTY) + len(WEAK)
    contexts = [c for c in WEAK_CONTEXTS for _ in range(per)]
    refs = [r for r in WEAK_REFS for _ in range(per)]

    def check(values, what):
        values = np.asarray(values, dtype=np.float64).reshape(n, per)
        assert (values[:, :len(EMPTY)].max(axis=1) <= values[:, len(EMPTY):].min(axis=1)).all(), (what, values)

    for mode, (r, c) in {"reference": (refs, None), "context": (None, contexts), "both": (refs, contexts)}.items():
        result = packaged.score(hyps, r, c)
        for column in ("deep_amfm_am", "deep_amfm_fm", "deep_amfm"):
            check(result[column], f"{mode} {column}")
        check(packaged.reward(hyps, r, c).numpy(), f"{mode} reward")
    three = DeepAMFM(encoder=packaged.encoder, lm=packaged.lm, device="cpu", context_combination="am+fm+followup")
    result = three.score(hyps, contexts=contexts)
    for column in ("deep_amfm", "deep_amfm_followup"):
        check(result[column], f"am+fm+followup {column}")
    check(three.reward(hyps, contexts=contexts).numpy(), "am+fm+followup reward")
    check(fastamfm.deep_am(hyps, refs, encoder=packaged.encoder).sentences["deep_am"], "deep_am refs")
    check(fastamfm.deep_am(hyps, contexts=contexts, encoder=packaged.encoder).sentences["deep_am"], "deep_am contexts")
    for formula in ("dstc10", "ratio"):
        check(deep_fm(hyps, refs, lm=packaged.lm, formula=formula).sentences["deep_fm"], f"deep_fm {formula}")
    for formula in REFERENCE_FREE_FORMULAS:
        check(deep_fm(hyps, contexts=contexts, lm=packaged.lm, formula=formula).sentences["deep_fm"],
              f"deep_fm {formula}")
    scores = fastamfm.bertscore(hyps, refs, encoder=packaged.encoder)
    for column in ("bertscore_precision", "bertscore_recall", "bertscore_f1"):
        check(scores[column], f"bertscore {column}")
    from fastamfm.deep.followup import FollowupScorer
    from fastamfm.deep.lm_judge import LMJudge

    check(FollowupScorer(packaged.lm).score(hyps, contexts=contexts).sentences["followup"], "followup")
    check(LMJudge(packaged.lm, aspects=["relevance"]).score(hyps, contexts=contexts)["lm_judge"], "lm_judge")
