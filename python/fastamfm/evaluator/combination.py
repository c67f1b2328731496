"""How the evaluator's sub-scores become the one ``evaluator`` score, with no human
rating involved (the weights are fixed, not fitted: fitting to ratings is
``LearnedScorer``'s job).

- ``"product"``: relevance x validity — a reply must be both a well-formed utterance and
  an answer to the context (USL-H's hierarchy: a response that fails understandability
  scores low whatever else it does);
- ``"relevance"``: the relevance probability alone;
- ``"mean"``: the mean of the two.

With references, ``reference_weight`` w mixes in the reference similarity:
evaluator = w x reference + (1 - w) x (the above). Every result stays on 0..1.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

KINDS = ("product", "relevance", "mean")


@dataclass(frozen=True)
class Combination:
    kind: str = "product"
    reference_weight: float = 0.5

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"combination must be one of {KINDS}, got {self.kind!r}")
        w = self.reference_weight
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not 0.0 <= w <= 1.0:
            raise ValueError(f"reference_weight must be a number in [0, 1], got {w!r}")

    def __call__(self, columns: dict) -> np.ndarray:
        relevance, validity = columns["relevance"], columns["validity"]
        if self.kind == "product":
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
        return {"kind": self.kind, "reference_weight": self.reference_weight}

    @classmethod
    def from_json(cls, data: dict) -> "Combination":
        return cls(str(data["kind"]), float(data["reference_weight"]))
