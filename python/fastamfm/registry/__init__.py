"""The one metric registry: the protocol every metric follows, and the table every entry
point (``evaluate``, the nlg-eval layer, ``score_files``/CLI, ``tune``, ``correlate``,
``fastamfm.distributed``, ``fastamfm train``) reads.

- ``statistics``: what corpus scores are computed from (``Statistics``, exact and
  summable across chunks; ``MeanStatistics``; ``SentenceStatistics`` for resampling);
- ``metric``: the ``Metric`` base class (settings, ``update`` -> ``Chunk``, ``compute``)
  and the model kind a metric scores with;
- ``table``: the metrics by name, columns and aliases; model directories resolved to the
  metric of their kind (``load_model``); training recipes by model kind (``recipe``);
- ``plugins``: the entry points all of them come from (``fastamfm.metrics``,
  ``fastamfm.recipes``), fastamfm's own included (docs/plugins.md).

A metric is one ``Metric`` subclass, declared as an entry point (or registered in-process
with ``@register``).
"""
from __future__ import annotations

from ..batch import Batch, make_batch
from .metric import Chunk, Metric
from .statistics import MeanStatistics, SentenceStatistics, Statistics, statistics_of
from .table import (
                    DEFAULT_MODEL_KIND,
                    build,
                    default_names,
                    load_model,
                    metric_class,
                    model_kind,
                    model_kinds,
                    names,
                    option_names,
                    recipe,
                    register,
                    resolve,
)

__all__ = ["Batch", "Chunk", "DEFAULT_MODEL_KIND", "MeanStatistics", "Metric", "SentenceStatistics", "Statistics",
           "build", "default_names", "load_model", "make_batch", "metric_class", "model_kind", "model_kinds", "names",
           "option_names", "recipe", "register", "resolve", "statistics_of"]
