"""The ``learned`` metric of the registry: a saved ``LearnedScorer`` run by the pipeline.

``LearnedMetric(path=..., encoder=None, model=None)`` loads the scorer file once (the
instance is then immutable); whether it needs references and/or contexts is read from
the file. Its one column, ``Learned``, is the fitted score; the corpus score is the mean.
Through ``evaluate``/``score_files`` give the file as the metric's own option:
``evaluate(hyps, refs, ["learned"], learned={"path": "scorer.fastamfm"})`` (the CLI:
``fastamfm score --metrics learned --learned scorer.fastamfm``).
"""
from __future__ import annotations

import os

import numpy as np

from ..registry import Batch, Chunk, MeanStatistics, Metric, register


@register
class LearnedMetric(Metric):
    name = "learned"
    columns = ("Learned",)
    aliases = ("adem",)

    def __init__(self, *, path=None, encoder=None, model=None, evaluator=None):
        from .scorer import LearnedScorer

        reason = self.missing(path=path)
        if reason is not None:
            raise ValueError(f"learned: {reason}")
        self._path = os.fspath(path)
        self._scorer = LearnedScorer.load(self._path, encoder=encoder, model=model, evaluator=evaluator)
        given = self._scorer.settings.get("given_columns")
        if given:
            raise ValueError(f"learned: {self._path} combines columns you supplied at fit time ({', '.join(given)}); "
                             "the pipeline cannot compute them: score with LearnedScorer.score(..., columns=...)")
        # What this instance needs depends on how its scorer was fitted.
        self.needs_references = self._scorer.uses_references
        self.needs_contexts = self._scorer.uses_contexts

    @property
    def scorer(self):
        return self._scorer

    @classmethod
    def missing(cls, **options) -> str | None:
        path = options.get("path")
        if path is None:
            return ("the learned metric needs a fitted scorer: fit one with `fastamfm fit --ratings FILE --out "
                    "scorer.fastamfm` (or LearnedScorer.fit(...).save(path)) and pass learned={'path': ...}")
        if not os.path.isfile(path):
            return f"{os.fspath(path)}: no such learned-scorer file"
        return None

    def signature(self) -> str:
        return self._scorer.signature

    def update(self, batch: Batch) -> Chunk:
        refs = None if batch.refs is None else [list(r) for r in batch.refs]
        scored = self._scorer.score(batch.hyps.texts, refs, batch.contexts)
        values = np.asarray(scored.sentences["Learned"], dtype=np.float64)
        columns = {"Learned": values}
        return Chunk(columns=columns, statistics=MeanStatistics.of(columns))
