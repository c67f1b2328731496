"""rouge-score's tokenizer classes; ``DefaultTokenizer`` is fastamfm's rouge-score
tokenizer (lowercase, runs of a-z0-9, optionally NLTK's Porter stemmer on tokens longer
than three characters), which ``RougeScorer`` runs in the core."""
from __future__ import annotations

import abc

from ...metrics.rouge_score import rouge_tokenizer
from ...tokenization import prepare_texts


class Tokenizer(abc.ABC):
    """A tokenizer ``RougeScorer`` accepts: ``tokenize(text) -> list of tokens``."""

    @abc.abstractmethod
    def tokenize(self, text: str) -> list:
        """The tokens of ``text``."""


class DefaultTokenizer(Tokenizer):
    """rouge-score's default tokenizer; ``use_stemmer``: Porter-stem tokens longer than
    three characters.

    >>> DefaultTokenizer(use_stemmer=True).tokenize("The friends had a meeting")
    ['the', 'friend', 'had', 'a', 'meet']
    """

    def __init__(self, use_stemmer: bool = False):
        self.use_stemmer = bool(use_stemmer)
        self.native = rouge_tokenizer(self.use_stemmer)

    def tokenize(self, text: str) -> list:
        return self.native.tokenize(prepare_texts([text], self.native, "text")[0])
