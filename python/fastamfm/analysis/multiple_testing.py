"""Multiple-comparison corrections of a family of p-values (Holm, Bonferroni).

Comparing 19 systems with a baseline at p < 0.05 finds about one "significant"
difference by chance alone; a correction bounds the chance of any false finding in the
family (the family-wise error rate) at the level asked for.
"""
from __future__ import annotations

import numpy as np

CORRECTIONS = ("none", "holm", "bonferroni")


def check_correction(correction) -> str:
    if correction is None:
        return "none"
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {CORRECTIONS}, got {correction!r}")
    return correction


def adjust_p_values(p_values, correction: str) -> np.ndarray:
    """Adjusted p-values of one family, in the order given (nan entries are not tests:
    they stay nan and do not count towards the family's size).

    ``"bonferroni"``: min(1, m·p). ``"holm"`` (Holm 1979, step-down; never less powerful
    than Bonferroni): the i-th smallest p becomes the running maximum of
    min(1, (m − j + 1)·p_(j)) over j ≤ i.
    """
    correction = check_correction(correction)
    p = np.asarray(p_values, dtype=np.float64)
    out = p.copy()
    tested = np.flatnonzero(np.isfinite(p))
    m = len(tested)
    if correction == "none" or m == 0:
        return out
    if correction == "bonferroni":
        out[tested] = np.minimum(1.0, m * p[tested])
        return out
    order = tested[np.argsort(p[tested], kind="stable")]
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out[order] = np.maximum.accumulate(scaled)
    return out
