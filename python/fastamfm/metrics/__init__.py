"""The nlg-eval family: its metrics, one registered metric per module (BLEU, METEOR,
ROUGE-L, CIDEr-D, the embedding metrics, Distinct-n), their resources (``vectors.py``:
word vectors; ``meteor_resources.py``: METEOR's synonyms and paraphrases) and nlg-eval's
own API over the pipeline (``nlgeval.py``: ``compute_metrics``, ``NLGEval``).

The registry lists the metrics in nlg-eval's order: the order of their entry points in
pyproject.toml (``fastamfm.registry.plugins``), not of the imports below.
"""
from __future__ import annotations

from .bleu import BleuStatistics, bleu
from .cider import DocumentFrequencies, cider
from .distinct import distinct
from .embedding import embedding_average, greedy_matching, vector_extrema
from .meteor import meteor
from .rouge import rouge_l

__all__ = ["BleuStatistics", "DocumentFrequencies", "bleu", "cider", "distinct", "embedding_average",
           "greedy_matching", "meteor", "rouge_l", "vector_extrema"]
