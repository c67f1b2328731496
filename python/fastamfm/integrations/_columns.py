"""Which result columns a metric name asks for, in the integrations that take names."""
from __future__ import annotations

from .. import registry
from ..pipeline import Pipeline


def requested_columns(pipeline: Pipeline, spec: str, what: str) -> list:
    """The columns ``spec`` names among ``pipeline``'s: a metric's name or alias asks for
    all its columns (``deep_amfm`` is also the name of one of them, as in
    ``compute_metrics``), a column's name (any case) for that column (``"Bleu_4"``)."""
    metric_class = registry.metric_class(spec)
    metric = next(m for m in pipeline.metrics if m.name == metric_class.name)
    columns = list(metric.columns)
    key = spec.strip().lower()
    if key in (metric_class.name, *(a.lower() for a in metric_class.aliases)):
        return columns
    named = [c for c in columns if c.lower() == key]
    if named:
        return named
    if key in (c.lower() for c in metric_class.columns):
        raise ValueError(f"{what}: {metric.name} computes {columns} with these options, not {spec!r}")
    return columns
