"""``DeepAMFM.train``: adapt both Deep AM-FM models to a dialogue corpus, as the seed does
(its BERT continued on in-domain dialogues, its LM trained on them), then re-measure
the calibration on a held-out slice of the same corpus (never on rated data).

Stages, each resumable, in a work folder beside the output (``DIR.work``):

1. ``encoder``: ``SentenceEncoder.fine_tune`` (contrastive next-utterance, + MLM where
   the model has an MLM head);
2. ``lm``: ``NeuralLM.fine_tune`` (causal LM on replies given their context, chat format;
   LoRA by default: see ``LORA_RANK``);
3. calibration: the four components' center and scale on held-out dialogues
   (``measure_calibration``);
4. the output directory (``trained_model``), written whole and renamed into place,
   with provenance and checksums; the work folder is then removed.

A time budget ``max_minutes`` is split: ``ENCODER_SHARE`` of it to the encoder, the LM
gets what is left but ``RESERVE`` (calibration and saving); ``max_steps`` bounds each
training stage. A stage finished in an earlier session is not redone on ``resume``.
"""
from __future__ import annotations

import json
import logging
import random
import shutil
import time
from pathlib import Path

import numpy as np

log = logging.getLogger("fastamfm")

ENCODER_SHARE = 0.3
RESERVE = 0.15
CALIBRATION_SAMPLES = 150
MIN_HELD_OUT = 40
_DONE = "stage.json"


def held_out_replies(corpus, samples: int, seed: int = 0) -> tuple:
    """(contexts, replies): one random reply (after the first turn) of each held-out
    dialogue of ``corpus``, up to ``samples``; seeded."""
    rng = random.Random(seed)
    contexts, replies = [], []
    for dialogue in corpus.held_out():
        turns = list(dialogue.turns)
        i = rng.randrange(1, len(turns))
        contexts.append(turns[:i])
        replies.append(turns[i])
        if len(replies) >= samples:
            break
    return contexts, replies


def measure_calibration(scorer, corpus, *, samples: int = CALIBRATION_SAMPLES, seed: int = 0):
    """The ``Calibration`` of ``scorer`` on the held-out dialogues of ``corpus``:
    context components over (turns before, reply) of one random reply per dialogue;
    reference components over replies to OTHER held-out contexts scored against the true
    reply (a plausible in-domain response that does not answer, as most system responses
    are measured against their references)."""
    from .calibration import Calibration, Standardizer

    contexts, replies = held_out_replies(corpus, samples, seed)
    if len(replies) < 20:
        raise ValueError(f"only {len(replies)} held-out dialogues to calibrate on (at least 20 needed): give a "
                         f"larger corpus or a larger held_out fraction")
    found = scorer.components(replies, contexts=contexts)
    others = replies[1:] + replies[:1]
    found.update(scorer.components(others, [[r] for r in replies]))
    values = {name: Standardizer(float(np.mean(v)), float(np.std(v)) or 1.0) for name, v in found.items()}
    counts = corpus.scan()
    return Calibration(**values, source=f"held-out:{counts.content_sha256[:12]}:n={len(replies)}:seed={seed}")


class _Stage:
    """A stage's finished output in the work folder: its directory and its run record."""

    def __init__(self, work: Path, name: str):
        self.directory = work / f"{name}-model"
        self.record = self.directory / _DONE

    def done(self) -> dict | None:
        return json.loads(self.record.read_text()) if self.record.is_file() else None

    def finish(self, run) -> dict:
        from ..io import write_text_atomic

        data = run.as_dict()
        write_text_atomic(self.record, json.dumps(data))
        return data


def train_deep_amfm(scorer_class, corpus, out, *, encoder=None, lm=None, max_minutes: float | None = None,
                    max_steps: int | None = None, resume: bool = False, blocklist=None, seed: int = 0,
                    device: str = "auto", precision: str = "float32", threads: int | None = None,
                    lora_rank: int | None = None, encoder_options: dict | None = None,
                    lm_options: dict | None = None, held_out: float = 0.02, max_held_out: int = 400,
                    calibration_samples: int = CALIBRATION_SAMPLES, progress: bool = True, scorer_options=None):
    """Train both models on ``corpus`` and write the model directory ``out``; returns the
    loaded ``scorer_class`` (``DeepAMFM``, which passes itself: this module never imports
    the scorer it trains). See ``DeepAMFM.train``."""
    from ..io import atomic_directory
    from ..training import provenance, write_checksums, write_provenance
    from .encoder import SentenceEncoder
    from .fine_tuning import LORA_RANK, as_corpus, lm_directory
    from .lm_training import TRAINING_CONTEXT_TOKENS
    from .model_location import ENCODER_PACKAGE
    from .neural_lm import DEFAULT_MODEL, NeuralLM
    from .trained_model import manifest

    started = time.monotonic()
    if max_minutes is None and max_steps is None:
        raise ValueError("DeepAMFM.train: give a budget: max_minutes and/or max_steps")
    out = Path(out)
    work = Path(str(out) + ".work")
    if not resume and work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    given = corpus
    corpus = as_corpus(corpus, blocklist=blocklist, held_out=held_out, max_held_out=max_held_out)
    counts = corpus.scan()
    if corpus is not given and counts.held_out < MIN_HELD_OUT and counts.dialogues_read > 2 * MIN_HELD_OUT:
        # A small corpus: hold out enough dialogues to calibrate on (at most a fifth).
        fraction = min(0.2, 1.5 * MIN_HELD_OUT / counts.dialogues_read)
        corpus = as_corpus(given, blocklist=corpus.blocklist, held_out=fraction, max_held_out=max_held_out)
        counts = corpus.scan()
    log.info("corpus: %s", counts.describe())
    base_encoder = encoder if isinstance(encoder, SentenceEncoder) else \
        SentenceEncoder.load(encoder or ENCODER_PACKAGE, device="cpu")
    base_lm = lm if isinstance(lm, NeuralLM) else NeuralLM.load(lm or DEFAULT_MODEL, device="cpu")
    lora_rank = LORA_RANK if lora_rank is None else (None if lora_rank == 0 else lora_rank)
    common = {"seed": seed, "device": device, "precision": precision, "threads": threads, "progress": progress,
              "max_steps": max_steps}

    def budget(minutes):
        return {} if minutes is None else {"max_minutes": max(minutes, 0.05)}

    runs, settings = {}, {}
    stage = _Stage(work, "encoder")
    runs["encoder"] = stage.done()
    enc_options = {**common, **budget(None if max_minutes is None else ENCODER_SHARE * max_minutes),
                   **(encoder_options or {})}
    settings["encoder"] = enc_options
    if runs["encoder"] is None:
        run = base_encoder.fine_tune(corpus, stage.directory, work=work / "checkpoints", resume=resume,
                                     **enc_options)
        runs["encoder"] = stage.finish(run)
    stage_lm = _Stage(work, "lm")
    runs["lm"] = stage_lm.done()
    left = None if max_minutes is None else max_minutes * (1 - RESERVE) - (time.monotonic() - started) / 60
    lm_minutes = None if max_minutes is None else max(left, (1 - RESERVE - ENCODER_SHARE) * max_minutes / 4)
    lm_settings = {**common, **budget(lm_minutes), "max_context_tokens": TRAINING_CONTEXT_TOKENS,
                   **(lm_options or {})}
    settings["lm"] = {**lm_settings, "lora_rank": lora_rank}
    if runs["lm"] is None:
        run = base_lm.fine_tune(corpus, stage_lm.directory, work=work / "checkpoints", resume=resume,
                                lora_rank=lora_rank, **lm_settings)
        runs["lm"] = stage_lm.finish(run)

    log.info("calibrating on %d held-out dialogues", min(counts.held_out, calibration_samples))
    trained_encoder = SentenceEncoder.load(stage.directory, pooling=base_encoder.pooling, layer=base_encoder.layer,
                                           normalize=base_encoder.normalize, max_length=base_encoder.max_length,
                                           device=device)
    lm_format = base_lm.settings
    trained_lm = NeuralLM.load(stage_lm.directory, device=device, style=lm_format.style,
                               context_turns=lm_format.context_turns, max_context_tokens=lm_format.max_context_tokens,
                               end_token=lm_format.end_token, system_prompt=lm_format.system_prompt)
    scorer = scorer_class(encoder=trained_encoder, lm=trained_lm, device=device, **(scorer_options or {}))
    calibration_start = time.monotonic()
    calibration = measure_calibration(scorer, corpus, samples=calibration_samples, seed=seed)
    calibration_seconds = time.monotonic() - calibration_start
    base_models = {"encoder": {"path": str(base_encoder.directory), "fingerprint": base_encoder.fingerprint},
                   "lm": {"path": str(base_lm.source), "fingerprint": base_lm.fingerprint,
                          "directory": str(lm_directory(base_lm))}}
    with atomic_directory(out) as staging:
        for name, source in (("encoder", stage.directory), ("lm", stage_lm.directory)):
            shutil.copytree(source, staging / name, ignore=shutil.ignore_patterns(_DONE))
        (staging / "deep_amfm.json").write_text(
            json.dumps(manifest(scorer, trained_encoder, trained_lm.settings, calibration), indent=1) + "\n")
        write_provenance(staging, provenance(
            base_models=base_models, corpus=corpus, stages=runs, settings=settings,
            extra={"calibration": {"source": calibration.source, "seconds": calibration_seconds,
                                   "samples": calibration_samples},
                   "total_seconds": time.monotonic() - started}))
        write_checksums(staging)
    shutil.rmtree(work, ignore_errors=True)
    log.info("DeepAMFM trained in %.1f min: %s", (time.monotonic() - started) / 60, out)
    return scorer_class.load(out, device=device)
