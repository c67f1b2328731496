"""rouge-score's ``RougeScorer`` on fastamfm's ROUGE (``fastamfm.metrics.rouge_score``):
rougeN (N = 1..9) from n-gram overlap, rougeL from the longest common subsequence,
rougeLsum from the union LCS of the summaries' sentences (one a line), precision,
recall and F1 each, computed in the C++ core.

What the core is given depends on the tokenizer:

- rouge-score's own (the default, or a ``tokenizers.DefaultTokenizer``): the texts,
  tokenized by the core exactly as rouge-score does;
- any other object with ``tokenize(text)``: its tokens, written as words the core reads
  back one for one (each distinct token becomes ``w<number>``), so the core compares the
  very tokens that tokenizer made.

rougeLsum splits summaries into sentences at newlines, or with NLTK's punkt model when
``split_summaries=True`` (NLTK and its punkt data must then be installed).
"""
from __future__ import annotations

from ...metrics.rouge_score import RougeScore, type_code
from . import scoring, tokenizers

SUMMARY_TYPE = "rougeLsum"


def _text(value, what: str) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if not isinstance(value, str):
        raise TypeError(f"RougeScorer: {what} must be a string, got {type(value).__name__}")
    return value


def punkt_sentences(text: str) -> list:
    """The sentences of ``text`` by NLTK's punkt model (rouge-score's ``split_summaries``)."""
    try:
        import nltk
    except ImportError as exc:
        raise ImportError("RougeScorer(split_summaries=True) splits sentences with NLTK, which is not installed "
                          "(pip install nltk)") from exc
    try:
        return nltk.sent_tokenize(text)
    except LookupError as exc:
        raise LookupError("RougeScorer(split_summaries=True) needs NLTK's punkt sentence model: run "
                          "nltk.download('punkt_tab') (or put one sentence a line and keep split_summaries=False)"
                          ) from exc


class _TokenWords:
    """Writes a foreign tokenizer's tokens as words the core's rouge tokenizer reads back
    unchanged: the same token always gets the same word within one call."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer
        self.words = {}

    def __call__(self, text: str) -> str:
        return " ".join(self.words.setdefault(t, f"w{len(self.words)}") for t in self.tokenizer.tokenize(text))


class RougeScorer(scoring.BaseScorer):
    """rouge-score's scorer.

    ``rouge_types``: any of "rouge1".."rouge9", "rougeL", "rougeLsum" (an unknown type is
    a ValueError here, at construction); ``use_stemmer``: NLTK's Porter stemmer on tokens
    longer than three characters (for the default tokenizer); ``split_summaries``:
    rougeLsum's sentences by NLTK's punkt instead of newlines; ``tokenizer``: an object
    with ``tokenize(text) -> tokens`` replacing the default one.

    >>> scorer = RougeScorer(["rouge1", "rougeL"])
    >>> scorer.score("testing one two", "testing one")["rouge1"]
    Score(precision=1.0, recall=0.666..., fmeasure=0.8)
    """

    def __init__(self, rouge_types, use_stemmer: bool = False, split_summaries: bool = False, tokenizer=None):
        if isinstance(rouge_types, str):
            raise TypeError("RougeScorer: rouge_types must be a list of types, e.g. ['rouge1', 'rougeL']")
        self.rouge_types = rouge_types
        for rouge_type in rouge_types:
            type_code(rouge_type, "RougeScorer")
        self._tokenizer = tokenizer if tokenizer is not None else tokenizers.DefaultTokenizer(use_stemmer)
        self._split_summaries = split_summaries
        # The core tokenizes itself with rouge-score's rules; a foreign tokenizer's tokens
        # reach it as words those rules keep whole (no stemming then).
        self._own_tokens = isinstance(self._tokenizer, tokenizers.DefaultTokenizer)
        stem = self._own_tokens and self._tokenizer.use_stemmer
        groups = {"text": [t for t in rouge_types if t != SUMMARY_TYPE],
                  "sentences": [t for t in rouge_types if t == SUMMARY_TYPE]}
        self._metrics = {kind: RougeScore(rouge_types=types, use_stemmer=stem, workers=1)
                         for kind, types in groups.items() if types}

    def score(self, target: str, prediction: str) -> dict:
        """{rouge type: Score(precision, recall, fmeasure)} of ``prediction`` against ``target``."""
        return self.score_multi([target], prediction)

    def score_multi(self, targets, prediction: str) -> dict:
        """{rouge type: Score} of ``prediction`` against its best target: per type, the
        target with the highest F1 (the first of equals)."""
        targets = [_text(t, "each target") for t in targets]
        if not targets:
            raise ValueError("RougeScorer.score_multi: no target given")
        prediction = _text(prediction, "the prediction")
        result = {}
        for kind, metric in self._metrics.items():
            prepare = self._sentences_as_lines if kind == "sentences" else self._whole_text
            texts = prepare([prediction] + targets)
            columns = metric.score(texts[:1], [texts[1:]]).sentences
            for rouge_type in metric.rouge_types:
                result[rouge_type] = scoring.Score(float(columns[f"{rouge_type}_precision"][0]),
                                                   float(columns[f"{rouge_type}_recall"][0]),
                                                   float(columns[rouge_type][0]))
        return {rouge_type: result[rouge_type] for rouge_type in self.rouge_types}

    def _whole_text(self, texts: list) -> list:
        if self._own_tokens:
            return texts
        words = _TokenWords(self._tokenizer)
        return [words(t) for t in texts]

    def _sentences_as_lines(self, texts: list) -> list:
        """Each text with one sentence a line, as the core reads rougeLsum's summaries."""
        if self._own_tokens and not self._split_summaries:
            return texts
        words = None if self._own_tokens else _TokenWords(self._tokenizer)
        lines = []
        for text in texts:
            sentences = punkt_sentences(text) if self._split_summaries else text.split("\n")
            # A newline inside a punkt sentence is only a word separator, never a sentence break.
            sentences = [s.replace("\n", " ") if words is None else words(s) for s in sentences if s]
            lines.append("\n".join(sentences))
        return lines
