"""fastamfm: AM-FM and the nlg-eval dialogue metrics with a C++ (and CUDA) core.

Every metric is registered once (``fastamfm.registry``; built-in and third-party metrics
alike are entry points of the group ``fastamfm.metrics``, see ``fastamfm.registry.plugins``) and
every entry point --
``evaluate``, ``compute_metrics``/``NLGEval``, ``score_files`` and the CLI, ``tune``,
``correlate`` -- scores through the one pipeline (``fastamfm.pipeline``) and returns a
``MetricResult``.
"""
from __future__ import annotations

from . import _deprecated, io, limits, registry
from ._version import __version__
from .amfm import (
    AMFM,
    LsiModel,
    NgramLM,
    TokenScores,
    adequacy,
    combine_scores,
    fluency,
    tune,
)
from .analysis.correlation import cluster_metrics, correlate, metric_correlations
from .analysis.metric_comparison import compare_metrics
from .analysis.system_comparison import compare_systems
from .errors import AmbiguousReferencesWarning, FormatError
from .hypotheses import Hypotheses
from .metrics import (BleuStatistics, DocumentFrequencies, MbrSelection, SacreBleuStatistics, bleu, chrf, cider,
                      distinct, embedding_average, greedy_matching, mbr_select, meteor, meteor_resources, pairwise,
                      rouge, rouge_l, sacrebleu, self_bleu, self_similarity, token_bleu, token_rouge, vector_extrema)
from .metrics.nlgeval import NLGEval, compute_individual_metrics, compute_metrics
from .metrics.vectors import WordVectors
from .pipeline import Pipeline, evaluate
from .references import References
from .result import MetricResult
from .runtime import resolve_device
from .streaming import score_files
from .tokenize import PRESETS as TOKENIZER_PRESETS
from .tokenize import tokenize

__all__ = [
    "AMFM",
    "AmbiguousReferencesWarning",
    "BleuStatistics",
    "DocumentFrequencies",
    "FormatError",
    "HAS_CUDA",
    "Hypotheses",
    "LearnedScorer",
    "LsiModel",
    "MetricResult",
    "NLGEval",
    "NgramLM",
    "Pipeline",
    "ReferenceIndex",
    "References",
    "TOKENIZER_PRESETS",
    "TokenScores",
    "WordVectors",
    "__version__",
    "adequacy",
    "bleu",
    "cider",
    "cluster_metrics",
    "combine_scores",
    "compare_metrics",
    "compare_systems",
    "compute_individual_metrics",
    "compute_metrics",
    "correlate",
    "distinct",
    "embedding_average",
    "evaluate",
    "fluency",
    "greedy_matching",
    "io",
    "limits",
    "meteor",
    "meteor_resources",
    "metric_correlations",
    "registry",
    "resolve_device",
    "rouge_l",
    "score_files",
    "tokenize",
    "tune",
    "vector_extrema",
    "MbrSelection",
    "SacreBleuStatistics",
    "chrf",
    "mbr_select",
    "pairwise",
    "rouge",
    "sacrebleu",
    "self_bleu",
    "self_similarity",
    "token_bleu",
    "token_rouge",
    "SentenceEncoder",
    "bertscore",
    "deep_am",
    "DeepAMFM",
    "NeuralLM",
    "NeuralTokenScores",
    "deep_fm",
    "tune_deep",
    "FollowupScorer",
    "LMJudge",
    "Evaluator",
    "train_evaluator",
]

# Imported on first use, not by ``import fastamfm``: the neural metrics (extra "deep") import
# torch; the learned scorers and the FAISS reference index are whole subpackages few calls need.
_LAZY = {
    "LearnedScorer": ("fastamfm.learned.scorer", "LearnedScorer"),
    "ReferenceIndex": ("fastamfm.gpu.reference_index", "ReferenceIndex"),
    "SentenceEncoder": ("fastamfm.neural.encoder", "SentenceEncoder"),
    "bertscore": ("fastamfm.deep.bertscore", "bertscore"),
    "deep_am": ("fastamfm.deep.deep_am", "deep_am"),
    "DeepAMFM": ("fastamfm.deep.deep_amfm", "DeepAMFM"),
    "NeuralLM": ("fastamfm.neural.neural_lm", "NeuralLM"),
    "NeuralTokenScores": ("fastamfm.neural.neural_lm", "NeuralTokenScores"),
    "deep_fm": ("fastamfm.deep.fm", "deep_fm"),
    "tune_deep": ("fastamfm.deep.tuning", "tune_deep"),
    "FollowupScorer": ("fastamfm.deep.followup", "FollowupScorer"),
    "LMJudge": ("fastamfm.deep.lm_judge", "LMJudge"),
    "Evaluator": ("fastamfm.evaluator.evaluator", "Evaluator"),
    "train_evaluator": ("fastamfm.training.evaluator", "train_evaluator"),
}


# Subpackages reachable as attributes after a plain ``import fastamfm`` (imported on first
# use, as ``import fastamfm.integrations`` would): ``fastamfm.integrations.evaluate_module_path()``.
_SUBPACKAGES = ("amfm", "analysis", "deep", "distributed", "evaluator", "gpu", "integrations", "learned", "metrics",
                "models", "neural", "training")

_deprecated.install()


def __getattr__(name: str):
    import importlib

    if name in _LAZY:
        module, attribute = _LAZY[name]
        value = getattr(importlib.import_module(module), attribute)
        globals()[name] = value
        return value
    if name in _SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    if name == "HAS_CUDA":      # probes CUDA on first read, never at import (fork-safe workers)
        from .runtime import has_cuda

        return has_cuda()
    raise AttributeError(f"module 'fastamfm' has no attribute {name!r}")
