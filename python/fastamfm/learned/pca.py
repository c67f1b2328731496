"""Principal component analysis of sentence vectors (ADEM reduces them to n dimensions)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Pca:
    """``transform(v) = (v - mean) @ components``; components are d x n, orthonormal
    columns in decreasing order of variance, each signed so that its largest entry is
    positive (a fit is reproducible bit for bit)."""

    mean: np.ndarray
    components: np.ndarray

    @classmethod
    def fit(cls, vectors: np.ndarray, dims: int) -> "Pca":
        vectors = np.asarray(vectors, dtype=np.float64)
        rows, d = vectors.shape
        if dims > min(rows, d):
            raise ValueError(f"PCA to {dims} dimensions needs vectors of at least {dims} dimensions and "
                             f"{dims} rows; got {rows} rows of dimension {d}")
        mean = vectors.mean(axis=0)
        centred = vectors - mean
        # The d x d covariance is cheap for sentence vectors (d of a few hundred) and
        # one eigendecomposition gives every leading component.
        eigenvalues, eigenvectors = np.linalg.eigh(centred.T @ centred)
        components = eigenvectors[:, ::-1][:, :dims]
        lead = np.argmax(np.abs(components), axis=0)
        components = components * np.sign(components[lead, np.arange(dims)])
        return cls(mean, np.ascontiguousarray(components))

    @property
    def dims(self) -> int:
        return self.components.shape[1]

    def transform(self, vectors: np.ndarray) -> np.ndarray:
        vectors = np.asarray(vectors, dtype=np.float64)
        if vectors.ndim != 2 or vectors.shape[1] != len(self.mean):
            raise ValueError(f"vectors of shape {vectors.shape}; this PCA was fitted on dimension {len(self.mean)}")
        return (vectors - self.mean) @ self.components
