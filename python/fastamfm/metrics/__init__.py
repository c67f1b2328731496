"""The nlg-eval family: its metrics, one registered metric per module (BLEU, METEOR,
ROUGE-L, CIDEr-D, the embedding metrics, Distinct-n), their resources (``vectors.py``:
word vectors; ``meteor_resources.py``: METEOR's synonyms and paraphrases) and nlg-eval's
own API over the pipeline (``nlgeval.py``: ``compute_metrics``, ``NLGEval``).

The generation metrics: sacrebleu's BLEU (``sacrebleu.py``) and chrF/chrF++ (``chrf.py``),
rouge-score's ROUGE (``rouge_score.py``), Self-BLEU (``self_bleu.py``), pairwise score
matrices, MBR selection and the self_ form of any pairwise metric (``pairwise.py``, ``mbr.py``,
``self_similarity.py``) and the token-id forms for RL
rewards (``token_ids.py``).

The registry lists the metrics in nlg-eval's order: the order of their entry points in
pyproject.toml (``fastamfm.registry.plugins``), not of the imports below.
"""
from __future__ import annotations

# The functions of the metrics whose module has the same name (bleu, chrf, ...) are
# ``fastamfm.bleu`` etc., not names of this package: here ``fastamfm.metrics.bleu`` is the module.
from .bleu import BleuStatistics
from .cider import DocumentFrequencies
from .embedding import embedding_average, greedy_matching, vector_extrema
from .mbr import MbrSelection, mbr_select
from .rouge import rouge_l
from .sacrebleu import SacreBleuStatistics
from .token_ids import token_bleu, token_rouge

__all__ = ["BleuStatistics", "DocumentFrequencies", "MbrSelection", "SacreBleuStatistics", "embedding_average",
           "greedy_matching", "mbr_select", "rouge_l", "token_bleu", "token_rouge", "vector_extrema"]
