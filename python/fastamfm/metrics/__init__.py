"""The nlg-eval overlap metrics: BLEU, ROUGE-L, CIDEr-D and Distinct-n."""
from __future__ import annotations

from .bleu import BleuStatistics, bleu
from .cider import DocumentFrequencies, cider
from .distinct import distinct
from .hypotheses import Hypotheses
from .rouge import rouge_l

__all__ = ["BleuStatistics", "DocumentFrequencies", "Hypotheses", "bleu", "cider", "distinct", "rouge_l"]
