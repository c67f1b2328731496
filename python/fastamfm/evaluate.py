"""Every metric in one call: ``fastamfm.evaluate(hyps, refs, metrics=...)``."""
from __future__ import annotations

from .pipeline import Pipeline
from .result import MetricResult


def evaluate(hyps, refs=None, metrics=None, *, contexts=None, **options) -> MetricResult:
    """Per-response and corpus scores of the requested metrics, as one table.

    ``metrics``: registry names, nlg-eval keys or aliases, as a list or a comma-separated
    string (``fastamfm.registry.names()`` lists them); default: nlg-eval's set (BLEU-1..4,
    METEOR, ROUGE-L, CIDEr, and the embedding metrics when ``vectors=`` is given).
    ``refs``: per-response reference lists or a ``fastamfm.References`` reused across
    calls; ``contexts``: per-response dialogue so far, for reference-free metrics.
    ``options``: ``workers`` and the metrics' settings (``model=`` for AM/FM/AM-FM,
    ``vectors=`` for the embedding metrics, ``tokenize=``, ...; a dict under a metric's
    name sets that metric alone, e.g. ``bleu={"max_order": 2}``).

    Returns a ``MetricResult``: ``.sentences`` {column: ndarray[n]}, ``.corpus`` {column:
    corpus score from the metrics' exact statistics}, ``.to_frame()``/``.to_dict()``.
    A metric that cannot run here (missing resources) is left out with a warning.
    """
    return Pipeline.from_names(metrics, what="evaluate", **options).score(hyps, refs, contexts)
