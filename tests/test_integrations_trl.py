"""fastamfm.integrations.trl: registry metrics as TRL reward functions.

The reward function called as TRL calls it (plain and conversational completions,
references from a dataset column, contexts from the prompt, weighted terms) gives
fastamfm's own scores; and a real GRPO step of TRL on a tiny random causal LM, with the
classic AM-FM reward and with DeepAMFM on tiny models, logs exactly those rewards."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import fastamfm
import numpy as np
import pytest
from amfm_helpers import tiny_pairs
from fastamfm import AMFM
from fastamfm.integrations.trl import reward_function

PYTHON_DIR = Path(fastamfm.__file__).resolve().parents[1]


def conversational(texts, role: str) -> list:
    return [[{"role": role, "content": t}] for t in texts]


@pytest.fixture(scope="module")
def pairs():
    return tiny_pairs(24, n_refs=3)


def test_rewards_are_amfm_reward_for_plain_and_conversational_completions(pairs):
    hyps, refs = pairs
    reward = reward_function("amfm")
    want = AMFM.default().reward(hyps, refs)
    plain = reward(prompts=["hello ?"] * len(hyps), completions=hyps, completion_ids=None, references=refs)
    chat = reward(prompts=conversational(["hello ?"] * len(hyps), "user"),
                  completions=conversational(hyps, "assistant"), references=refs)
    assert reward.__name__ == "fastamfm_amfm"
    assert isinstance(plain, list) and all(type(x) is float for x in plain)
    assert np.array_equal(np.float32(plain), want)   # TRL keeps float32 rewards
    assert chat == plain
    assert np.ptp(want) > 0


def test_references_from_a_named_column_one_string_or_a_list_per_row(pairs):
    hyps, refs = pairs
    reward = reward_function("amfm", references="gold", name="gold_amfm")
    one = reward(prompts=["x"] * len(hyps), completions=hyps, gold=[r[0] for r in refs], references=refs)
    assert reward.__name__ == "gold_amfm"
    assert np.array_equal(np.float32(one), AMFM.default().reward(hyps, [[r[0]] for r in refs]))


def test_missing_references_column_says_which_column_and_what_trl_passed(pairs):
    hyps, _ = pairs
    with pytest.raises(KeyError, match=r"'references'.*\['answer'\]"):
        reward_function("amfm")(prompts=["x"] * len(hyps), completions=hyps, answer=hyps, trainer_state=None)
    with pytest.raises(ValueError, match="24 completions but 2 rows of 'references'"):
        reward_function("amfm")(prompts=["x"] * len(hyps), completions=hyps, references=[["a"], ["b"]])


def test_last_assistant_message_of_a_tool_calling_completion_is_scored(pairs):
    hyps, refs = pairs
    completions = [[{"role": "assistant", "content": None}, {"role": "tool", "content": "42"},
                    {"role": "assistant", "content": [{"type": "text", "text": h}]}] for h in hyps]
    reward = reward_function("amfm")
    assert reward(prompts=["x"] * len(hyps), completions=completions, references=refs) == \
        reward(prompts=["x"] * len(hyps), completions=hyps, references=refs)


def test_weighted_terms_are_added_and_logged_apart(pairs):
    hyps, refs = pairs
    reward = reward_function({"amfm": 0.25, "Bleu_2": 2.0, "rouge_l": -1.0})
    logged = {}
    got = reward(prompts=["x"] * len(hyps), completions=hyps, references=refs,
                 log_metric=lambda name, value: logged.setdefault(name, value))
    columns = fastamfm.evaluate(hyps, refs, ["amfm", "bleu", "rouge_l"]).sentences
    want = 0.25 * columns["AM-FM"] + 2.0 * columns["Bleu_2"] - 1.0 * columns["ROUGE_L"]
    assert np.array_equal(got, want)
    assert logged == {f"{reward.__name__}/{c}": float(np.mean(columns[c])) for c in ("AM-FM", "Bleu_2", "ROUGE_L")}
    same = reward_function(["amfm", "Bleu_2", "rouge_l"], weights=[0.25, 2, -1])
    assert same(prompts=["x"] * len(hyps), completions=hyps, references=refs) == got


def test_cider_reward_uses_the_calls_references_or_given_document_frequencies(pairs):
    hyps, refs = pairs
    reward = reward_function("cider")
    assert np.array_equal(reward(prompts=["x"] * len(hyps), completions=hyps, references=refs),
                          fastamfm.cider(hyps, refs).sentences["CIDEr"])
    df = fastamfm.DocumentFrequencies().update(refs + [["an extra reference ."]])
    fixed = reward_function("cider", document_frequencies=df)
    assert np.array_equal(fixed(prompts=["x"] * 5, completions=hyps[:5], references=refs[:5]),
                          fastamfm.cider(hyps[:5], refs[:5], document_frequencies=df).sentences["CIDEr"])


@pytest.mark.parametrize("metrics, error, match", [
    ("bleu", ValueError, r"name the one to reward, e\.g\. reward_function\('Bleu_4'\)"),
    ("learned", ValueError, "Learned cannot run here"),
    ("no_such_metric", ValueError, "unknown metric"),
    ({"amfm": float("nan")}, ValueError, "finite number"),
    ({"amfm": True}, ValueError, "finite number"),
    ([], ValueError, "no metric named"),
    (3, TypeError, "metrics must be a name"),
])
def test_bad_reward_specifications_are_clear_errors(metrics, error, match):
    with pytest.raises(error, match=match):
        reward_function(metrics)


def test_more_bad_reward_specifications():
    with pytest.raises(ValueError, match="computes \\['Bleu_1', 'Bleu_2'\\] with these options, not 'Bleu_4'"):
        reward_function("Bleu_4", bleu={"max_order": 2})
    with pytest.raises(ValueError, match="2 metrics but 1 weights"):
        reward_function(["amfm", "rouge_l"], weights=[1.0])
    with pytest.raises(TypeError, match="not both"):
        reward_function({"amfm": 1.0}, weights=[1.0])
    with pytest.raises(TypeError, match="unknown option"):
        reward_function("amfm", vectors="x.txt")
    with pytest.raises(TypeError, match="column name or None"):
        reward_function("amfm", references=["a"])
    with pytest.raises(TypeError, match="completions\\[1\\] must be a str or a non-empty list"):
        reward_function("amfm")(prompts=["x", "y"], completions=["a", []], references=[["a"], ["b"]])


def test_importing_the_integration_imports_neither_torch_nor_trl():
    code = ("import sys, fastamfm, fastamfm.integrations, fastamfm.integrations.trl\n"
            "fastamfm.integrations.trl.reward_function('amfm')\n"
            "loaded = [m for m in ('torch', 'trl', 'transformers', 'torchmetrics', 'evaluate', 'datasets') "
            "if m in sys.modules]\n"
            "assert not loaded, loaded\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=PYTHON_DIR)


# --- neural rewards --------------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_llama(tmp_path_factory):
    pytest.importorskip("transformers", reason="the neural rewards need transformers (pip install 'fastamfm[deep]')")
    from causal_models import make_model

    return make_model(tmp_path_factory.mktemp("llama"), "llama")


@pytest.fixture(scope="module")
def tiny_deep_amfm(tiny_bert, tiny_llama):
    from fastamfm.deep.deep_amfm import DeepAMFM
    from fastamfm.neural.encoder import SentenceEncoder
    from fastamfm.neural.neural_lm import NeuralLM

    return DeepAMFM(encoder=SentenceEncoder.load(tiny_bert, device="cpu"), lm=NeuralLM.load(tiny_llama, device="cpu"))


def test_deep_amfm_reward_takes_the_dialogue_from_the_prompt(tiny_bert, tiny_llama, tiny_deep_amfm):
    hyps = ["we can check your flight .", "sorry about the delay", "hello"]
    chat = [[{"role": "system", "content": "you are an airline agent"}, {"role": "user", "content": "my bag is lost"},
             {"role": "assistant", "content": "sorry to hear that"}, {"role": "user", "content": "please help"}]] * 3
    turns = ["my bag is lost", "sorry to hear that", "please help"]
    reward = reward_function("deep_amfm", encoder=str(tiny_bert), lm=str(tiny_llama), device="cpu", references=None)
    want = tiny_deep_amfm.reward(hyps, contexts=[turns] * 3).numpy()
    got = reward(prompts=chat, completions=conversational(hyps, "assistant"))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    plain = reward(prompts=["\n".join(turns)] * 3, completions=hyps)
    np.testing.assert_allclose(plain, want, rtol=1e-6, atol=1e-6)


# --- a real GRPO step --------------------------------------------------------------------
DIALOGUES = [
    ("hello , how are you today ?", ["i am fine , thank you very much .", "fine thanks , and you ?"]),
    ("do you have any pets ?", ["yes , a dog named max and two cats .", "no , i do not ."]),
]


def grpo_step(policy_dir: Path, out: Path, dataset_rows: list, rewards: list):
    """One GRPO step of TRL on CPU: 2 prompts x 4 completions of 8 tokens, rewarded by the
    reward functions ``rewards``. Returns (the prompts and completions as TRL logged them,
    {reward function's name: its per-completion rewards}, TRL's log history)."""
    pytest.importorskip("trl", reason="the GRPO test needs trl (pip install 'fastamfm[trl]')")
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    tokenizer = AutoTokenizer.from_pretrained(policy_dir)
    # The random policy samples only tokens of lower-case words and punctuation (not
    # stray bytes), so that completions share words with the references and rewards vary.
    strays = [i for i in range(len(tokenizer)) if not re.fullmatch(r"[a-z ,.?']+", tokenizer.decode([i]))]
    config = GRPOConfig(output_dir=str(out), per_device_train_batch_size=8, num_generations=4,
                        max_completion_length=8, max_steps=1, logging_steps=1, report_to="none", bf16=False,
                        use_cpu=True, save_strategy="no", seed=0, disable_tqdm=True,
                        generation_kwargs={"suppress_tokens": strays})
    trainer = GRPOTrainer(model=AutoModelForCausalLM.from_pretrained(policy_dir), processing_class=tokenizer,
                          reward_funcs=rewards, args=config, train_dataset=Dataset.from_list(dataset_rows))
    trainer.train()
    # TRL's own record of the step (what log_completions prints): prompts, completions
    # and each reward function's per-completion rewards, as float32 values.
    logs = trainer._logs
    return list(logs["prompt"]), list(logs["completion"]), \
        {r.__name__: list(logs["rewards"][r.__name__]) for r in rewards}, trainer.state.log_history


def _text(message_or_text):
    return message_or_text if isinstance(message_or_text, str) else message_or_text[-1]["content"]


@pytest.mark.parametrize("form", ["plain", "conversational"])
def test_grpo_step_logs_the_classic_amfm_rewards(tmp_path, tiny_llama, form):
    references = dict(DIALOGUES)
    rows = [{"prompt": p if form == "plain" else [{"role": "user", "content": p}], "references": r}
            for p, r in DIALOGUES]
    reward = reward_function("amfm")
    prompts, completions, logged, history = grpo_step(tiny_llama, tmp_path, rows, [reward])
    rewards = logged[reward.__name__]
    assert len(rewards) == 8 and len(set(rewards)) > 2   # rewards that tell completions apart
    hyps = [_text(c) for c in completions]
    want = AMFM.default().reward(hyps, [references[_text(p)] for p in prompts])
    assert np.array_equal(np.float32(rewards), want)
    assert history[0][f"rewards/{reward.__name__}/mean"] == pytest.approx(float(np.mean(want)), rel=1e-6)


def test_grpo_step_logs_the_deep_amfm_rewards(tmp_path, tiny_bert, tiny_llama, tiny_deep_amfm):
    system = {"role": "system", "content": "you are friendly"}
    references = dict(DIALOGUES)
    rows = [{"prompt": [system, {"role": "user", "content": p}], "references": r} for p, r in DIALOGUES]
    reward = reward_function("deep_amfm", encoder=str(tiny_bert), lm=str(tiny_llama), device="cpu")
    prompts, completions, logged, history = grpo_step(tiny_llama, tmp_path, rows, [reward])
    rewards = logged[reward.__name__]
    assert len(rewards) == 8 and len(set(rewards)) > 2
    hyps = [_text(c) for c in completions]
    turns = [[m["content"] for m in p if m["role"] != "system"] for p in prompts]
    want = tiny_deep_amfm.reward(hyps, [references[t[-1]] for t in turns], contexts=turns).numpy()
    np.testing.assert_allclose(rewards, want, rtol=1e-6, atol=1e-6)
    assert history[0][f"rewards/{reward.__name__}/mean"] == pytest.approx(float(np.mean(want)), rel=1e-5)


def test_grpo_step_rewarded_through_a_server(tmp_path, tiny_llama):
    """The trainer loads no metric model: a ``fastamfm serve`` child process on loopback
    rewards TRL's completions through fastamfm.client's sync and async reward functions, and
    TRL logs the rewards AM-FM gives in process."""
    pytest.importorskip("starlette", reason="fastamfm serve needs the serve extra: pip install '.[serve]'")
    pytest.importorskip("uvicorn", reason="fastamfm serve needs the serve extra: pip install '.[serve]'")
    from fastamfm.client import remote_reward_function
    from serve_process import Server

    references = dict(DIALOGUES)
    rows = [{"prompt": [{"role": "user", "content": p}], "references": r} for p, r in DIALOGUES]
    server = Server()
    try:
        served = [remote_reward_function(server.url, "amfm", name="served_amfm"),
                  remote_reward_function(server.url, "amfm", name="served_amfm_async", asynchronous=True)]
        prompts, completions, logged, history = grpo_step(tiny_llama, tmp_path, rows, served)
        answered = server.prometheus()['fastamfm_requests_total{route="/v1/reward",status="200"}']
    finally:
        assert server.stop() == 0
    assert answered == 2                       # one request per reward function for the step's 8 completions
    hyps = [_text(c) for c in completions]
    want = AMFM.default().reward(hyps, [references[_text(p)] for p in prompts])
    assert len(set(want)) > 2
    for name in ("served_amfm", "served_amfm_async"):
        assert np.array_equal(np.float32(logged[name]), want), name
        assert history[0][f"rewards/{name}/mean"] == pytest.approx(float(np.mean(want)), rel=1e-6)


@pytest.mark.gpu
def test_neural_reward_runs_on_the_current_cuda_device(tiny_bert, tiny_llama, tiny_deep_amfm):
    """On a GPU, a neural reward left at device="auto" loads its models on the first call on
    the current CUDA device -- which accelerate sets to each process's own GPU."""
    import torch

    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA device")
    hyps, turns = ["we can check your flight .", "sorry about the delay"], ["my bag is lost", "please help"]
    reward = reward_function("deep_amfm", encoder=str(tiny_bert), lm=str(tiny_llama), references=None)
    got = reward(prompts=["\n".join(turns)] * 2, completions=hyps)
    scorer = reward.pipeline.metrics[0].scorer
    assert scorer.lm.device.startswith("cuda") and str(scorer.encoder.device).startswith("cuda")
    np.testing.assert_allclose(got, tiny_deep_amfm.reward(hyps, contexts=[turns] * 2).numpy(), rtol=1e-4, atol=1e-4)
