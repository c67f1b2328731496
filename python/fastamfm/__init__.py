"""fastamfm: AM-FM and the nlg-eval dialogue metrics with a C++ (and CUDA) core."""
from __future__ import annotations

from . import io
from ._backend import HAS_CUDA, resolve_device
from ._core import FormatError
from ._version import __version__
from .metrics import BleuStatistics, DocumentFrequencies, Hypotheses, bleu, cider, distinct, rouge_l
from .nlgeval import compute_individual_metrics, compute_metrics
from .references import References
from .tokenize import PRESETS as TOKENIZER_PRESETS, tokenize

__all__ = [
    "BleuStatistics",
    "DocumentFrequencies",
    "HAS_CUDA",
    "Hypotheses",
    "FormatError",
    "References",
    "TOKENIZER_PRESETS",
    "__version__",
    "bleu",
    "cider",
    "compute_individual_metrics",
    "compute_metrics",
    "distinct",
    "io",
    "resolve_device",
    "rouge_l",
    "tokenize",
]
