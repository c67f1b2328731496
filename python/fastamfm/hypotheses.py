"""``Hypotheses``: the responses of one call, validated once, with what metrics derive
from them (tokens under each tokenizer, n-gram counts, projections) built on first use
and shared by every metric of the call."""
from __future__ import annotations

from . import _core
from ._derived import DerivedState
from ._validation import as_text_list, check_workers
from .tokenization import make_tokenizer, prepare_texts


class Hypotheses(DerivedState):
    """n responses.

    The texts are checked once (a non-empty sequence of str). Each metric asks for
    the encoding it needs with :meth:`encoded` (tokens and n-gram counts under one
    tokenizer, built once per tokenizer) or for other per-response state with
    :meth:`derived`; nothing is re-tokenized within one call, whatever the number of
    metrics. ``tokenize``/``lowercase``/``max_order`` name the encoding built up front
    (``.encoded_default``), for code that scores BLEU, ROUGE-L, CIDEr and Distinct-n on
    the same responses several times.

    Parameters
    ----------
    hyps : sequence of str
        The n responses (at least one). Each item is checked to be a str when it is first
        encoded (at construction with ``tokenize=``).
    tokenize : str, optional
        A tokenizer preset to encode with now (``fastamfm.TOKENIZER_PRESETS``); None: nothing up front.
    lowercase : bool, default False
        Lowercase in that encoding.
    max_order : int, default 4
        The n-gram orders counted in that encoding.
    workers : int, default -1
        Threads (-1: every core).
    what : str, default "hyps"
        The name errors use.

    Raises
    ------
    ValueError
        ``hyps`` empty, an unknown ``tokenize``, a bad ``workers``.
    TypeError
        ``hyps`` a single string or not iterable; an item that is not a str (or UTF-8 bytes).

    Examples
    --------
    >>> import fastamfm
    >>> hyps = fastamfm.Hypotheses(["the cat sat on the mat", "a dog ran"], tokenize="whitespace")
    >>> len(hyps), hyps[1], hyps.tokens(1)
    (2, 'a dog ran', ['a', 'dog', 'ran'])
    >>> refs = [["the cat sat on a mat", "a cat was on the mat"], ["the dog ran away"]]
    >>> round(fastamfm.bleu(hyps, refs).corpus["Bleu_4"], 6), round(fastamfm.cider(hyps, refs).corpus["CIDEr"], 6)
    (0.540729, 3.605474)
    """

    def __init__(self, hyps, *, tokenize: str | None = None, lowercase: bool = False, max_order: int = 4,
                 workers: int = -1, what: str = "hyps"):
        check_workers(workers, what)
        self._texts = as_text_list(hyps, what)
        if not set(map(type, self._texts)) <= {str, bytes}:   # one C-speed pass; the loop names the item
            bad = next((i for i, t in enumerate(self._texts) if not isinstance(t, (str, bytes))), None)
            if bad is not None:                                  # (subclasses of str, e.g. numpy.str_, pass)
                raise TypeError(f"{what}[{bad}] is {type(self._texts[bad]).__name__}, expected str")
        self._what = what
        self._workers = workers
        self._init_derived()
        self._wanted_orders: dict = {}   # tokenizer description -> largest order announced by reserve()
        self._default = None
        if tokenize is not None:
            self._default = make_tokenizer(tokenize, lowercase)
            self.encoded(self._default, max_order)

    @classmethod
    def of(cls, hyps, what: str = "hyps", workers: int = -1) -> "Hypotheses":
        """``hyps`` itself when it already is a ``Hypotheses``, else the checked texts."""
        return hyps if isinstance(hyps, Hypotheses) else cls(hyps, workers=workers, what=what)

    # --- what it holds -------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._texts)

    def __getitem__(self, i: int) -> str:
        return self._texts[i]

    def __repr__(self) -> str:
        return f"Hypotheses({len(self)} responses, encoded with {self._encoded_with()})"

    @property
    def texts(self) -> list:
        return self._texts

    # --- derived state ---------------------------------------------------------------
    def reserve(self, tokenizer, max_order: int) -> None:
        """Announce that a metric will ask for n-grams up to ``max_order`` under
        ``tokenizer``, so the first encoding counts them all at once."""
        key = make_tokenizer(tokenizer).describe()
        self._wanted_orders[key] = max(self._wanted_orders.get(key, 0), max_order)

    def encoded(self, tokenizer, max_order: int = 0) -> _core.EncodedHypotheses:
        """Tokens (and n-gram counts up to ``max_order``) under ``tokenizer``, built once."""
        def encode(tokenizer, order):
            order = max(order, self._wanted_orders.get(tokenizer.describe(), 0))
            texts = prepare_texts(self._texts, tokenizer, self._what)
            return _core.EncodedHypotheses(texts, tokenizer, order, self._workers)

        return self._encoding(tokenizer, max_order, encode)

    # --- the encoding named at construction -------------------------------------------
    @property
    def encoded_default(self) -> _core.EncodedHypotheses:
        if self._default is None:
            raise AttributeError("these Hypotheses were built without tokenize=; use encoded(tokenizer, max_order)")
        return self._encodings[self._default.describe()]

    def tokens(self, i: int, tokenizer="whitespace") -> list[str]:
        """The tokens of response ``i`` under ``tokenizer``."""
        return self.encoded(tokenizer).tokens(i)
