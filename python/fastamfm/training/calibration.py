"""Calibration after training, shared by every recipe whose scorer combines components on
one fixed scale (DeepAMFM's four components, the evaluator's sub-scores): the scales are
measured on real replies of the corpus's held-out dialogues -- text the model never trained
on, and no human rating -- and stored in the model directory, so that a response is later
scored alone, never relative to what it is batched with.

- ``calibration_replies``: (contexts, replies) from the held-out dialogues, one reply per
  dialogue drawn at random (seeded) or every reply in order, topped up from the training
  dialogues when the held-out slice is too small (counted in the source);
- ``standardizers``: a ``Standardizer`` (mean, standard deviation) per component column.
"""
from __future__ import annotations

import random

import numpy as np

from ..deep.calibration import Standardizer


def calibration_replies(corpus, *, limit: int, seed: int | None = None, context_turns: int | None = None,
                        top_up: int = 0) -> tuple:
    """(contexts, replies, source) from ``corpus``'s held-out dialogues, up to ``limit`` replies.

    ``seed``: one reply per dialogue, drawn at random (after the first turn) with this seed;
    None: every non-blank reply in order. ``context_turns``: keep that many turns before each
    reply (None: all). ``top_up``: when the held-out slice gives fewer replies, take up to
    this many from the training dialogues. ``source``: how many came from each."""
    rng = random.Random(seed) if seed is not None else None
    contexts: list[list[str]] = []
    replies: list[str] = []

    def take(dialogues, until: int) -> int:
        before = len(replies)
        for dialogue in dialogues:
            turns = list(dialogue.turns)
            if len(turns) < 2:
                continue
            positions = [rng.randrange(1, len(turns))] if rng is not None else range(1, len(turns))
            for t in positions:
                if len(replies) >= until:
                    return len(replies) - before
                if rng is None and not turns[t].strip():
                    continue
                first = 0 if context_turns is None else max(0, t - context_turns)
                contexts.append(turns[first:t])
                replies.append(turns[t])
        return len(replies) - before

    held = take(corpus.held_out(), limit)
    trained = take(corpus.training(), min(limit, top_up)) if held < top_up else 0
    return contexts, replies, {"held_out_replies": held, "training_replies": trained}


def standardizers(columns: dict) -> dict:
    """{component: Standardizer(mean, standard deviation)} of per-reply component values; a
    constant component gets scale 1 (it then adds nothing, rather than dividing by zero)."""
    out = {}
    for name, values in columns.items():
        values = np.asarray(values, dtype=np.float64)
        scale = float(np.std(values))
        out[name] = Standardizer(float(np.mean(values)), scale if scale > 1e-12 else 1.0)
    return out
