"""ADEM's bilinear score and its closed-form ridge fit, written out plainly.

score(c, r, r̂) = (Σ_ab c_a M_ab r̂_b + Σ_ab r_a N_ab r̂_b − α) / β. The fit minimises
Σ_i (b + x_i·w − t_i)² + penalty · ‖w − w0‖² over the weights w (the entries of M then
N, row by row) and an unpenalised intercept b, by solving the normal equations of the
design augmented with a column of ones.
"""
from __future__ import annotations

import numpy as np


def design_row(c, r, h) -> list:
    row = []
    for other in (c, r):
        if other is None:
            continue
        for a in range(len(h)):
            for b in range(len(h)):
                row.append(other[a] * h[b])
    return row


def design_matrix(c, r, h) -> np.ndarray:
    return np.array([design_row(None if c is None else c[i], None if r is None else r[i], h[i])
                     for i in range(len(h))])


def ridge_with_intercept(x, t, penalty: float, prior=None):
    """-> (weights, intercept) minimising ||t - b - x w||^2 + penalty ||w - prior||^2."""
    n, p = x.shape
    prior = np.zeros(p) if prior is None else np.asarray(prior, dtype=float)
    augmented = np.hstack([np.ones((n, 1)), x])
    shrink = penalty * np.eye(p + 1)
    shrink[0, 0] = 0.0  # the intercept is not penalised
    lhs = augmented.T @ augmented + shrink
    rhs = augmented.T @ t + shrink @ np.concatenate([[0.0], prior])
    solution = np.linalg.solve(lhs, rhs)
    return solution[1:], solution[0]


def bilinear_scores(c, r, h, m, nn, alpha: float, beta: float) -> np.ndarray:
    out = []
    for i in range(len(h)):
        total = 0.0
        for a in range(len(h[i])):
            for b in range(len(h[i])):
                if m is not None:
                    total += c[i][a] * m[a][b] * h[i][b]
                if nn is not None:
                    total += r[i][a] * nn[a][b] * h[i][b]
        out.append((total - alpha) / beta)
    return np.array(out)


def leave_one_out_error(x, t, penalty: float, prior=None) -> float:
    """Mean squared error of each point predicted by the fit without it (n refits)."""
    errors = []
    for i in range(len(t)):
        keep = np.arange(len(t)) != i
        w, b = ridge_with_intercept(x[keep], t[keep], penalty, prior)
        errors.append((t[i] - b - x[i] @ w) ** 2)
    return float(np.mean(errors))
