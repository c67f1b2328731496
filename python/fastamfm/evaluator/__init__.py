"""The dialogue evaluator: a trained scorer of responses given their dialogue context, and
(optionally) fitted to ratings through ``fastamfm.LearnedScorer``.

    ev = fastamfm.train_evaluator(["dialogues.jsonl.bz2"], out="evaluator-dir", max_minutes=60)
    ev = fastamfm.Evaluator.load("evaluator-dir")
    ev.score(hyps, contexts=ctx[, refs=refs]).sentences["evaluator"]
    fastamfm.evaluate(hyps, refs, contexts=ctx, metrics=["evaluator"], evaluator={"model": "evaluator-dir"})

    fastamfm train --evaluator --corpus F [--corpus F ...] --out DIR --max-minutes 60 [--resume]
    fastamfm score --evaluator DIR --hyp H.txt --context C.txt [--ref R.txt]

What it is: a small head (``head.py``) over the vectors of a frozen packaged sentence
encoder with two sub-scores, relevance and validity; a third, coherence, is the frozen
encoder's own cosine of the response with its context. ``combination.py`` joins the three
on one scale measured on held-out replies of the training corpus. Files here: the
model and its scoring -- ``model_directory`` (the checksummed directory of kind
``evaluator``), ``evaluator`` (loading and scoring), ``head``, ``combination``,
``turn_vectors`` (encoding once per text), ``speaker_tags``, ``metric`` (the registry's
``evaluator``). How it is trained (the recipe, its negatives, its task, the calibration)
lives with every other trainer in ``fastamfm.training`` (``training/evaluator.py``).
"""
from __future__ import annotations

import importlib

from .._deprecated import warn_moved
from .combination import Combination

# Names that moved to fastamfm.training with the recipe (still answered here, with a warning).
_MOVED = {"train_evaluator": "fastamfm.training.evaluator", "DEFAULT_NEGATIVES": "fastamfm.training.negatives",
          "NEGATIVE_KINDS": "fastamfm.training.negatives", "SUB_SCORES": "fastamfm.evaluator.head"}


def __getattr__(name: str):
    # torch is imported only when an evaluator is loaded.
    if name == "Evaluator":
        from .evaluator import Evaluator

        return Evaluator
    if name in _MOVED:
        warn_moved(f"fastamfm.evaluator.{name}", f"{_MOVED[name]}.{name}")
        return getattr(importlib.import_module(_MOVED[name]), name)
    raise AttributeError(f"module 'fastamfm.evaluator' has no attribute {name!r}")


__all__ = ["Combination", "Evaluator"]
