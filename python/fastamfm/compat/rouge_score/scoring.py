"""rouge-score's score types and its bootstrap aggregation of per-example scores."""
from __future__ import annotations

import abc
import collections

import numpy as np


class Score(collections.namedtuple("Score", ["precision", "recall", "fmeasure"])):
    """Precision, recall and F1 of one ROUGE type."""


class AggregateScore(collections.namedtuple("AggregateScore", ["low", "mid", "high"])):
    """A confidence interval of scores: its lower bound, median and upper bound."""


class BaseScorer(abc.ABC):
    """What a scorer provides: ``score(target, prediction) -> {type: Score}``."""

    @abc.abstractmethod
    def score(self, target: str, prediction: str) -> dict:
        """Scores of ``prediction`` against ``target``."""


def fmeasure(precision: float, recall: float) -> float:
    """The harmonic mean of precision and recall (0 when both are 0)."""
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


class BootstrapAggregator:
    """Confidence intervals of the mean score over examples, by bootstrap resampling.

    ``confidence_interval``: the interval's coverage (0.95: the 2.5th and 97.5th
    percentiles of the resampled means); ``n_samples``: resamples. ``mid`` is the median
    of the resampled means.

    The draws are numpy's global ``np.random`` ones, in the order rouge-score makes them
    (one resample after another, one score type after another), so seeding
    ``np.random.seed`` reproduces rouge-score's intervals exactly.

    >>> aggregator = BootstrapAggregator()
    >>> aggregator.add_scores({"rouge1": Score(1.0, 0.5, 2 / 3)})
    >>> round(float(aggregator.aggregate()["rouge1"].mid.fmeasure), 3)
    0.667
    """

    def __init__(self, confidence_interval: float = 0.95, n_samples: int = 1000):
        if not 0 <= confidence_interval <= 1:
            raise ValueError(f"BootstrapAggregator: confidence_interval must be in [0, 1], got {confidence_interval!r}")
        if n_samples <= 0:
            raise ValueError(f"BootstrapAggregator: n_samples must be positive, got {n_samples!r}")
        self._n_samples = n_samples
        self._confidence_interval = confidence_interval
        self._scores: collections.defaultdict[str, list[tuple]] = collections.defaultdict(list)   # namedtuples

    def add_scores(self, scores: dict) -> None:
        """Add one example's {score type: Score} (any namedtuple of numbers)."""
        for score_type, score in scores.items():
            self._scores[score_type].append(score)

    def aggregate(self) -> dict:
        """{score type: AggregateScore(low, mid, high)}, each bound of the added scores' type."""
        return {score_type: AggregateScore(*(type(scores[0])(*row) for row in self._percentiles(np.vstack(scores))))
                for score_type, scores in self._scores.items()}

    def _percentiles(self, matrix: np.ndarray) -> np.ndarray:
        """[3, measures]: the low, median and high percentile of the resampled means."""
        n = matrix.shape[0]
        means = np.empty((self._n_samples, matrix.shape[1]))
        for r in range(self._n_samples):
            means[r] = matrix[np.random.choice(n, size=n)].mean(axis=0)
        tail = (1 - self._confidence_interval) / 2
        return np.percentile(means, 100 * np.array([tail, 0.5, 1 - tail]), axis=0)
