"""The registry's ``evaluator`` metric: a trained ``Evaluator`` run by the pipeline.

    fastamfm.evaluate(hyps, refs=None, contexts=ctx, metrics=["evaluator"], evaluator={"model": DIR})
    fastamfm score --evaluator DIR --hyp H.txt --context C.txt

``model``: an evaluator directory (loaded once per process and setting, so the metrics of
many calls, and the tasks of a Dask worker, share one) or a loaded ``Evaluator``. Columns:
``evaluator`` (with references when the batch has them: ``Evaluator.score``) and its
sub-scores ``evaluator_relevance``, ``evaluator_validity``, ``evaluator_coherence``; corpus
scores are the means
(exact, summable).
"""
from __future__ import annotations

import os

from ..models.loaded_once import LoadedOnce
from ..registry import Batch, Chunk, MeanStatistics, Metric, register

_EVALUATORS: LoadedOnce = LoadedOnce()


def load_evaluator(model, *, device: str = "auto", workers: int = -1):
    """``model`` if it is an ``Evaluator``, else the one in directory ``model``, loaded once
    per process for each directory and setting."""
    from .evaluator import Evaluator

    if isinstance(model, Evaluator):
        return model
    if not isinstance(model, (str, os.PathLike)):
        raise TypeError(f"evaluator: model must be an evaluator directory or an Evaluator, got {type(model).__name__}")
    key = (os.path.abspath(os.fspath(model)), device, workers)
    return _EVALUATORS.get(key, lambda: Evaluator.load(model, device=device, workers=workers))


@register
class EvaluatorMetric(Metric):
    name = "evaluator"
    columns = ("evaluator", "evaluator_relevance", "evaluator_validity", "evaluator_coherence")
    aliases = ("dialogue_evaluator",)
    needs_references = False
    needs_contexts = True
    model_kind = "evaluator"

    @classmethod
    def load_model(cls, path, **settings):
        return load_evaluator(path, **settings)

    def __init__(self, *, model=None, device: str = "auto", workers: int = -1):
        reason = self.missing(model=model)
        if reason is not None:
            raise ValueError(f"evaluator: {reason}")
        self._evaluator = load_evaluator(model, device=device, workers=workers)

    @classmethod
    def missing(cls, **options) -> str | None:
        from .model_directory import is_evaluator_directory

        model = options.get("model")
        if model is None or (isinstance(model, str) and model == "default"):
            return ("the evaluator metric needs a trained evaluator: train one with `fastamfm train --evaluator "
                    "--corpus F --out DIR` and pass evaluator={'model': DIR} (CLI: --evaluator DIR)")
        if isinstance(model, (str, os.PathLike)):
            from ..runtime import missing_reason

            reason = missing_reason()
            if reason is not None:
                return reason
            if not is_evaluator_directory(model):
                return f"{os.fspath(model)}: not an evaluator directory (no evaluator.json)"
        return None

    @property
    def evaluator(self):
        return self._evaluator

    def signature(self) -> str:
        return self._evaluator.signature(references=None)

    def update(self, batch: Batch) -> Chunk:
        if batch.contexts is None:
            raise ValueError("evaluator: scoring needs the dialogue contexts (contexts=, CLI --context)")
        refs = None if batch.refs is None else [list(r) for r in batch.refs]
        found = self._evaluator.components(batch.hyps.texts, refs=refs, contexts=batch.contexts)
        columns = {"evaluator": found["evaluator"], "evaluator_relevance": found["relevance"],
                   "evaluator_validity": found["validity"], "evaluator_coherence": found["coherence"]}
        return Chunk(columns=columns, statistics=MeanStatistics.of(columns))
