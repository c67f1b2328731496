"""The classic AM-FM family (D'Haro et al. 2019): adequacy from an LSI model, fluency from
an n-gram language model, and their combination.

- ``lsi.py`` ``LsiModel`` (the AM model) and ``lm.py`` ``NgramLM`` (the FM model);
- ``adequacy.py`` / ``fluency.py``: the registered metrics ``am`` and ``fm`` and the
  functions ``adequacy`` / ``fluency``; ``metric.py``: the registered ``amfm``;
- ``scorer.py``: ``AMFM``, the two models and the settings that combine them (load,
  save, train, score, reward); ``model_option.py``: the ``model=`` option of the three
  metrics; ``tuning.py``: ``tune``; ``build_default_model.py``: the packaged model's
  recipe (``python -m fastamfm.amfm.build_default_model``).
"""
from __future__ import annotations

# The functions ``adequacy`` and ``fluency`` are ``fastamfm.adequacy`` / ``fastamfm.fluency``:
# here those names are their modules (one dotted path, one thing).
from . import adequacy, fluency
from .lm import NgramLM, TokenScores
from .lsi import LsiModel
from .metric import AMFMScore
from .scorer import AMFM, AMFMSettings, combine_scores, resolve_model
from .tuning import tune

__all__ = ["AMFM", "AMFMScore", "AMFMSettings", "LsiModel", "NgramLM", "TokenScores", "combine_scores",
           "resolve_model", "tune"]
