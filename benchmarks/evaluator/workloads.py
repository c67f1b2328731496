"""The evaluator area's workloads: DSTC-10 development responses with their contexts (the
same responses for every scorer), and where the trained evaluator comes from."""
from __future__ import annotations

import os
from pathlib import Path

from benchmarks.shared_data import SHARED_DATA, require

# A trained evaluator directory to measure instead of the suite's tiny one.
EVALUATOR_VARIABLE = "FASTAMFM_EVALUATOR"
# The four sets the targets are set on (issue 25), then the one with references.
FOUR = ["convai2-grade", "empathetic-grade", "persona-usr", "fed-turn"]
ALL = FOUR + ["dailydialog-zhao"]


def dstc10_sets(data: Path = SHARED_DATA) -> dict:
    """{set name: RatedTurns} of ``data/dstc10_dev`` (a clear error when it is absent)."""
    from fastamfm.analysis.ratings import load_dstc10_dev

    return load_dstc10_dev(require(Path(data) / "dstc10_dev"))


def responses(count: int, data: Path = SHARED_DATA) -> tuple:
    """(hyps, contexts): ``count`` responses spread evenly over the five sets, in order."""
    hyps, contexts = [], []
    for rated in dstc10_sets(data).values():
        hyps += rated.hyps
        contexts += rated.contexts
    step = max(1, len(hyps) // count)
    return hyps[::step][:count], contexts[::step][:count]


def evaluator_from_environment() -> Path | None:
    """The directory named by ``$FASTAMFM_EVALUATOR``, if set (a ValueError if it is not one)."""
    value = os.environ.get(EVALUATOR_VARIABLE)
    if not value:
        return None
    from fastamfm.evaluator.model_directory import is_evaluator_directory

    if not is_evaluator_directory(value):
        raise ValueError(f"${EVALUATOR_VARIABLE}={value} is not an evaluator directory (no evaluator.json; make "
                         f"one with fastamfm train --evaluator)")
    return Path(value)
