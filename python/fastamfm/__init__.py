"""fastamfm: AM-FM and the nlg-eval dialogue metrics with a C++ (and CUDA) core."""
from __future__ import annotations

from . import io
from . import meteor_resources
from ._backend import HAS_CUDA, resolve_device
from ._core import FormatError
from ._version import __version__
from .metrics.meteor import meteor
from .references import References
from .tokenize import PRESETS as TOKENIZER_PRESETS, tokenize

__all__ = [
    "HAS_CUDA",
    "FormatError",
    "References",
    "TOKENIZER_PRESETS",
    "__version__",
    "io",
    "meteor",
    "meteor_resources",
    "resolve_device",
    "tokenize",
]
