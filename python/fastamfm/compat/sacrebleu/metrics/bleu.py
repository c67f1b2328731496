"""sacrebleu's ``BLEU``, ``BLEUScore`` and ``BLEUSignature`` on fastamfm's sacreBLEU
(``fastamfm.metrics.sacrebleu.SacreBleu``: the same tokenizers, smoothing, effective
order and closest-reference rule, n-grams counted in the C++ core)."""
from __future__ import annotations

import math

from .... import _core
from ....metrics.sacrebleu import TOKENIZERS as SUPPORTED_TOKENIZERS
from ....metrics.sacrebleu import SacreBleu, check_smoothing
from .base import Metric, Score, Signature, logger

MAX_NGRAM_ORDER = 4
# sacrebleu's tokenizer names; those fastamfm does not carry raise NotImplementedError.
TOKENIZER_NAMES = ("none", "zh", "13a", "intl", "char", "ja-mecab", "ko-mecab", "spm", "flores101", "flores200",
                   "spBLEU-1K")
# The tokenizer sacrebleu picks for a target language when none is named.
LANGUAGE_TOKENIZERS = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}


def _smoothing_name(method: str, value) -> str:
    """sacrebleu's smooth field: the method, with its value for floor and add-k."""
    default = BLEU.SMOOTH_DEFAULTS[method]
    if default is None:
        return method
    return f"{method}[{(default if value is None else value):.2f}]"


class BLEUSignature(Signature):
    """The BLEU signature: nrefs, case, eff, tok, smooth, version."""

    ABBREVIATIONS = {**Signature.ABBREVIATIONS, "case": "c", "eff": "e", "tok": "tok", "smooth": "s"}

    def __init__(self, args: dict):
        super().__init__(args)
        self.info.update(case="lc" if args["lowercase"] else "mixed", eff="yes" if args["effective_order"] else "no",
                         tok=args["tokenizer_signature"],
                         smooth=_smoothing_name(args["smooth_method"], args["smooth_value"]))


class BLEUScore(Score):
    """A BLEU score (0..100) with its statistics: ``counts``/``totals`` (matched and
    hypothesis n-grams per order), ``precisions`` (percent), ``bp`` (brevity penalty),
    ``sys_len``/``ref_len`` and ``ratio``; printed as
    ``BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)``."""

    def __init__(self, score: float, counts: list, totals: list, precisions: list, bp: float, sys_len: int,
                 ref_len: int):
        super().__init__("BLEU", score)
        self.bp = bp
        self.counts = counts
        self.totals = totals
        self.sys_len = sys_len
        self.ref_len = ref_len
        self.precisions = precisions
        self.prec_str = "/".join(f"{p:.1f}" for p in precisions)
        self.ratio = sys_len / ref_len if ref_len else 0
        self._verbose = (f"{self.prec_str} (BP = {bp:.3f} ratio = {self.ratio:.3f} hyp_len = {sys_len:d} "
                         f"ref_len = {ref_len:d})")


def _integral(values, what: str) -> list:
    counts = []
    for v in values:
        if v != int(v):
            raise ValueError(f"BLEU.compute_bleu: {what} must be whole numbers, got {v!r}")
        counts.append(int(v))
    return counts


def _precisions(correct: list, total: list, method: str, value) -> tuple[list, list, list]:
    """(precisions in percent, counts, totals) as sacrebleu reports them. The score itself
    comes from the core; these are what ``BLEUScore`` shows beside it. add-k reports the
    counts and totals of orders 2.. with k added, as sacrebleu does (it smooths them in
    place, order by order, until an order without n-grams stops it)."""
    order = len(correct)
    precisions = [0.0] * order
    if not any(correct):                      # no match at all: BLEU 0, precisions 0
        return precisions, correct, total
    correct, total = list(correct), list(total)
    halvings = 1                              # exp smoothing: 1/2, 1/4, ... of a match
    for n in range(order):
        if method == "add-k" and n > 0:
            correct[n] += value
            total[n] += value
        if total[n] == 0:
            break
        if correct[n]:
            precisions[n] = 100.0 * correct[n] / total[n]
        elif method == "exp":
            halvings *= 2
            precisions[n] = 100.0 / (halvings * total[n])
        elif method == "floor":
            precisions[n] = 100.0 * value / total[n]
    return precisions, correct, total


def _brevity_penalty(sys_len: int, ref_len: int) -> float:
    if sys_len >= ref_len:
        return 1.0
    return math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0


class BLEU(Metric[BLEUScore]):
    """sacrebleu's BLEU.

    ``lowercase``; ``force`` (no warning about input that looks tokenized);
    ``tokenize``: "13a" (default), "intl", "char", "zh" or "none" (sacrebleu's MeCab and
    SentencePiece tokenizers raise NotImplementedError); ``smooth_method``: "exp"
    (default), "floor" (``smooth_value`` 0.1), "add-k" (1) or "none";
    ``max_ngram_order`` (4; up to 16); ``effective_order`` (leave out orders with no
    n-gram, for sentence BLEU); ``trg_lang``: picks the tokenizer when none is named
    ("zh" -> "zh") and warns when the named one does not fit; ``references``: streams
    prepared once for every ``corpus_score(hyps, None)``.

    >>> BLEU().corpus_score(["The dog bit the man."], [["The dog bit the man."]]).score
    100.0...
    """

    SMOOTH_DEFAULTS = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}
    TOKENIZERS = TOKENIZER_NAMES
    TOKENIZER_DEFAULT = "13a"
    _SIGNATURE_TYPE = BLEUSignature

    def __init__(self, lowercase: bool = False, force: bool = False, tokenize: str | None = None,
                 smooth_method: str = "exp", smooth_value: float | None = None, max_ngram_order: int = MAX_NGRAM_ORDER,
                 effective_order: bool = False, trg_lang: str = "", references=None):
        super().__init__()
        self._force = force
        self.trg_lang = trg_lang
        self.lowercase = lowercase
        self.smooth_value = smooth_value
        self.smooth_method = smooth_method
        self.max_ngram_order = max_ngram_order
        self.effective_order = effective_order
        self.tokenizer_signature = self._choose_tokenizer(tokenize, trg_lang)
        check_smoothing(smooth_method, None, "BLEU")
        self._native = SacreBleu(tokenize=self.tokenizer_signature, lowercase=lowercase, smooth_method=smooth_method,
                                 smooth_value=self._smooth_argument(smooth_method, smooth_value),
                                 max_ngram_order=max_ngram_order, effective_order=bool(effective_order))
        if references is not None:
            self._ref_cache = self._cache(references)

    @staticmethod
    def _choose_tokenizer(tokenize: str | None, trg_lang: str) -> str:
        preferred = LANGUAGE_TOKENIZERS.get(trg_lang)
        if tokenize is None:
            tokenize = preferred or BLEU.TOKENIZER_DEFAULT
        elif preferred and tokenize != preferred:
            logger.warning(f"BLEU: for trg_lang={trg_lang!r} consider tokenize={preferred!r} or 'spm' "
                           f"instead of {tokenize!r}.")
        if tokenize not in SUPPORTED_TOKENIZERS:
            if tokenize in TOKENIZER_NAMES:
                raise NotImplementedError(f"BLEU: tokenize={tokenize!r} is one of sacrebleu's MeCab/SentencePiece "
                                          f"tokenizers, which fastamfm.compat.sacrebleu does not carry; choose one "
                                          f"of {sorted(SUPPORTED_TOKENIZERS)} or use sacrebleu itself")
            raise ValueError(f"BLEU: unknown tokenize={tokenize!r}; choose one of {sorted(SUPPORTED_TOKENIZERS)}")
        # Each of these tokenizers signs itself with its own name in sacrebleu.
        return tokenize

    @staticmethod
    def _smooth_argument(method: str, value):
        # sacrebleu ignores smooth_value for "exp" and "none"; fastamfm refuses it there.
        return value if BLEU.SMOOTH_DEFAULTS.get(method) is not None else None

    @staticmethod
    def compute_bleu(correct, total, sys_len: int, ref_len: int, smooth_method: str = "none", smooth_value=None,
                     effective_order: bool = False, max_ngram_order: int = MAX_NGRAM_ORDER) -> BLEUScore:
        """BLEU from its sufficient statistics: matched (``correct``) and hypothesis
        (``total``) n-grams per order 1..``max_ngram_order``, hypothesis and closest
        reference lengths; smoothing and effective order as for ``BLEU``.

        >>> BLEU.compute_bleu([9, 7, 5, 3], [10, 8, 6, 4], 11, 11).score
        83.759...
        """
        check_smoothing(smooth_method, None, "BLEU.compute_bleu")
        correct = _integral(list(correct)[:max_ngram_order], "correct")
        total = _integral(list(total)[:max_ngram_order], "total")
        if len(correct) < max_ngram_order or len(total) < max_ngram_order:
            raise ValueError(f"BLEU.compute_bleu: max_ngram_order={max_ngram_order} needs that many counts, got "
                             f"{len(correct)} correct and {len(total)} total")
        value = smooth_value if smooth_value is not None else BLEU.SMOOTH_DEFAULTS[smooth_method]
        smooth = check_smoothing(smooth_method, BLEU._smooth_argument(smooth_method, smooth_value),
                                 "BLEU.compute_bleu")
        score = _core.sacrebleu_corpus(sys_len, ref_len, total, correct, smooth_method, smooth,
                                       bool(effective_order))
        precisions, counts, totals = _precisions(correct, total, smooth_method, value)
        return BLEUScore(score, counts, totals, precisions, _brevity_penalty(sys_len, ref_len), int(sys_len),
                         int(ref_len))

    def _score_of(self, statistics) -> BLEUScore:
        return self.compute_bleu(statistics.correct, statistics.total, statistics.sys_len, statistics.ref_len,
                                 self.smooth_method, self.smooth_value, self.effective_order, self.max_ngram_order)

    def _check_tokenized(self, hyps: list) -> None:
        # sacrebleu's hint that a detokenized input was expected.
        if not self._force and sum(h.endswith(" .") for h in hyps) >= 100:
            logger.warning("BLEU: 100 or more hypotheses end in a tokenized period (' .'): the input looks "
                           "tokenized, which lowers BLEU; detokenize it, or pass force=True if it is not.")

    def sentence_score(self, hypothesis: str, references) -> BLEUScore:
        if not self.effective_order:
            logger.warning("BLEU: effective_order is off; sentence-level BLEU is meant to be scored with "
                           "effective_order=True.")
        return super().sentence_score(hypothesis, references)
