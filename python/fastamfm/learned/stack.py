"""The stacked combiner: a linear model of standardised metric columns fitted to ratings,

    score = b + Σ_j w_j (x_j − mean_j) / std_j

with non-negative weights (``weights="nonneg"``: every column is a "higher is better"
metric, so a negative weight would only fit noise) or ridge weights (``"ridge"``, the
penalty chosen by leave-one-out error). Means and standard deviations are the training
data's; a column constant there gets weight 0.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import linear

WEIGHTINGS = ("nonneg", "ridge")


@dataclass(frozen=True)
class StackModel:
    columns: tuple
    means: np.ndarray
    scales: np.ndarray
    weights: np.ndarray
    intercept: float
    weighting: str

    def predict(self, columns: dict) -> np.ndarray:
        missing = [c for c in self.columns if c not in columns]
        if missing:
            raise ValueError(f"the stacked combiner needs columns {missing}")
        x = np.column_stack([columns[c] for c in self.columns])
        return ((x - self.means) / self.scales) @ self.weights + self.intercept


def fit_stack(ratings: np.ndarray, columns: dict, *, weighting: str = "nonneg") -> StackModel:
    """Fit the combiner on ``columns`` ({name: ndarray[n]}, order kept) to ``ratings``."""
    if weighting not in WEIGHTINGS:
        raise ValueError(f"weights must be one of {WEIGHTINGS}, got {weighting!r}")
    if not columns:
        raise ValueError("the stacked combiner needs at least one metric column")
    names = tuple(columns)
    x = np.column_stack([columns[c] for c in names])
    means = x.mean(axis=0)
    scales = x.std(axis=0)
    constant = scales == 0
    scales[constant] = 1.0  # a constant column standardises to 0 and gets no weight
    z = (x - means) / scales
    if weighting == "nonneg":
        fit = linear.coordinate_descent(z, ratings, nonneg=True)
    else:
        fit = linear.ridge(z, ratings, penalty="auto")
    weights = np.where(constant, 0.0, fit.weights)
    return StackModel(names, means, scales, weights, fit.intercept, weighting)
