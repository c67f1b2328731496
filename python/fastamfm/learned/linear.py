"""Penalised least squares with an unpenalised intercept, in numpy only.

Every fit minimises, over weights ``w`` and intercept ``b``,

    (1 / 2n) ||y - b - X (w0 + w)||^2  +  l1 ||w||_1  +  (l2 / 2) ||w||^2     (w0 + w >= 0 if nonneg)

where ``w0`` is a prior the penalties shrink towards (zero unless given). The
intercept is never penalised: X and y are centred first and ``b`` recovered after,
as scikit-learn's ``Ridge``/``Lasso``/``ElasticNet`` do with ``fit_intercept=True``.

- ``ridge``: l1 = 0, solved in closed form through the eigendecomposition of the
  centred Gram matrix (p x p: cheap for the few hundred columns of ADEM's design);
  ``penalty="auto"`` picks l2 from a grid by exact leave-one-out error (the hat
  matrix's diagonal, no refits).
- ``coordinate_descent``: any l1 / l2 / non-negativity, cyclic coordinate descent on
  the Gram matrix (each step O(p)); it gives non-negative least squares (l1 = l2 = 0,
  ``nonneg=True``) and the lasso / elastic-net path (``l1_path``, ``lasso_cv``).

Penalties here are on the scale of scikit-learn's objectives: ``ridge(penalty=a)``
equals ``Ridge(alpha=a)`` (whose loss is ``||r||^2 + a ||w||^2``, i.e. l2 = a / n
above); ``coordinate_descent(l1=a)`` equals ``Lasso(alpha=a)``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Ridge penalties tried by penalty="auto", as multiples of the mean eigenvalue of the
# centred Gram matrix (so the grid follows the scale of the features).
AUTO_RIDGE_GRID = tuple(np.logspace(-5, 2, 29))


@dataclass(frozen=True)
class LinearFit:
    """``predict(X) = X @ weights + intercept``; ``penalty`` is the one used (auto or given)."""

    weights: np.ndarray
    intercept: float
    penalty: float

    def predict(self, x: np.ndarray) -> np.ndarray:
        return x @ self.weights + self.intercept


def _centred(x: np.ndarray, y: np.ndarray):
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.ndim != 2 or y.shape != (x.shape[0],):
        raise ValueError(f"design matrix of shape {x.shape} does not match targets of shape {y.shape}")
    x_mean = x.mean(axis=0)
    y_mean = float(y.mean())
    return x - x_mean, y - y_mean, x_mean, y_mean


def _prior(prior, p: int) -> np.ndarray:
    if prior is None:
        return np.zeros(p)
    prior = np.asarray(prior, dtype=np.float64)
    if prior.shape != (p,):
        raise ValueError(f"prior has shape {prior.shape}, expected ({p},)")
    return prior


def ridge(x, y, *, penalty="auto", prior=None) -> LinearFit:
    """Ridge regression with intercept, shrinking the weights towards ``prior``.

    ``penalty``: a number ``a >= 0`` (scikit-learn ``Ridge(alpha=a)``) or ``"auto"``:
    the grid ``AUTO_RIDGE_GRID`` x mean eigenvalue, scored by leave-one-out squared
    error computed exactly from the hat matrix.
    """
    xc, yc, x_mean, y_mean = _centred(x, y)
    n, p = xc.shape
    w0 = _prior(prior, p)
    # Shrinking towards w0 is ridge on the residual of the prior's predictions.
    target = yc - xc @ w0
    gram = xc.T @ xc
    if isinstance(penalty, str):
        if penalty != "auto":
            raise ValueError(f"penalty must be a non-negative number or 'auto', got {penalty!r}")
    elif not np.isfinite(penalty) or penalty < 0:
        raise ValueError(f"penalty must be a non-negative number or 'auto', got {penalty!r}")
    elif penalty > 0:
        # A fixed positive penalty: one positive-definite solve.
        weights = w0 + np.linalg.solve(gram + penalty * np.eye(p), xc.T @ target)
        return LinearFit(weights, y_mean - float(x_mean @ weights), float(penalty))
    eigenvalues, vectors = np.linalg.eigh(gram)
    eigenvalues = np.clip(eigenvalues, 0.0, None)
    projected = xc @ vectors            # n x p: the design in the eigenbasis
    rhs = projected.T @ target          # p
    penalty = _leave_one_out_penalty(projected, eigenvalues, rhs, target, n) if penalty == "auto" else 0.0
    # Without a penalty a rank-deficient design gets the minimum-norm solution.
    with np.errstate(divide="ignore"):
        inverse = np.where(eigenvalues + penalty > 1e-12 * max(eigenvalues.max(), 1.0),
                           1.0 / (eigenvalues + penalty), 0.0)
    weights = w0 + vectors @ (inverse * rhs)
    return LinearFit(weights, y_mean - float(x_mean @ weights), float(penalty))


def _leave_one_out_penalty(projected, eigenvalues, rhs, target, n: int) -> float:
    scale = max(float(eigenvalues.mean()), np.finfo(float).tiny)
    best: float | None = None
    best_error = np.inf
    squared = projected * projected
    for factor in AUTO_RIDGE_GRID:
        penalty = factor * scale
        inverse = 1.0 / (eigenvalues + penalty)
        residual = target - projected @ (inverse * rhs)
        # Leverage of each point, the intercept's 1/n included (the centring is a fit too).
        leverage = squared @ inverse + 1.0 / n
        error = float(np.mean((residual / np.clip(1.0 - leverage, 1e-12, None)) ** 2))
        if error < best_error:
            best, best_error = penalty, error
    if best is None:   # every error NaN or infinite (was a TypeError further on)
        raise ValueError("ridge: no penalty gives a finite leave-one-out error; x and y must be finite")
    return best


def coordinate_descent(x, y, *, l1: float = 0.0, l2: float = 0.0, nonneg: bool = False, prior=None,
                       start=None, tol: float = 1e-12, max_iter: int = 100_000) -> LinearFit:
    """Elastic net / lasso / non-negative least squares with intercept (see the module doc).

    Stops when no weight moved by more than ``tol`` (relative to the largest weight)
    in a full sweep. ``start``: initial weights (warm start along a path).
    """
    xc, yc, x_mean, y_mean = _centred(x, y)
    n, p = xc.shape
    return _descend(xc.T @ xc / n, xc.T @ yc / n, x_mean, y_mean, l1=l1, l2=l2, nonneg=nonneg,
                    prior=_prior(prior, p), start=start, tol=tol, max_iter=max_iter)


def _descend(gram, corr, x_mean, y_mean, *, l1, l2, nonneg, prior, start, tol, max_iter) -> LinearFit:
    for name, value in (("l1", l1), ("l2", l2)):
        if not np.isfinite(value) or value < 0:
            raise ValueError(f"{name} must be a non-negative number, got {value!r}")
    p = len(corr)
    # Solve for v = w0 + w directly: the penalties act on v - w0.
    v = prior.copy() if start is None else np.asarray(start, dtype=np.float64).copy()
    if nonneg:
        v = np.clip(v, 0.0, None)
    diagonal = np.diag(gram) + l2
    residual_corr = corr - gram @ v      # X^T (y - X v) / n, kept up to date
    for _ in range(max_iter):
        largest_step = 0.0
        for j in range(p):
            if diagonal[j] <= 0:
                continue
            # Coordinate j's correlation with the residual of everything but its own
            # departure from the prior; soft-thresholded, then scaled by its curvature.
            shifted = residual_corr[j] + gram[j, j] * (v[j] - prior[j])
            shrunk = np.sign(shifted) * max(abs(shifted) - l1, 0.0)
            new = prior[j] + shrunk / diagonal[j]
            if nonneg and new < 0:
                new = 0.0
            step = new - v[j]
            if step != 0.0:
                residual_corr -= gram[:, j] * step
                v[j] = new
                largest_step = max(largest_step, abs(step))
        if largest_step <= tol * max(1.0, float(np.abs(v).max())):
            break
    return LinearFit(v, y_mean - float(x_mean @ v), float(l1))


def l1_penalties(x, y, *, prior=None, n_penalties: int = 30, ratio: float = 1e-3) -> np.ndarray:
    """``n_penalties`` l1 values, log-spaced from the smallest that keeps every weight at
    the prior down to ``ratio`` times it (empty when no weight would ever move)."""
    xc, yc, _, _ = _centred(x, y)
    n, p = xc.shape
    top = float(np.abs(xc.T @ (yc - xc @ _prior(prior, p))).max()) / n
    if top == 0.0:
        return np.zeros(0)
    return np.logspace(np.log10(top), np.log10(top * ratio), n_penalties)


def l1_path(x, y, penalties, *, l2: float = 0.0, prior=None, tol: float = 1e-10) -> list[LinearFit]:
    """Lasso (elastic net with ``l2``) fits for each l1 value in ``penalties`` (largest
    first), each warm-started from the previous one: the usual coordinate-descent path."""
    xc, yc, x_mean, y_mean = _centred(x, y)
    n, p = xc.shape
    gram, corr = xc.T @ xc / n, xc.T @ yc / n
    w0 = _prior(prior, p)
    fits, start = [], None
    for l1 in penalties:
        fit = _descend(gram, corr, x_mean, y_mean, l1=float(l1), l2=l2, nonneg=False, prior=w0,
                       start=start, tol=tol, max_iter=100_000)
        fits.append(fit)
        start = fit.weights
    return fits


def lasso_cv(x, y, *, prior=None, folds: int = 5, n_penalties: int = 30, seed: int = 0) -> LinearFit:
    """The l1 penalty of the path with the least ``folds``-fold cross-validated squared
    error, refitted on all the data."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    penalties = l1_penalties(x, y, prior=prior, n_penalties=n_penalties)
    if penalties.size == 0:
        return coordinate_descent(x, y, l1=0.0, prior=prior)
    fold_of = np.random.default_rng(seed).permutation(len(y)) % folds
    errors = np.zeros(len(penalties))
    for k in range(folds):
        train, test = fold_of != k, fold_of == k
        for i, fit in enumerate(l1_path(x[train], y[train], penalties, prior=prior)):
            errors[i] += float(np.sum((fit.predict(x[test]) - y[test]) ** 2))
    best = float(penalties[int(np.argmin(errors))])
    return coordinate_descent(x, y, l1=best, prior=prior, tol=1e-10)
