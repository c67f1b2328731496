"""Registry entries of the LM judges: ``followup`` and ``lm_judge`` (reference-free; both
need the dialogue contexts). The LM loads on first use, once per process: ``lm=``
a ``NeuralLM``, a transformers directory, a GGUF file or an installed package (default the
packaged SmolLM2-135M-Instruct). See ``fastamfm.deep.followup`` and ``fastamfm.deep.lm_judge``.
"""
from __future__ import annotations

import numpy as np

from ..registry import Batch, Chunk, MeanStatistics, Metric, register
from .fm_metrics import DEFAULT_LM, _is_model, _LazyModel, _missing_models
from .lm_judge import ASPECTS


def _load_lm(lm, device: str, engine: str):
    from ..neural.neural_lm import load_lm

    # Once per process: followup and lm_judge (and deep_fm) of one call read one LM in memory.
    return lm if _is_model(lm) else load_lm(lm, device=device, engine=engine)


def _missing_lm(options: dict) -> str | None:
    lm = options.get("lm", DEFAULT_LM)
    if _is_model(lm):
        return None
    return _missing_models((lm, "file")) if lm == DEFAULT_LM else _missing_models()


def _contexts(batch: Batch, name: str):
    if batch.contexts is None:
        raise ValueError(f"{name}: needs the dialogue contexts (contexts=): it judges a reply to a dialogue")
    return batch.contexts


@register
class Followup(Metric):
    """``followup``: mean ln p of positive minus negative follow-up turns after context +
    reply (``FollowupScorer``). ``per_followup=True`` adds a column per follow-up
    (``followup_positive_1``..., ``followup_negative_1``...: its mean ln p per token)."""

    name = "followup"
    columns: tuple[str, ...] = ("followup",)
    aliases = ("follow_up", "follow-up")
    scores_systems_together = True
    needs_references = False
    needs_contexts = True

    def __init__(self, *, lm=DEFAULT_LM, positive=None, negative=None, per_followup: bool = False,
                 device: str = "auto", engine: str = "transformers", method: str = "auto"):
        from .followup import DEFAULT_NEGATIVE, DEFAULT_POSITIVE, FollowupScorer, check_followups

        positive = DEFAULT_POSITIVE if positive is None else positive
        negative = DEFAULT_NEGATIVE if negative is None else negative
        positive, negative = check_followups(positive, negative)    # before any model loads
        if not isinstance(per_followup, bool):
            raise TypeError(f"followup: per_followup must be True or False, got {type(per_followup).__name__}")
        self.per_followup = per_followup
        if per_followup:
            self.columns = ("followup",) + tuple(f"followup_positive_{i + 1}" for i in range(len(positive))) + \
                tuple(f"followup_negative_{i + 1}" for i in range(len(negative)))
        self._scorer = _LazyModel(lambda: FollowupScorer(_load_lm(lm, device, engine), positive=positive,
                                                         negative=negative, method=method))

    @classmethod
    def missing(cls, **options) -> str | None:
        return _missing_lm(options)

    @property
    def scorer(self):
        return self._scorer.get()

    def signature(self) -> str:
        return self.scorer.signature()

    def update(self, batch: Batch) -> Chunk:
        scorer = self.scorer
        log_probs = scorer.log_probs(batch.hyps.texts, _contexts(batch, self.name))
        columns: dict[str, np.ndarray] = {"followup": scorer.scores_from(log_probs)}
        if self.per_followup:
            for k, column in enumerate(self.columns[1:]):
                columns[column] = log_probs[:, k]
        return Chunk(columns=columns, statistics=MeanStatistics.of(columns))


@register
class LMJudgeMetric(Metric):
    """``lm_judge``: the expected 1..5 rating of a reply per aspect by a local causal LM
    (``LMJudge``): ``lm_judge`` (the mean over ``combined``) and ``lm_judge_<aspect>``.
    References, when the batch has them, are shown in the prompt (``references=False``:
    never)."""

    name = "lm_judge"
    columns: tuple[str, ...] = ("lm_judge",) + tuple(f"lm_judge_{a}" for a in ASPECTS)   # an instance: those of its aspects
    aliases = ("lm-judge", "lmjudge", "llm_judge")
    scores_systems_together = True
    needs_references = False
    needs_contexts = True

    def __init__(self, *, lm=DEFAULT_LM, aspects=None, combined=None, references: bool = True,
                 device: str = "auto", engine: str = "transformers", method: str = "auto"):
        from .lm_judge import DEFAULT_ASPECTS, LMJudge, check_aspects

        aspects = check_aspects(DEFAULT_ASPECTS if aspects is None else aspects)    # before any model loads
        self.columns = ("lm_judge",) + tuple(f"lm_judge_{a}" for a in aspects)
        self._judge = _LazyModel(lambda: LMJudge(_load_lm(lm, device, engine), aspects=aspects, combined=combined,
                                                 references=references, method=method))

    @classmethod
    def missing(cls, **options) -> str | None:
        return _missing_lm(options)

    @property
    def judge(self):
        return self._judge.get()

    def signature(self) -> str:
        return self.judge.signature(with_references=None)

    def update(self, batch: Batch) -> Chunk:
        judge = self.judge
        log_probs = judge.log_probs(batch.hyps.texts, refs=batch.refs, contexts=_contexts(batch, self.name))
        columns = judge.columns_from(log_probs)
        columns = {c: np.asarray(columns[c], dtype=np.float64) for c in self.columns}
        return Chunk(columns=columns, statistics=MeanStatistics.of(columns))
