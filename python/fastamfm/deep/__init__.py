"""Neural metrics (the ``deep`` extra: PyTorch + transformers): sentence encoders for Deep
AM and BERTScore, neural language models for Deep FM, and their combination DeepAMFM.

Nothing here is imported by ``import fastamfm`` unless used: torch loads on first use, and
a missing extra is an ImportError that says ``pip install "fastamfm[deep]"``. Models come
from local directories or installed model packages only; nothing is downloaded.
"""
from __future__ import annotations

from . import fm_metrics  # noqa: F401  (registers deep_fm and deep_amfm)
from .deep_amfm import Calibration, DeepAMFM
from .fm import deep_fm
from .neural_lm import NeuralLM, NeuralTokenScores

__all__ = ["Calibration", "DeepAMFM", "NeuralLM", "NeuralTokenScores", "deep_fm"]
