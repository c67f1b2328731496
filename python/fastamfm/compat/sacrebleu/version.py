"""The sacrebleu release whose numbers, signatures and printed output these are."""
from ...metrics.sacrebleu import SACREBLEU_VERSION

__version__ = SACREBLEU_VERSION
