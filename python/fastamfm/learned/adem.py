"""ADEM (Lowe et al. 2017, "Towards an Automatic Turing Test"): a bilinear score of the
context c, reference r and response r̂ vectors, fitted to human ratings,

    score(c, r, r̂) = (cᵀ M r̂ + rᵀ N r̂ − α) / β

after PCA of the sentence vectors to n dimensions (the paper's n = 7), each reduced vector
scaled back to unit length, so that the identity model M = N = I is the sum of the
cosines in the reduced space (on the DSTC-10 development sets this lifted held-out
Spearman of the MiniLM-based ADEM by 5-6 points at n = 7 and 20). The reference-free
variant keeps only cᵀ M r̂; with references but no context only rᵀ N r̂ remains.

Because the score is linear in the entries of M and N, the products c_i r̂_j and r_i r̂_j
are the columns of an ordinary design matrix (``design_matrix``) and the fit is penalised
least squares in closed form (``linear.ridge``), or an L1 path (``linear.lasso_cv``). The
paper starts M and N at the identity and regularises; here the penalty shrinks them
towards the identity (``prior="identity"``, the default) or towards zero
(``prior="zero"``, the paper's L1 term on θ itself).

α and β are set as in the paper, so that the identity model's predictions on the
training data span the range of the ratings: β = range(s₀) / range(y), α = min(s₀) −
β·min(y) for s₀ = cᵀr̂ + rᵀr̂. The fit then re-estimates α as its unpenalised intercept
(the closed form has no starting point to keep it at).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import linear
from .pca import Pca

PRIORS = ("identity", "zero")
REGULARIZATIONS = ("l2", "l1")


def design_matrix(context: np.ndarray | None, reference: np.ndarray | None, response: np.ndarray) -> np.ndarray:
    """Rows [vec(c r̂ᵀ), vec(r r̂ᵀ)] (blocks present for the inputs given): column
    i·n + j of a block is the coefficient M[i, j] (or N[i, j]) multiplies."""
    n, k = response.shape
    blocks = [(other[:, :, None] * response[:, None, :]).reshape(n, k * k)
              for other in (context, reference) if other is not None]
    return np.concatenate(blocks, axis=1)


def reduce(pca: Pca, vectors: np.ndarray) -> np.ndarray:
    """PCA projection scaled to unit length (a zero projection stays zero)."""
    reduced = pca.transform(vectors)
    norms = np.linalg.norm(reduced, axis=1, keepdims=True)
    return np.divide(reduced, norms, out=np.zeros_like(reduced), where=norms > 0)


@dataclass(frozen=True)
class AdemModel:
    """A fitted ADEM: the PCA and M (context), N (reference) — either may be None —
    with the scaling α, β and the penalty the fit used."""

    pca: Pca
    context_weights: np.ndarray | None    # M, n x n
    reference_weights: np.ndarray | None  # N, n x n
    alpha: float
    beta: float
    penalty: float

    @property
    def uses_context(self) -> bool:
        return self.context_weights is not None

    @property
    def uses_references(self) -> bool:
        return self.reference_weights is not None

    def predict(self, context, reference, response) -> np.ndarray:
        """Scores from encoder vectors (None for an input the model does not use)."""
        h = reduce(self.pca, response)
        raw = np.zeros(len(h))
        if self.context_weights is not None:     # uses_context
            raw += np.einsum("ni,ij,nj->n", reduce(self.pca, context), self.context_weights, h)
        if self.reference_weights is not None:   # uses_references
            raw += np.einsum("ni,ij,nj->n", reduce(self.pca, reference), self.reference_weights, h)
        return (raw - self.alpha) / self.beta


def initial_scaling(identity_scores: np.ndarray, ratings: np.ndarray) -> tuple[float, float]:
    """(α, β) mapping the identity model's scores onto the range of the ratings."""
    spread = float(np.ptp(identity_scores))
    beta = spread / float(np.ptp(ratings)) if spread > 0 else 1.0
    return float(identity_scores.min() - beta * ratings.min()), beta


def fit_adem(ratings: np.ndarray, response: np.ndarray, context: np.ndarray | None = None,
             reference: np.ndarray | None = None, *, dims: int = 7, prior: str = "identity",
             regularization: str = "l2", penalty="auto", seed: int = 0) -> AdemModel:
    """Fit ADEM to ``ratings`` from encoder vectors (rows aligned with the ratings).

    ``penalty``: the ridge penalty (scikit-learn ``Ridge(alpha=...)`` scale) or the L1
    penalty (``Lasso(alpha=...)`` scale), or ``"auto"``: leave-one-out (ridge) or 5-fold
    cross-validation along the L1 path (``seed`` draws the folds).
    """
    if prior not in PRIORS:
        raise ValueError(f"prior must be one of {PRIORS}, got {prior!r}")
    if regularization not in REGULARIZATIONS:
        raise ValueError(f"regularization must be one of {REGULARIZATIONS}, got {regularization!r}")
    if context is None and reference is None:
        raise ValueError("ADEM needs contexts, references or both")
    present = [v for v in (context, reference) if v is not None]
    pca = Pca.fit(np.concatenate(present + [response]), dims)
    h = reduce(pca, response)
    c = None if context is None else reduce(pca, context)
    r = None if reference is None else reduce(pca, reference)
    x = design_matrix(c, r, h)
    identity = np.eye(dims).ravel()
    identity_prior = np.concatenate([identity] * len(present))
    alpha, beta = initial_scaling(x @ identity_prior, ratings)
    target = beta * ratings + alpha
    prior_weights = identity_prior if prior == "identity" else None
    if regularization == "l2":
        fit = linear.ridge(x, target, penalty=penalty, prior=prior_weights)
    elif penalty == "auto":
        fit = linear.lasso_cv(x, target, prior=prior_weights, seed=seed)
    else:
        fit = linear.coordinate_descent(x, target, l1=float(penalty), prior=prior_weights, tol=1e-10)
    blocks = iter(np.split(fit.weights, len(present)))
    context_weights = next(blocks).reshape(dims, dims) if context is not None else None
    reference_weights = next(blocks).reshape(dims, dims) if reference is not None else None
    return AdemModel(pca, context_weights, reference_weights, alpha - fit.intercept, beta, fit.penalty)
