"""fastamfm: AM-FM and the nlg-eval dialogue metrics with a C++ (and CUDA) core."""
from __future__ import annotations

from . import io
from ._backend import HAS_CUDA, resolve_device
from ._core import FormatError
from ._version import __version__
from .amfm import AMFM, AMFMResult, amfm_metrics, combine_scores
from .correlation import correlate, metric_correlations
from .evaluate import evaluate
from .tuning import tune
from .fluency import fluency
from .lm import NgramLM, TokenScores
from .metrics import BleuStatistics, DocumentFrequencies, Hypotheses, bleu, cider, distinct, rouge_l
from .nlgeval import compute_individual_metrics, compute_metrics
from .references import References
from .lsi import LsiModel
from .adequacy import adequacy
from .tokenize import PRESETS as TOKENIZER_PRESETS, tokenize

__all__ = [
    "LsiModel",
    "adequacy",
    "BleuStatistics",
    "DocumentFrequencies",
    "HAS_CUDA",
    "Hypotheses",
    "FormatError",
    "NgramLM",
    "References",
    "TOKENIZER_PRESETS",
    "TokenScores",
    "__version__",
    "AMFM",
    "AMFMResult",
    "amfm_metrics",
    "combine_scores",
    "correlate",
    "evaluate",
    "tune",
    "metric_correlations",
    "fluency",
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
