"""fastamfm: AM-FM and the nlg-eval dialogue metrics with a C++ (and CUDA) core."""
from __future__ import annotations

from . import io, meteor_resources
from ._backend import HAS_CUDA, resolve_device
from ._core import FormatError
from ._version import __version__
from .adequacy import adequacy
from .amfm import AMFM, AMFMResult, amfm_metrics, combine_scores
from .correlation import correlate, metric_correlations
from .evaluate import evaluate
from .fluency import fluency
from .lm import NgramLM, TokenScores
from .lsi import LsiModel
from .metrics import BleuStatistics, DocumentFrequencies, Hypotheses, bleu, cider, distinct, rouge_l
from .metrics.embedding import embedding_average, greedy_matching, vector_extrema
from .metrics.meteor import meteor
from .nlgeval import compute_individual_metrics, compute_metrics
from .reference_index import ReferenceIndex
from .references import References
from .tokenize import PRESETS as TOKENIZER_PRESETS, tokenize
from .tuning import tune
from .vectors import WordVectors

__all__ = [
    "AMFM",
    "AMFMResult",
    "BleuStatistics",
    "DocumentFrequencies",
    "FormatError",
    "HAS_CUDA",
    "Hypotheses",
    "LsiModel",
    "NgramLM",
    "ReferenceIndex",
    "References",
    "TOKENIZER_PRESETS",
    "TokenScores",
    "WordVectors",
    "__version__",
    "adequacy",
    "amfm_metrics",
    "bleu",
    "cider",
    "combine_scores",
    "compute_individual_metrics",
    "compute_metrics",
    "correlate",
    "distinct",
    "embedding_average",
    "evaluate",
    "fluency",
    "greedy_matching",
    "io",
    "meteor",
    "meteor_resources",
    "metric_correlations",
    "resolve_device",
    "rouge_l",
    "tokenize",
    "tune",
    "vector_extrema",
    "SentenceEncoder",
    "bertscore",
    "deep_am",
    "DeepAMFM",
    "NeuralLM",
    "NeuralTokenScores",
    "deep_fm",
]

# The neural metrics (extra "deep") import torch when used, never on ``import fastamfm``.
_LAZY = {
    "SentenceEncoder": ("fastamfm.deep.encoder", "SentenceEncoder"),
    "bertscore": ("fastamfm.deep.bertscore", "bertscore"),
    "deep_am": ("fastamfm.deep.deep_am", "deep_am"),
    "DeepAMFM": ("fastamfm.deep.deep_amfm", "DeepAMFM"),
    "NeuralLM": ("fastamfm.deep.neural_lm", "NeuralLM"),
    "NeuralTokenScores": ("fastamfm.deep.neural_lm", "NeuralTokenScores"),
    "deep_fm": ("fastamfm.deep.fm", "deep_fm"),
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        module, attribute = _LAZY[name]
        value = getattr(importlib.import_module(module), attribute)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'fastamfm' has no attribute {name!r}")
