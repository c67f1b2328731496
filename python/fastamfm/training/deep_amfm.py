"""Training Deep AM-FM on dialogues (``DeepAMFMRecipe``; ``DeepAMFM.train`` and
``fastamfm train --deep``): adapt both models to a dialogue corpus, as the seed does (its
BERT continued on in-domain dialogues, its LM trained on them), then re-measure the
calibration on a held-out slice of the same corpus (never on rated data).

Stages, each resumable, in the run's work folder (``DIR.work``, ``recipe.RecipeRun``):

1. ``encoder``: the sentence encoder fine-tuned (``fine_tuning.EncoderRecipe``:
   contrastive next-utterance, + MLM where the model has an MLM head);
2. ``lm``: the causal LM fine-tuned (``fine_tuning.CausalLMRecipe``: replies given their
   context, in the chat format scoring uses; LoRA by default: see ``LORA_RANK``);
3. calibration: the five components' center and scale on held-out dialogues (Deep AM and
   Deep FM with references and without, and the follow-up likelihood; ``measure_calibration``,
   with the shared ``calibration`` helpers);
4. the model directory of kind ``deep_amfm`` (``deep.trained_model``), written whole with
   provenance and checksums; the work folder is then removed.

A time budget ``max_minutes`` is split: ``ENCODER_SHARE`` of it to the encoder, the LM
gets what is left but ``RESERVE`` (calibration and saving); ``max_steps`` bounds each
training stage. A stage finished in an earlier session is not redone on ``resume``.
"""
from __future__ import annotations

import json
import logging
import shutil
import time
from pathlib import Path

from ..deep.calibration import Calibration
from ..deep.deep_amfm import DeepAMFM
from ..deep.trained_model import write_trained_manifest
from ..io.atomic import write_text_atomic
from .calibration import calibration_replies, standardizers
from .provenance import provenance
from .recipe import STAGE_RECORD, Recipe, RecipeRun

log = logging.getLogger(__name__)

ENCODER_SHARE = 0.3
RESERVE = 0.15
CALIBRATION_SAMPLES = 150
MIN_HELD_OUT = 40
_DONE = STAGE_RECORD


def held_out_replies(corpus, samples: int, seed: int = 0) -> tuple:
    """(contexts, replies): one random reply (after the first turn) of each held-out
    dialogue of ``corpus``, up to ``samples``; seeded."""
    contexts, replies, _ = calibration_replies(corpus, limit=samples, seed=seed)
    return contexts, replies


def measure_calibration(scorer, corpus, *, samples: int = CALIBRATION_SAMPLES, seed: int = 0) -> Calibration:
    """The ``Calibration`` of ``scorer`` (a ``DeepAMFM``) on the held-out dialogues of
    ``corpus``: context components (with the followup, for a neural LM) over (turns before,
    reply) of one random reply per dialogue; reference components over replies to OTHER
    held-out contexts scored against the true reply (a plausible in-domain response that does
    not answer, as most system responses are measured against their references)."""
    contexts, replies = held_out_replies(corpus, samples, seed)
    if len(replies) < 20:
        raise ValueError(f"only {len(replies)} held-out dialogues to calibrate on (at least 20 needed): give a "
                         f"larger corpus or a larger held_out fraction")
    found = scorer.components(replies, contexts=contexts)
    others = replies[1:] + replies[:1]
    found.update(scorer.components(others, [[r] for r in replies]))
    counts = corpus.scan()
    return Calibration(**standardizers(found),
                       source=f"held-out:{counts.content_sha256[:12]}:n={len(replies)}:seed={seed}")


class _Stage:
    """A stage's finished output in the work folder: its directory and its run record."""

    def __init__(self, work: Path, name: str):
        self.directory = work / f"{name}-model"
        self.record = self.directory / _DONE

    def done(self) -> dict | None:
        return json.loads(self.record.read_text()) if self.record.is_file() else None

    def finish(self, run) -> dict:
        data = run.as_dict()
        write_text_atomic(self.record, json.dumps(data))
        return data


class DeepAMFMRecipe(Recipe):
    """The ``deep_amfm`` recipe (see the module docstring); ``DeepAMFM.train`` calls it."""

    kind = "deep_amfm"
    default_minutes = 40.0      # the defaults are set for two CPU cores and 40 minutes

    @classmethod
    def train(cls, corpus, out, *, encoder=None, lm=None, max_minutes: float | None = None,
              max_steps: int | None = None, resume: bool = False, blocklist=None, seed: int = 0,
              device: str = "auto", precision: str = "float32", threads: int | None = None,
              lora_rank: int | None = None, encoder_options: dict | None = None, lm_options: dict | None = None,
              held_out: float = 0.02, max_held_out: int = 400, calibration_samples: int = CALIBRATION_SAMPLES,
              progress: bool = True, scorer_options=None) -> DeepAMFM:
        """Train both models on ``corpus`` and write the model directory ``out``; returns its
        scorer (``DeepAMFM.load(out)``). See ``DeepAMFM.train``."""
        from ..models.location import ENCODER_PACKAGE
        from ..neural.encoder import SentenceEncoder
        from ..neural.neural_lm import DEFAULT_MODEL, NeuralLM
        from .causal_lm_task import TRAINING_CONTEXT_TOKENS
        from .fine_tuning import (
            LORA_RANK,
            fine_tune_encoder,
            fine_tune_lm,
            lm_directory,
        )

        with RecipeRun("DeepAMFM.train", out, max_minutes=max_minutes, max_steps=max_steps, resume=resume) as run:
            corpus = run.corpus(corpus, blocklist=blocklist, held_out=held_out, max_held_out=max_held_out,
                                min_held_out=MIN_HELD_OUT)
            counts = corpus.scan()
            log.info("corpus: %s", counts.describe())
            base_encoder = encoder if isinstance(encoder, SentenceEncoder) else \
                SentenceEncoder.load(encoder or ENCODER_PACKAGE, device="cpu")
            base_lm = lm if isinstance(lm, NeuralLM) else NeuralLM.load(lm or DEFAULT_MODEL, device="cpu")
            lora_rank = LORA_RANK if lora_rank is None else (None if lora_rank == 0 else lora_rank)
            common = {"seed": seed, "device": device, "precision": precision, "threads": threads,
                      "progress": progress, "max_steps": max_steps}

            def budget(minutes):
                return {} if minutes is None else {"max_minutes": max(minutes, 0.05)}

            runs, settings = {}, {}
            stage = _Stage(run.work, "encoder")
            runs["encoder"] = stage.done()
            enc_options = {**common, **budget(None if max_minutes is None else ENCODER_SHARE * max_minutes),
                           **(encoder_options or {})}
            settings["encoder"] = enc_options
            if runs["encoder"] is None:
                runs["encoder"] = stage.finish(fine_tune_encoder(
                    base_encoder, corpus, stage.directory, work=run.work / "checkpoints", resume=resume,
                    **enc_options))
            stage_lm = _Stage(run.work, "lm")
            runs["lm"] = stage_lm.done()
            left = run.minutes_left(reserve=RESERVE * max_minutes) if max_minutes is not None else None
            lm_minutes = None if left is None or max_minutes is None else max(left, (1 - RESERVE - ENCODER_SHARE) * max_minutes / 4)
            lm_settings = {**common, **budget(lm_minutes), "max_context_tokens": TRAINING_CONTEXT_TOKENS,
                           **(lm_options or {})}
            settings["lm"] = {**lm_settings, "lora_rank": lora_rank}
            if runs["lm"] is None:
                runs["lm"] = stage_lm.finish(fine_tune_lm(
                    base_lm, corpus, stage_lm.directory, work=run.work / "checkpoints", resume=resume,
                    lora_rank=lora_rank, **lm_settings))

            log.info("calibrating on %d held-out dialogues", min(counts.held_out, calibration_samples))
            trained_encoder = SentenceEncoder.load(stage.directory, pooling=base_encoder.pooling,
                                                   layer=base_encoder.layer, normalize=base_encoder.normalize,
                                                   max_length=base_encoder.max_length, device=device)
            lm_format = base_lm.settings
            trained_lm = NeuralLM.load(stage_lm.directory, device=device, style=lm_format.style,
                                       context_turns=lm_format.context_turns,
                                       max_context_tokens=lm_format.max_context_tokens,
                                       end_token=lm_format.end_token, system_prompt=lm_format.system_prompt)
            scorer = DeepAMFM(encoder=trained_encoder, lm=trained_lm, device=device, **(scorer_options or {}))
            calibration_start = time.monotonic()
            calibration = measure_calibration(scorer, corpus, samples=calibration_samples, seed=seed)
            calibration_seconds = time.monotonic() - calibration_start
            base_models = {"encoder": {"path": str(base_encoder.directory), "fingerprint": base_encoder.fingerprint},
                           "lm": {"path": str(base_lm.source), "fingerprint": base_lm.fingerprint,
                                  "directory": str(lm_directory(base_lm))}}

            def fill(staging: Path) -> None:
                for name, source in (("encoder", stage.directory), ("lm", stage_lm.directory)):
                    shutil.copytree(source, staging / name, ignore=shutil.ignore_patterns(_DONE))
                write_trained_manifest(staging, scorer, trained_encoder, trained_lm.settings, calibration)

            run.write(fill, provenance(
                base_models=base_models, corpus=corpus, stages=runs, settings=settings,
                extra={"calibration": {"source": calibration.source, "seconds": calibration_seconds,
                                       "samples": calibration_samples}}))
        return DeepAMFM.load(out, device=device)
