"""fastamfm: AM-FM and the nlg-eval dialogue metrics with a C++ (and CUDA) core.

Every metric is registered once (``fastamfm.registry``; built-in and third-party metrics
alike are entry points of the group ``fastamfm.metrics``, see ``fastamfm.registry.plugins``) and
every entry point --
``evaluate``, ``compute_metrics``/``NLGEval``, ``score_files`` and the CLI, ``tune``,
``correlate`` -- scores through the one pipeline (``fastamfm.pipeline``) and returns a
``MetricResult``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import _deprecated, io, limits, registry
from ._version import __version__
from .amfm import AMFM, LsiModel, NgramLM, TokenScores, combine_scores, tune
from .amfm.adequacy import adequacy
from .amfm.fluency import fluency
from .analysis.correlation import cluster_metrics, correlate, metric_correlations
from .analysis.metric_comparison import compare_metrics
from .analysis.system_comparison import compare_systems
from .errors import AmbiguousReferencesWarning, FormatError
from .hypotheses import Hypotheses
from .metrics import (BleuStatistics, DocumentFrequencies, MbrSelection, SacreBleuStatistics, embedding_average,
                      greedy_matching, mbr_select, meteor_resources, rouge_l, token_bleu, token_rouge, vector_extrema)
from .metrics.bleu import bleu
from .metrics.chrf import chrf
from .metrics.cider import cider
from .metrics.distinct import distinct
from .metrics.meteor import meteor
from .metrics.pairwise import pairwise
from .metrics.rouge_score import rouge
from .metrics.sacrebleu import sacrebleu
from .metrics.self_bleu import self_bleu
from .metrics.self_similarity import self_similarity
from .metrics.nlgeval import NLGEval, compute_individual_metrics, compute_metrics
from .metrics.vectors import WordVectors
from .pipeline import Pipeline, evaluate
from .references import References
from .result import MetricResult
from .runtime import resolve_device
from .streaming import score_files
from .tokenization import PRESETS as TOKENIZER_PRESETS
from .tokenization import tokenize

if TYPE_CHECKING:   # the names imported on first use (``_LAZY`` below), typed for checkers
    from .client.service import Client
    from .deep.bertscore import bertscore
    from .deep.deep_am import deep_am
    from .deep.deep_amfm import DeepAMFM
    from .deep.fm import deep_fm
    from .deep.followup import FollowupScorer
    from .deep.lm_judge import LMJudge
    from .deep.tuning import tune_deep
    from .evaluator.evaluator import Evaluator
    from .gpu.reference_index import ReferenceIndex
    from .learned.scorer import LearnedScorer
    from .neural.encoder import SentenceEncoder
    from .neural.neural_lm import NeuralLM, NeuralTokenScores
    from .training.evaluator import train_evaluator

    HAS_CUDA: bool

__all__ = [
    "AMFM",
    "AmbiguousReferencesWarning",
    "BleuStatistics",
    "Client",
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
    "Client": ("fastamfm.client.service", "Client"),
}


# Subpackages reachable as attributes after a plain ``import fastamfm`` (imported on first
# use, as ``import fastamfm.integrations`` would): ``fastamfm.integrations.evaluate_module_path()``.
_SUBPACKAGES = ("amfm", "analysis", "client", "deep", "distributed", "evaluator", "gpu", "integrations", "learned",
                "metrics", "models", "neural", "training")

_deprecated.install()
_deprecated.install_former_paths()


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
