"""Tokenizer presets shared by every metric.

``whitespace``  split on whitespace exactly as Python's ``str.split()`` (nlg-eval and
                pycocoevalcap); ``lowercase=True`` lowercases first.
``amfm``        the AM-FM toolkit's normalisation: NFKC, lowercase, punctuation removed
                except apostrophe, hyphen and ``%``, which become separate tokens.
``13a``, ``intl``, ``char``, ``zh``
                sacrebleu's BLEU tokenizers (its ``none`` is ``whitespace``).
``rouge``, ``rouge-stem``
                rouge-score's default tokenizer (lowercase, runs of a-z0-9), the second
                with NLTK's Porter stemmer on tokens longer than three characters.

The C++ core tokenizes ASCII text on its own. For a text with non-ASCII characters,
the steps that need the Unicode database (NFKC, full lowercasing, recognising
non-ASCII punctuation) run here with CPython's own tables before the text reaches
the core: carrying those tables in C++ would add megabytes and buy nothing on the
common ASCII path, and CPython's tables are the ones users' own Python code uses.
"""
from __future__ import annotations

import unicodedata

from . import _core
from ._validation import as_text_list

PRESETS = ("whitespace", "amfm", "13a", "intl", "char", "zh", "rouge", "rouge-stem")


def make_tokenizer(tokenize: str = "whitespace", lowercase: bool = False) -> _core.Tokenizer:
    if isinstance(tokenize, _core.Tokenizer):
        return tokenize
    if tokenize not in PRESETS:
        raise ValueError(f"tokenize must be one of {PRESETS}, got {tokenize!r}")
    return _core.Tokenizer(tokenize, bool(lowercase))


def _unicode_amfm(text: str) -> str:
    # Punctuation (ASCII and not) is left to the core, which applies the keep/split rules.
    return unicodedata.normalize("NFKC", text).lower()


# Joins a batch so the Unicode steps run once over it: no step changes or creates it.
_SEPARATOR = "\x00"


def prepare_texts(texts: list, tokenizer: _core.Tokenizer, name: str = "texts") -> list:
    """Apply the Unicode-database steps of the preset to the texts (ASCII text needs none)."""
    needs_unicode = tokenizer.preset == "amfm" or tokenizer.lowercase
    if not needs_unicode:
        return texts
    step = _unicode_amfm if tokenizer.preset == "amfm" else str.lower
    # Fast path, C-level passes over the whole batch: a list of str that is all ASCII
    # needs nothing; otherwise the steps run once over the joined non-ASCII texts. (join
    # raises TypeError on a non-str item; the loop below then names it.)
    try:
        joined = "".join(texts)
    except TypeError:
        joined = None
    if joined is not None:
        if joined.isascii():
            return texts
        wide = [i for i, text in enumerate(texts) if not text.isascii()]
        batch = _SEPARATOR.join(texts[i] for i in wide)
        if batch.count(_SEPARATOR) == len(wide) - 1:
            out = list(texts)
            for i, text in zip(wide, step(batch).split(_SEPARATOR)):
                out[i] = text
            return out
    out = []
    for i, text in enumerate(texts):
        if isinstance(text, bytes):
            try:
                text = text.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ValueError(f"{name}[{i}]: invalid UTF-8 at byte {exc.start}") from None
        elif not isinstance(text, str):
            raise TypeError(f"{name}[{i}] is {type(text).__name__}, expected str")
        out.append(text if text.isascii() else step(text))
    return out


def tokenize(texts, *, preset: str = "whitespace", lowercase: bool = False, workers: int = -1) -> list[list[str]]:
    """Tokenize a batch of texts with a preset; returns one token list per text.

    The presets are the tokenizers the metrics take as ``tokenize=``: what a metric sees.

    Parameters
    ----------
    texts : sequence of str
        The texts (may be empty).
    preset : str, default "whitespace"
        One of ``fastamfm.TOKENIZER_PRESETS``: "whitespace" (``str.split``), "amfm" (the
        AM-FM toolkit's normalisation), sacrebleu's "13a", "intl", "char" and "zh",
        rouge-score's "rouge" and "rouge-stem" (Porter stems).
    lowercase : bool, default False
        Lowercase first.
    workers : int, default -1
        Threads (-1: every core).

    Returns
    -------
    list of list of str
        The tokens of each text.

    Raises
    ------
    ValueError
        An unknown ``preset``.
    TypeError
        ``texts`` a single string, or an item that is not a str.

    Examples
    --------
    >>> import fastamfm
    >>> fastamfm.tokenize(["Hello, World! It's 3.5 cats."])
    [['Hello,', 'World!', "It's", '3.5', 'cats.']]
    >>> fastamfm.tokenize(["Hello, World! It's 3.5 cats."], preset="13a")
    [['Hello', ',', 'World', '!', "It's", '3.5', 'cats', '.']]
    >>> fastamfm.tokenize(["Hello, World! It's 3.5 cats."], preset="rouge-stem")
    [['hello', 'world', 'it', 's', '3', '5', 'cat']]
    """
    tok = make_tokenizer(preset, lowercase)
    texts = as_text_list(texts, "texts", allow_empty=True)
    return tok.tokenize_batch(prepare_texts(texts, tok), workers)
