"""One argument order, ``(hyps, refs=None, contexts=None)``, for every scorer, ``score``,
``reward`` and reward-function factory, and one meaning per keyword (issue 42, part 4).

The signature table below is the whole public surface that takes responses; a new
scorer that puts contexts before refs fails it. ``LMJudge``, ``Evaluator`` and
``FollowupScorer`` took ``(hyps, contexts, refs)`` before 0.2: their old positional calls
either keep their meaning with a DeprecationWarning or are refused, never read the other
way (``fastamfm/_argument_order.py``)."""
from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import fastamfm
from fastamfm._argument_order import refs_before_contexts
from fastamfm._renamed_keywords import NOT_GIVEN, renamed_keyword


def _scorers() -> dict:
    """{dotted name: callable} of every public function and method that takes responses."""
    from fastamfm.deep.followup import FollowupScorer
    from fastamfm.deep.lm_judge import LMJudge
    from fastamfm.evaluator.evaluator import Evaluator
    from fastamfm.integrations import trl
    from fastamfm.registry.metric import Metric

    found = {}
    for name in fastamfm.__all__:
        value = getattr(fastamfm, name)
        if inspect.isclass(value):
            for method in ("score", "reward", "components", "log_probs", "scores"):
                function = getattr(value, method, None)
                if callable(function):
                    found[f"{name}.{method}"] = function
        elif callable(value):
            found[name] = value
    for cls in (FollowupScorer, LMJudge, Evaluator, Metric, trl.RewardFunction):
        for method in ("score", "reward", "components", "log_probs", "scores"):
            if callable(getattr(cls, method, None)):
                found[f"{cls.__name__}.{method}"] = getattr(cls, method)
    return found


def _data_parameters(function) -> list:
    parameters = [p for p in inspect.signature(function).parameters if p != "self"]
    if parameters and parameters[0] == "systems":   # compare_systems, tune: {system: hyps} first
        parameters[0] = "hyps"
    return [p for p in parameters if p in ("hyps", "refs", "contexts")]


def test_every_scorer_takes_hyps_refs_contexts_in_that_order():
    table = {name: _data_parameters(function) for name, function in _scorers().items()}
    table = {name: order for name, order in table.items() if "hyps" in order}
    # The scorers the old order covered are in the table, and so is the rest of the surface.
    for name in ("LMJudge.score", "LMJudge.reward", "Evaluator.score", "Evaluator.reward", "FollowupScorer.score",
                 "FollowupScorer.reward", "DeepAMFM.score", "DeepAMFM.reward", "AMFM.score", "evaluate", "bleu",
                 "Pipeline.score", "Metric.score", "LearnedScorer.score", "RewardFunction.scores", "compare_systems"):
        assert name in table, name
    wrong = {name: order for name, order in table.items()
             if order != [p for p in ("hyps", "refs", "contexts") if p in order] or order[0] != "hyps"}
    assert not wrong, wrong
    # The three that moved take both, refs before contexts, with both defaulting to None.
    for name in ("LMJudge.score", "Evaluator.score", "FollowupScorer.score", "LMJudge.reward", "Evaluator.reward",
                 "FollowupScorer.reward"):
        parameters = inspect.signature(_scorers()[name]).parameters
        assert parameters["refs"].default is None and parameters["contexts"].default is None, name


def test_reward_function_factories_take_options_by_keyword_only():
    """TRL calls the reward function itself with its own keywords; the factories take
    no responses, only the metric and options, by keyword after it."""
    from fastamfm.integrations.trl import reward_function
    from fastamfm.integrations.trl_token_ids import token_reward_function

    for factory in (reward_function, token_reward_function):
        parameters = list(inspect.signature(factory).parameters.values())
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters[1:]
                   if p.kind is not inspect.Parameter.VAR_KEYWORD), factory


class _ContextScorer:
    """The smallest scorer with the old order's problem: it needs contexts."""

    @refs_before_contexts
    def score(self, hyps, refs=None, contexts=None):
        if contexts is None:
            raise ValueError("needs contexts")
        return {"refs": refs, "contexts": contexts}


def test_old_positional_contexts_keep_their_meaning_with_a_warning():
    scorer = _ContextScorer()
    with pytest.warns(DeprecationWarning, match=r"_ContextScorer.score\(hyps, contexts\) is the order before 0.2.*"
                                                r"write _ContextScorer.score\(hyps, contexts=...\)"):
        assert scorer.score(["a"], [["c"]]) == {"refs": None, "contexts": [["c"]]}
    with pytest.warns(DeprecationWarning):
        assert scorer.score(["a"], [["c"]], refs=[["r"]]) == {"refs": [["r"]], "contexts": [["c"]]}


def test_calls_by_keyword_and_new_order_calls_say_nothing():
    scorer = _ContextScorer()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert scorer.score(["a"], contexts=[["c"]], refs=[["r"]]) == {"refs": [["r"]], "contexts": [["c"]]}
        assert scorer.score(["a"], [["r"]], contexts=[["c"]]) == {"refs": [["r"]], "contexts": [["c"]]}


def test_two_positional_data_arguments_are_refused_until_the_next_release():
    with pytest.raises(TypeError, match=r"refs and contexts changed places in 0.2.*pass them by keyword"):
        _ContextScorer().score(["a"], [["c"]], [["r"]])


def test_renamed_keywords_warn_and_refuse_both_names():
    assert renamed_keyword("f", "model", "encoder", NOT_GIVEN, "x", None) == "x"
    with pytest.warns(DeprecationWarning, match=r"f\(model=\) is f\(encoder=\) since 0.2"):
        assert renamed_keyword("f", "model", "encoder", "old", None, None) == "old"
    with pytest.raises(TypeError, match=r"f: give encoder= only"):
        renamed_keyword("f", "model", "encoder", "old", "new", None)


def test_reference_index_takes_encoder_and_the_old_model_keyword():
    pytest.importorskip("faiss", reason="ReferenceIndex needs FAISS (pip install 'fastamfm[faiss]')")

    class Letters:
        def transform(self, texts):
            return np.array([[t.count("a") + 1.0, t.count("b") + 1.0] for t in texts])

    texts = ["a a b", "b b", "a"]
    new = fastamfm.ReferenceIndex(texts, encoder=Letters()).adequacy(["a b"]).sentences["AM"]
    with pytest.warns(DeprecationWarning, match=r"ReferenceIndex\(model=\) is ReferenceIndex\(encoder=\)"):
        old = fastamfm.ReferenceIndex(texts, model=Letters()).adequacy(["a b"]).sentences["AM"]
    np.testing.assert_array_equal(new, old)


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory):
    pytest.importorskip("torch", reason="LMJudge needs PyTorch (pip install 'fastamfm[deep]')")
    pytest.importorskip("transformers", reason="LMJudge needs transformers (pip install 'fastamfm[deep]')")
    from causal_models import make_model
    from fastamfm.neural.neural_lm import NeuralLM

    return NeuralLM.load(make_model(tmp_path_factory.mktemp("llama"), "llama"), device="cpu")


def test_lm_judge_and_followup_old_order(tiny_lm):
    from fastamfm.deep.followup import FollowupScorer
    from fastamfm.deep.lm_judge import LMJudge

    hyps, contexts, refs = ["fine , thanks", "ok"], [["how are you ?"], ["hi"]], [["good"], ["hello"]]
    judge = LMJudge(tiny_lm, aspects=["relevance"])
    expected = judge.score(hyps, refs=refs, contexts=contexts)["lm_judge"]
    np.testing.assert_array_equal(judge.score(hyps, refs, contexts=contexts)["lm_judge"], expected)
    with pytest.warns(DeprecationWarning, match=r"LMJudge.score\(hyps, contexts\)"):
        old = judge.score(hyps, contexts, refs=refs)["lm_judge"]
    np.testing.assert_array_equal(old, expected)
    with pytest.raises(TypeError, match=r"LMJudge.reward: refs and contexts changed places"):
        judge.reward(hyps, contexts, refs)
    followup = FollowupScorer(tiny_lm)
    with pytest.warns(DeprecationWarning, match=r"FollowupScorer.score\(hyps, contexts\)"):
        old = followup.score(hyps, contexts).sentences["followup"]
    np.testing.assert_array_equal(old, followup.score(hyps, contexts=contexts).sentences["followup"])
    with pytest.raises(ValueError, match=r"followup: is reference-free"):
        followup.score(hyps, refs, contexts=contexts)
