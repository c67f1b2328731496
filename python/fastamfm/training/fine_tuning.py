"""``fine_tune_encoder`` / ``fine_tune_lm``: one model trained on a dialogue corpus by the
shared trainer and saved as a plain Hugging Face directory its scorer loads. As recipes
(``EncoderRecipe``, kind ``sentence_encoder``; ``CausalLMRecipe``, kind ``causal_lm``) they
are what ``SentenceEncoder.fine_tune`` and ``NeuralLM.fine_tune`` reach through the registry;
``DeepAMFMRecipe`` runs both as its first two stages."""
from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

from .causal_lm_task import TRAINING_CONTEXT_TOKENS
from .corpus import DialogueCorpus
from .recipe import Recipe

if TYPE_CHECKING:
    from .settings import TrainingSettings

log = logging.getLogger(__name__)

# Measured defaults for two busy CPU cores (benchmarks/training/): see DeepAMFM.train.
ENCODER_DEFAULTS = {"batch_size": 32, "learning_rate": 2e-5, "warmup_steps": 20}
LM_DEFAULTS = {"batch_size": 8, "learning_rate": 2e-5, "warmup_steps": 20}
LORA_RANK = 16
LORA_LEARNING_RATE = 2e-4      # LoRA adapters start at zero and need a larger step than full fine-tuning


def _settings(defaults: dict, options: dict) -> TrainingSettings:
    from .settings import TrainingSettings

    return TrainingSettings(**{**defaults, **options})


def _work_dir(out: Path, work) -> Path:
    return Path(work) if work is not None else Path(str(out) + ".work")


def fine_tune_encoder(encoder, corpus, out, *, work=None, resume: bool = False, temperature: float = 0.05,
                      mlm: bool = True, blocklist=None, **settings):
    """Train ``encoder``'s model (a ``SentenceEncoder``) with ``ContrastiveTask`` on ``corpus``
    and save it to ``out``; returns the ``TrainingRun``. ``settings``: ``TrainingSettings``
    fields (a budget, ``max_minutes`` or ``max_steps``, is required)."""
    from ..io.atomic import atomic_directory
    from ..runtime import quiet_transformers
    from .contrastive_task import ContrastiveTask
    from .trainer import set_seed, train

    corpus = DialogueCorpus.of(corpus, blocklist=blocklist)
    training = _settings(ENCODER_DEFAULTS, settings)
    training.check()
    corpus.scan()
    set_seed(training.seed)
    with quiet_transformers():      # fastamfm's progress lines, not transformers' load/save bars
        task = ContrastiveTask(encoder.directory, pooling=encoder.pooling, layer=encoder.layer,
                               normalize=encoder.normalize, temperature=temperature, mlm=mlm, seed=training.seed)
        run = train(task, corpus, training, directory=_work_dir(Path(out), work), resume=resume)
        with atomic_directory(out) as staging:
            task.save(staging)
    return run


def lm_directory(lm) -> Path:
    """The Hugging Face directory of a ``NeuralLM`` (a GGUF file's converted one)."""
    from ..neural.gguf_conversion import converted_directory

    source = Path(lm.source)
    return converted_directory(source) if source.is_file() else source


def fine_tune_lm(lm, corpus, out, *, work=None, resume: bool = False, lora_rank: int | None = LORA_RANK,
                 max_context_tokens: int = TRAINING_CONTEXT_TOKENS, blocklist=None, **settings):
    """Train ``lm``'s model (a ``NeuralLM``) with ``CausalLMTask`` on ``corpus``, in the
    chat format ``lm`` scores with; full fine-tuning (``lora_rank=None``) or LoRA adapters of
    that rank, merged into the saved weights. Saves a plain model directory to ``out``;
    returns the ``TrainingRun``."""
    from ..io.atomic import atomic_directory
    from ..neural.hf_tokenizer import HFTokenizer
    from ..runtime import import_torch, import_transformers, quiet_transformers
    from .causal_lm_task import CausalLMTask, plain_model, with_lora
    from .trainer import set_seed, train

    corpus = DialogueCorpus.of(corpus, blocklist=blocklist)
    defaults = LM_DEFAULTS if lora_rank is None else {**LM_DEFAULTS, "learning_rate": LORA_LEARNING_RATE}
    training = _settings(defaults, settings)
    training.check()
    corpus.scan()
    torch, transformers = import_torch(), import_transformers()
    directory = lm_directory(lm)
    set_seed(training.seed)
    with quiet_transformers():      # fastamfm's progress lines, not transformers' load/save bars
        model = transformers.AutoModelForCausalLM.from_pretrained(str(directory), dtype=torch.float32,
                                                                  local_files_only=True)
        if lora_rank is not None:
            model = with_lora(model, lora_rank, seed=training.seed)
        tokenizer = HFTokenizer.load(directory)
        task = CausalLMTask(model, tokenizer, lm.settings, max_context_tokens=max_context_tokens)
        run = train(task, corpus, training, directory=_work_dir(Path(out), work), resume=resume)
        with atomic_directory(out) as staging:
            plain_model(task.model).save_pretrained(str(staging))
            tokenizer.hf.save_pretrained(str(staging))
    log.info("LM saved to %s", os.fspath(out))
    return run


class EncoderRecipe(Recipe):
    """Kind ``sentence_encoder``: ``fine_tune_encoder`` (``SentenceEncoder.fine_tune``)."""

    kind = "sentence_encoder"

    @classmethod
    def train(cls, corpus, out, *, encoder, **options):
        return fine_tune_encoder(encoder, corpus, out, **options)


class CausalLMRecipe(Recipe):
    """Kind ``causal_lm``: ``fine_tune_lm`` (``NeuralLM.fine_tune``)."""

    kind = "causal_lm"

    @classmethod
    def train(cls, corpus, out, *, lm, **options):
        return fine_tune_lm(lm, corpus, out, **options)
