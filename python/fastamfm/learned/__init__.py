"""Scores fitted to human ratings: ADEM and a stacked combiner of metric columns.

``LearnedScorer.fit(ratings, hyps, refs=None, contexts=None, kind="adem" | "stack")``
(see ``scorer.py``). numpy only: no scikit-learn, scipy or torch needed to fit or score.
"""
from __future__ import annotations

from .metric import LearnedMetric
from .scorer import KINDS, LearnedScorer

__all__ = ["KINDS", "LearnedMetric", "LearnedScorer"]
