"""fastamfm inside the tools people already train and evaluate with, one module each:

- ``fastamfm.integrations.trl``: reward functions for TRL's trainers (``reward_funcs``);
- ``fastamfm.integrations.torchmetrics``: ``torchmetrics.Metric`` objects whose state is the
  registry's summable statistics, so corpus scores synchronise exactly across processes;
- ``evaluate_module_path()``: the directory ``evaluate.load`` takes (Hugging Face ``evaluate``).

Each is imported only when used: neither ``import fastamfm`` nor this package imports
torch, trl, torchmetrics or evaluate (extras ``fastamfm[trl]``, ``[torchmetrics]``,
``[evaluate]``).
"""
from __future__ import annotations

from pathlib import Path

# The shipped ``evaluate`` module: evaluate.load(DIR) runs DIR/<name of DIR>.py.
EVALUATE_MODULE = Path(__file__).resolve().parent / "evaluate_module" / "fastamfm"


def evaluate_module_path() -> str:
    """The directory to give ``evaluate.load``: ``evaluate.load(evaluate_module_path())``
    then ``.compute(predictions=hyps, references=refs, metrics=None, **options)`` returns
    ``fastamfm.compute_metrics``'s dict (nlg-eval's keys; any registry metric by name)."""
    return str(EVALUATE_MODULE)


__all__ = ["evaluate_module_path"]
