"""The fixed affine maps that put Deep AM-FM's components on one scale (measured once on
text that is not rated, then applied to every response alone, so a score never depends on
what it is batched with). Read by the scorer and written by training."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Standardizer:
    center: float
    scale: float

    def __call__(self, values):
        return (values - self.center) / self.scale


@dataclass(frozen=True)
class Calibration:
    """Fixed affine maps of each component onto one scale (z = (x - center) / scale).
    ``followup`` (the follow-up likelihood, a third reference-free component) is None in a
    calibration measured before it existed: such a scorer combines AM and FM alone."""

    am_reference: Standardizer
    fm_reference: Standardizer
    am_context: Standardizer
    fm_context: Standardizer
    source: str = ""
    followup: Standardizer | None = None

    def components(self) -> dict:
        """{component name: Standardizer} of the components this calibration has."""
        names = ("am_reference", "fm_reference", "am_context", "fm_context", "followup")
        return {name: getattr(self, name) for name in names if getattr(self, name) is not None}
