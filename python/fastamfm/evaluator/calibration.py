"""The fixed maps that put the evaluator's sub-scores on one scale (the ``"zscore"``
combination, ``combination.py``), measured right after training on real replies of the
corpus's held-out dialogues — text the head never trained on, and no rating.

Each reply after a dialogue's first turn is scored with the turns before it (the last
``context_turns``), up to ``CALIBRATION_REPLIES`` replies; a corpus whose held-out slice
gives fewer than ``MIN_HELD_OUT_REPLIES`` is topped up with replies of its training
dialogues (counted in the source, so the provenance says so). Center and scale of each
sub-score are the mean and standard deviation of those replies' values on the scale the
combination reads (``combination.standardisable``).
"""
from __future__ import annotations

import numpy as np

from ..deep.calibration import Standardizer
from .combination import Combination, standardisable

CALIBRATION_REPLIES = 2000
MIN_HELD_OUT_REPLIES = 200


def calibration_replies(corpus, *, context_turns: int, limit: int = CALIBRATION_REPLIES) -> tuple:
    """(contexts, replies, source) from ``corpus``'s held-out dialogues, topped up from its
    training dialogues when the held-out slice is small; ``source``: the counts of each."""
    contexts, replies = [], []

    def take(dialogues, until: int) -> int:
        before = len(replies)
        for dialogue in dialogues:
            turns = list(dialogue.turns)
            for t in range(1, len(turns)):
                if len(replies) >= until:
                    return len(replies) - before
                if not turns[t].strip():
                    continue
                contexts.append(turns[max(0, t - context_turns):t])
                replies.append(turns[t])
        return len(replies) - before

    held = take(corpus.held_out(), limit)
    trained = take(corpus.training(), min(limit, MIN_HELD_OUT_REPLIES)) if held < MIN_HELD_OUT_REPLIES else 0
    if len(replies) < 2:
        raise ValueError(f"only {len(replies)} replies to calibrate the evaluator's sub-scores on: give a larger "
                         f"corpus")
    return contexts, replies, {"held_out_replies": held, "training_replies": trained}


def measure_scales(columns: dict) -> dict:
    """{sub-score: Standardizer} of ``Evaluator.components`` columns of real replies."""
    scales = {}
    for name, values in standardisable(columns).items():
        scale = float(np.std(values))
        scales[name] = Standardizer(float(np.mean(values)), scale if scale > 1e-12 else 1.0)
    return scales


def zscore_combination(evaluator, corpus, *, reference_weight: float) -> tuple:
    """(the ``"zscore"`` ``Combination`` of ``evaluator``'s sub-scores, its source counts),
    measured on replies of ``corpus`` (``evaluator``'s own combination is not used)."""
    contexts, replies, source = calibration_replies(corpus, context_turns=evaluator.context_turns)
    scales = measure_scales(evaluator.components(replies, contexts))
    return Combination("zscore", reference_weight, scales), source
