"""The dialogue evaluator: trained on conversations, self-supervised, then (optionally)
fitted to ratings through ``fastamfm.LearnedScorer``.

    ev = fastamfm.train_evaluator(["dialogues.jsonl.bz2"], out="evaluator-dir", max_minutes=60)
    ev = fastamfm.Evaluator.load("evaluator-dir")
    ev.score(hyps, contexts=ctx[, refs=refs]).sentences["evaluator"]
    fastamfm.evaluate(hyps, refs, contexts=ctx, metrics=["evaluator"], evaluator={"model": "evaluator-dir"})

    fastamfm train --evaluator --corpus F [--corpus F ...] --out DIR --max-minutes 60 [--resume]
    fastamfm score --evaluator DIR --hyp H.txt --context C.txt [--ref R.txt]

What it is: a small head (``head.py``) over the vectors of a frozen packaged sentence
encoder, trained to tell each real next turn from negatives (``negatives.py``: random
turns, turns of the same dialogue out of place, retrieval-hard turns, generic replies,
corrupted turns) with two sub-scores, relevance and validity; a third, coherence, is the
frozen encoder's own cosine of the response with its context. ``combination.py`` joins the
three on one scale measured on held-out replies of the training corpus
(``calibration.py``). Files: ``turn_pool`` (where negatives come from), ``corruption``, ``turn_vectors``
(encoding once per text), ``task`` (the ``fastamfm.training`` task), ``training``,
``model_directory`` (the checksummed directory), ``evaluator`` (loading and scoring),
``metric`` (the registry's ``evaluator``), ``command`` (the CLI).
"""
from __future__ import annotations

from .combination import Combination
from .negatives import DEFAULT_NEGATIVES, NEGATIVE_KINDS, SUB_SCORES


def __getattr__(name: str):
    # torch is imported only when an evaluator is trained or loaded.
    if name == "Evaluator":
        from .evaluator import Evaluator

        return Evaluator
    if name == "train_evaluator":
        from .training import train_evaluator

        return train_evaluator
    raise AttributeError(f"module 'fastamfm.evaluator' has no attribute {name!r}")


__all__ = ["Combination", "DEFAULT_NEGATIVES", "Evaluator", "NEGATIVE_KINDS", "SUB_SCORES", "train_evaluator"]
