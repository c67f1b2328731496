"""fastamfm: AM-FM and the nlg-eval dialogue metrics with a C++ (and CUDA) core."""
from __future__ import annotations

from . import io
from ._backend import HAS_CUDA, resolve_device
from ._core import FormatError
from ._version import __version__
from .reference_index import ReferenceIndex
from .references import References
from .tokenize import PRESETS as TOKENIZER_PRESETS, tokenize
from .vectors import WordVectors
from .metrics.embedding import embedding_average, greedy_matching, vector_extrema

__all__ = [
    "HAS_CUDA",
    "FormatError",
    "ReferenceIndex",
    "References",
    "TOKENIZER_PRESETS",
    "WordVectors",
    "__version__",
    "embedding_average",
    "greedy_matching",
    "io",
    "resolve_device",
    "tokenize",
    "vector_extrema",
]
