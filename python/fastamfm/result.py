"""The result every batch metric returns, and the signature that makes it reproducible."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._version import __version__


def make_signature(metric: str, **settings) -> str:
    """``"bleu|max_order=4|ref_len=closest|tok=whitespace|version=0.1.0"``.

    Records every setting that changes the number (sorted by name), in the spirit
    of sacrebleu's signatures, so a reported score can be reproduced.
    """
    parts = [metric] + [f"{k}={settings[k]}" for k in sorted(settings)] + [f"version={__version__}"]
    return "|".join(parts)


@dataclass(frozen=True)
class MetricResult:
    """``corpus``: the corpus score (a float, or an array such as BLEU-1..4);
    ``sentences``: per-hypothesis scores as a numpy array; ``signature``: settings."""

    name: str
    corpus: float | np.ndarray
    sentences: np.ndarray
    signature: str
    extra: dict = field(default_factory=dict)

    def __float__(self) -> float:
        if isinstance(self.corpus, np.ndarray):
            return float(self.corpus[-1])
        return float(self.corpus)

    def __repr__(self) -> str:
        corpus = np.array2string(self.corpus, precision=6) if isinstance(self.corpus, np.ndarray) \
            else f"{self.corpus:.6f}"
        return f"MetricResult({self.name}: corpus={corpus}, n={len(self.sentences)}, {self.signature})"
