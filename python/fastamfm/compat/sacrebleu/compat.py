"""sacrebleu's function API: one call builds the metric and scores.

``references`` are sacrebleu's streams (``refs[j][i]``: the j-th reference of
hypothesis i, ``None`` where i has fewer) for the corpus functions, and a list of
strings for the sentence functions.

>>> corpus_bleu(["The dog bit the man."], [["The dog bit the man."]]).score
100.0...
"""
from __future__ import annotations

from .metrics import BLEU, CHRF, TER, BLEUScore, CHRFScore


def corpus_bleu(hypotheses, references, smooth_method: str = "exp", smooth_value=None, force: bool = False,
                lowercase: bool = False, tokenize: str = BLEU.TOKENIZER_DEFAULT,
                use_effective_order: bool = False) -> BLEUScore:
    """Corpus BLEU; the options are ``BLEU``'s (``use_effective_order`` is its ``effective_order``)."""
    return BLEU(lowercase=lowercase, force=force, tokenize=tokenize, smooth_method=smooth_method,
                smooth_value=smooth_value, effective_order=use_effective_order).corpus_score(hypotheses, references)


def raw_corpus_bleu(hypotheses, references, smooth_value=BLEU.SMOOTH_DEFAULTS["floor"]) -> BLEUScore:
    """Corpus BLEU of text as given: no tokenization beyond splitting on whitespace,
    floor smoothing (``smooth_value``, None: 0.1) and effective order."""
    return corpus_bleu(hypotheses, references, smooth_method="floor", smooth_value=smooth_value, force=True,
                       tokenize="none", use_effective_order=True)


def sentence_bleu(hypothesis: str, references, smooth_method: str = "exp", smooth_value=None,
                  lowercase: bool = False, tokenize: str = BLEU.TOKENIZER_DEFAULT,
                  use_effective_order: bool = True) -> BLEUScore:
    """BLEU of one hypothesis against its references (a list of str)."""
    return BLEU(lowercase=lowercase, force=False, tokenize=tokenize, smooth_method=smooth_method,
                smooth_value=smooth_value, effective_order=use_effective_order).sentence_score(hypothesis, references)


def _chrf(char_order: int, word_order: int, beta, remove_whitespace: bool, eps_smoothing: bool) -> CHRF:
    return CHRF(char_order=char_order, word_order=word_order, beta=beta, whitespace=not remove_whitespace,
                eps_smoothing=eps_smoothing)


def corpus_chrf(hypotheses, references, char_order: int = CHRF.CHAR_ORDER, word_order: int = CHRF.WORD_ORDER,
                beta=CHRF.BETA, remove_whitespace: bool = True, eps_smoothing: bool = False) -> CHRFScore:
    """Corpus chrF (``word_order=2``: chrF++); ``remove_whitespace=False`` keeps spaces
    in character n-grams."""
    return _chrf(char_order, word_order, beta, remove_whitespace, eps_smoothing).corpus_score(hypotheses, references)


def sentence_chrf(hypothesis: str, references, char_order: int = CHRF.CHAR_ORDER, word_order: int = CHRF.WORD_ORDER,
                  beta=CHRF.BETA, remove_whitespace: bool = True, eps_smoothing: bool = False) -> CHRFScore:
    """chrF of one hypothesis against its references (a list of str)."""
    return _chrf(char_order, word_order, beta, remove_whitespace, eps_smoothing).sentence_score(hypothesis,
                                                                                              references)


def corpus_ter(*args, **kwargs):
    """Raises NotImplementedError: TER is out of scope."""
    return TER(*args, **kwargs)


def sentence_ter(*args, **kwargs):
    """Raises NotImplementedError: TER is out of scope."""
    return TER(*args, **kwargs)
