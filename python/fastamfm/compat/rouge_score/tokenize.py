"""rouge-score's ``tokenize(text, stemmer)``: lowercase, runs of a-z and 0-9, each token
longer than three characters replaced by ``stemmer.stem(token)`` when a stemmer is given
(tokens the stemmer turns into something other than a-z0-9 are dropped)."""
from __future__ import annotations

import re

from .tokenizers import DefaultTokenizer

_VALID_TOKEN = re.compile(r"[a-z0-9]+")
_UNSTEMMED = DefaultTokenizer(use_stemmer=False)


def tokenize(text: str, stemmer=None) -> list:
    """The tokens of ``text``; ``stemmer``: any object with ``stem(word)`` (NLTK's
    ``PorterStemmer()`` as rouge-score uses), or None.

    >>> tokenize("one Two three", None)
    ['one', 'two', 'three']
    """
    tokens = _UNSTEMMED.tokenize(text)
    if stemmer is None:
        return tokens
    stemmed = (stemmer.stem(t) if len(t) > 3 else t for t in tokens)
    return [t for t in stemmed if _VALID_TOKEN.fullmatch(t)]
