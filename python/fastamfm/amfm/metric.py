"""The registered ``amfm`` metric: an ``AMFM`` scorer's AM and FM combined into AM-FM
(the scorer itself, its models and settings, are in ``scorer.py``)."""
from __future__ import annotations

from .._validation import check_workers
from ..registry import Chunk, MeanStatistics, Metric, register
from .adequacy import Adequacy
from .fluency import Fluency
from .model_option import FromAMFMModel
from .scorer import AMFM, combine_scores


@register
class AMFMScore(FromAMFMModel, Metric):
    """AM-FM: λ·AM + (1−λ)·FM (or the geometric/harmonic mean) of a scorer's AM and FM,
    which it shares with the ``am`` and ``fm`` metrics of the same call."""

    name = "amfm"
    columns = ("AM-FM",)
    aliases = ("am-fm", "am_fm")

    def __init__(self, scorer: "AMFM", *, workers: int = -1):
        if not isinstance(scorer, AMFM):
            raise TypeError(f"amfm: scorer must be a fastamfm.AMFM, got {type(scorer).__name__}")
        self.scorer = scorer
        self.workers = check_workers(workers, "amfm")
        self._am = Adequacy.of_scorer(scorer, workers=workers)
        self._fm = Fluency.of_scorer(scorer, workers=workers)

    @classmethod
    def of_scorer(cls, scorer: "AMFM", *, workers: int = -1) -> "AMFMScore":
        return cls(scorer, workers=workers)

    def signature(self) -> str:
        return self.scorer.signature

    def update(self, batch) -> Chunk:
        s = self.scorer.settings
        columns = {"AM-FM": combine_scores(self._am.sentence_scores(batch), self._fm.sentence_scores(batch),
                                           s.lam, s.mean)}
        return Chunk(columns, MeanStatistics.of(columns))
