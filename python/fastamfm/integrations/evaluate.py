"""fastamfm as a Hugging Face ``evaluate`` metric module.

    import evaluate, fastamfm.integrations
    nlg = evaluate.load(fastamfm.integrations.evaluate_module_path())
    nlg.compute(predictions=hyps, references=refs)                   # nlg-eval's keys
    nlg.compute(predictions=hyps, references=refs, metrics=["amfm", "Bleu_4"], model="default")
    evaluate.load(fastamfm.integrations.evaluate_module_path(), "amfm,bleu")   # a configuration: the metric set

``compute`` is ``fastamfm.compute_metrics`` on the predictions and references evaluate
collected (``add``/``add_batch``, across processes too): the same keys (nlg-eval's
``Bleu_1``..``CIDEr``, ``EmbeddingAverageCosineSimilarity``..., any registry metric's
columns when asked for), the same options and the same numbers. ``references``: per
prediction a list of strings, or one string. The configuration name (second argument
of ``evaluate.load``) is the default metric set: ``"default"`` for nlg-eval's, else
registry names or columns, comma-separated.

evaluate loads a metric module by running the script of a directory; the package ships
that directory (``evaluate_module/fastamfm/fastamfm.py``), which imports this class.
"""
from __future__ import annotations

try:
    import datasets
    import evaluate
except ImportError:  # pragma: no cover - depends on the environment
    raise ImportError('the fastamfm evaluate module needs evaluate: pip install ".[evaluate]" in the fastamfm '
                      'checkout') from None

from ..metrics.nlgeval import compute_metrics

_FEATURES = [datasets.Features({"predictions": datasets.Value("string"),
                                "references": datasets.Sequence(datasets.Value("string"))}),
             datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")})]


class Fastamfm(evaluate.Metric):
    """The evaluate module (evaluate names it after the class: ``fastamfm``)."""

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description="fastamfm: nlg-eval's metrics (BLEU, METEOR, ROUGE-L, CIDEr, embedding metrics), AM-FM and "
                        "neural dialogue metrics with a C++ core, under nlg-eval's key names.",
            citation="",
            inputs_description=__doc__,
            features=_FEATURES,
        )

    def _compute(self, predictions, references, metrics=None, **options) -> dict:
        if metrics is None and self.config_name != "default":
            metrics = self.config_name.split(",")
        references = [[r] if isinstance(r, str) else list(r) for r in references]
        return compute_metrics(list(predictions), references, metrics=metrics, **options)


__all__ = ["Fastamfm"]
