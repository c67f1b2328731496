"""fastamfm: AM-FM and the nlg-eval dialogue metrics with a C++ (and CUDA) core."""
from __future__ import annotations

from . import io
from ._backend import HAS_CUDA, resolve_device
from ._core import FormatError
from ._version import __version__
from .fluency import fluency
from .lm import NgramLM, TokenScores
from .references import References
from .tokenize import PRESETS as TOKENIZER_PRESETS, tokenize

__all__ = [
    "HAS_CUDA",
    "FormatError",
    "NgramLM",
    "References",
    "TOKENIZER_PRESETS",
    "TokenScores",
    "__version__",
    "fluency",
    "io",
    "resolve_device",
    "tokenize",
]
