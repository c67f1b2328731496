"""sacrebleu's ``CHRF``, ``CHRFScore`` and ``CHRFSignature`` on fastamfm's chrF
(``fastamfm.metrics.chrf.Chrf``: character and word n-grams, the best reference per
segment, effective-order or epsilon smoothing, counted in the C++ core)."""
from __future__ import annotations

from ....metrics.chrf import Chrf
from .base import Metric, Score, Signature


class CHRFSignature(Signature):
    """The chrF signature: nrefs, case, eff, nc, nw, space, version."""

    ABBREVIATIONS = {**Signature.ABBREVIATIONS, "case": "c", "eff": "e", "nc": "nc", "nw": "nw", "space": "s"}

    def __init__(self, args: dict):
        super().__init__(args)
        self.info.update(case="lc" if args["lowercase"] else "mixed", eff="no" if args["eps_smoothing"] else "yes",
                         nc=args["char_order"], nw=args["word_order"], space="yes" if args["whitespace"] else "no")


class CHRFScore(Score):
    """A chrF score (0..100), named ``chrF{beta}`` and one ``+`` per word order
    (``chrF2++`` for chrF++)."""

    def __init__(self, score: float, char_order: int, word_order: int, beta):
        self.beta = beta
        self.char_order = char_order
        self.word_order = word_order
        super().__init__(f"chrF{beta}" + "+" * word_order, score)


class CHRF(Metric[CHRFScore]):
    """sacrebleu's chrF / chrF++.

    ``char_order`` (6) and ``word_order`` (0; 2 is chrF++) n-gram orders; ``beta`` (2):
    recall's weight; ``lowercase``; ``whitespace``: keep spaces in character n-grams;
    ``eps_smoothing``: chrF++.py's epsilon smoothing instead of sacrebleu's effective
    order; ``references``: streams prepared once for every ``corpus_score(hyps, None)``.

    >>> CHRF(word_order=2).corpus_score(["a b c"], [["a b c"]]).format()
    'chrF2++ = 100.00'
    """

    CHAR_ORDER = 6
    WORD_ORDER = 0
    BETA = 2
    _SIGNATURE_TYPE = CHRFSignature

    def __init__(self, char_order: int = CHAR_ORDER, word_order: int = WORD_ORDER, beta: int = BETA,
                 lowercase: bool = False, whitespace: bool = False, eps_smoothing: bool = False, references=None):
        super().__init__()
        self.beta = beta
        self.char_order = char_order
        self.word_order = word_order
        self.order = char_order + word_order
        self.lowercase = lowercase
        self.whitespace = whitespace
        self.eps_smoothing = eps_smoothing
        self._native = Chrf(char_order=char_order, word_order=word_order, beta=beta, lowercase=lowercase,
                            whitespace=whitespace, eps_smoothing=eps_smoothing)
        if references is not None:
            self._ref_cache = self._cache(references)

    def _score_of(self, statistics) -> CHRFScore:
        return CHRFScore(self._native.compute(statistics)["chrF"], self.char_order, self.word_order, self.beta)
