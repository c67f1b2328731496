"""sacrebleu's metrics: ``BLEU``, ``CHRF`` (and ``TER``, which raises NotImplementedError)."""
from .bleu import BLEU, BLEUScore
from .chrf import CHRF, CHRFScore
from .ter import TER, TERScore

METRICS = {"BLEU": BLEU, "CHRF": CHRF, "TER": TER}

__all__ = ["BLEU", "BLEUScore", "CHRF", "CHRFScore", "TER", "TERScore", "METRICS"]
