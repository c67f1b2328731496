"""A drop-in for sacrebleu 2.6.0's Python API, every number from fastamfm.

``import fastamfm.compat.sacrebleu as sacrebleu`` (or ``from fastamfm.compat import
sacrebleu``), then as with sacrebleu::

    sacrebleu.corpus_bleu(hyps, [refs_a, refs_b]).score      # reference streams
    bleu = sacrebleu.metrics.BLEU(tokenize="intl", references=[refs_a, refs_b])
    print(bleu.corpus_score(hyps, None), bleu.get_signature())
    sacrebleu.sentence_chrf(hyp, [ref_1, ref_2]).score

Submodules as in sacrebleu: ``metrics`` (``BLEU``, ``CHRF``, ``BLEUScore``,
``CHRFScore``), ``compat`` (the functions below), ``significance`` (``PairedTest``).
TER and test-set downloads are out of scope (see ``fastamfm.compat``).
"""
from .compat import (
    corpus_bleu,
    corpus_chrf,
    corpus_ter,
    raw_corpus_bleu,
    sentence_bleu,
    sentence_chrf,
    sentence_ter,
)
from .metrics import BLEU, CHRF, TER
from .version import __version__

__all__ = ["BLEU", "CHRF", "TER", "corpus_bleu", "raw_corpus_bleu", "sentence_bleu", "corpus_chrf",
           "sentence_chrf", "corpus_ter", "sentence_ter", "__version__"]
