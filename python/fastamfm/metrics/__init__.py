"""The nlg-eval metrics, one registered metric per module, imported in nlg-eval's order
(the registry lists them so): BLEU, METEOR, ROUGE-L, CIDEr-D, the embedding metrics,
and Distinct-n."""
from __future__ import annotations

from .bleu import BleuStatistics, bleu
from .meteor import meteor
from .rouge import rouge_l
from .cider import DocumentFrequencies, cider  # noqa: I001  (nlg-eval's order, not alphabetical)
from .embedding import embedding_average, greedy_matching, vector_extrema
from .distinct import distinct

__all__ = ["BleuStatistics", "DocumentFrequencies", "bleu", "cider", "distinct", "embedding_average",
           "greedy_matching", "meteor", "rouge_l", "vector_extrema"]
