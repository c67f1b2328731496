"""How the evaluator's sub-scores become the one ``evaluator`` score, with no human
rating involved (nothing here is fitted to ratings: that is ``LearnedScorer``'s job).

- ``"zscore"`` (the default): relevance, validity and coherence put on one scale, then
  averaged — MME-CRS's several sub-metrics combined, without its rating-fitted weights.
  Each sub-score is standardised by a fixed map (``Standardizer``: z = (x - center) /
  scale) measured when the evaluator is trained, on real replies of held-out training
  dialogues (``calibration.py``); relevance and validity are read on their logit scale
  (probabilities near 0 or 1 would otherwise be squeezed together), coherence as the
  cosine it is. The mean of the three z goes through the logistic function onto 0..1. A
  response is therefore scored alone, never relative to what it is batched with.
- ``"product"``: relevance x validity — a reply must be both a well-formed utterance and
  an answer to the context (USL-H's hierarchy);
- ``"relevance"``: the relevance probability alone;
- ``"mean"``: the mean of relevance and validity.

Why zscore is the default: on the shared DSTC-10 development sets it tracked people better
than the product (benchmarks/evaluator/README.md), above all because it lets the frozen
encoder's coherence — which the trained heads do not subsume — count as much as either head.

With references, ``reference_weight`` w mixes in the reference similarity:
evaluator = w x reference + (1 - w) x (the above). Every result stays on 0..1.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..deep.calibration import Standardizer

KINDS = ("zscore", "product", "relevance", "mean")
# What the "zscore" kind averages (columns of ``Evaluator.components``).
STANDARDISED = ("relevance", "validity", "coherence")
# Columns that are probabilities: standardised on their logit scale.
_PROBABILITIES = ("relevance", "validity")
_EDGE = 1e-7


def standardisable(columns: dict) -> dict:
    """{sub-score: values on the scale the zscore maps read}: logits of the probabilities
    (clipped 1e-7 from 0 and 1), the coherence cosine as it is."""
    out = {}
    for name in STANDARDISED:
        values = np.asarray(columns[name], dtype=np.float64)
        if name in _PROBABILITIES:
            values = np.clip(values, _EDGE, 1.0 - _EDGE)
            values = np.log(values) - np.log1p(-values)
        out[name] = values
    return out


@dataclass(frozen=True)
class Combination:
    kind: str = "zscore"
    reference_weight: float = 0.5
    # zscore only: {sub-score: Standardizer}, measured on held-out replies (calibration.py).
    scales: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"combination must be one of {KINDS}, got {self.kind!r}")
        w = self.reference_weight
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not 0.0 <= w <= 1.0:
            raise ValueError(f"reference_weight must be a number in [0, 1], got {w!r}")
        if self.kind == "zscore":
            missing = [name for name in STANDARDISED if name not in self.scales]
            if missing:
                raise ValueError(f"the zscore combination needs the measured scale of {', '.join(missing)}")
            for name, s in self.scales.items():
                if not (np.isfinite(s.center) and np.isfinite(s.scale) and s.scale > 0):
                    raise ValueError(f"the zscore scale of {name} must be finite with scale > 0, got {s}")

    def __call__(self, columns: dict) -> np.ndarray:
        relevance, validity = columns["relevance"], columns["validity"]
        if self.kind == "zscore":
            z = [self.scales[name](values) for name, values in standardisable(columns).items()]
            base = np.exp(-np.logaddexp(0.0, -np.mean(z, axis=0)))     # the logistic function, no overflow
        elif self.kind == "product":
            base = relevance * validity
        elif self.kind == "relevance":
            base = relevance
        else:
            base = 0.5 * (relevance + validity)
        if "reference" in columns:
            return self.reference_weight * columns["reference"] + (1.0 - self.reference_weight) * base
        return base

    def describe(self) -> str:
        return f"{self.kind},refw={self.reference_weight:g}"

    def to_json(self) -> dict:
        out = {"kind": self.kind, "reference_weight": self.reference_weight}
        if self.scales:
            out["scales"] = {name: [s.center, s.scale] for name, s in sorted(self.scales.items())}
        return out

    @classmethod
    def from_json(cls, data: dict) -> "Combination":
        scales = {str(name): Standardizer(float(center), float(scale))
                  for name, (center, scale) in data.get("scales", {}).items()}
        return cls(str(data["kind"]), float(data["reference_weight"]), scales)
