"""The one result type every metric and every entry point returns, and the signature
that makes a number reproducible."""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from ._legacy_scores import CorpusScores, SentenceScores, warn_legacy
from ._version import __version__


def make_signature(metric: str, **settings) -> str:
    """``"bleu|max_order=4|ref_len=closest|tok=whitespace|version=0.1.0"``.

    Records every setting that changes the number (sorted by name), in the spirit
    of sacrebleu's signatures, so a reported score can be reproduced.
    """
    parts = [metric] + [f"{k}={settings[k]}" for k in sorted(settings)] + [f"version={__version__}"]
    return "|".join(parts)


@dataclass(frozen=True)
class MetricResult:
    """Scores of n responses, by column.

    ``sentences`` maps column -> ndarray[n] and ``corpus`` column -> corpus score, under
    the column names every entry point uses (the function of a metric, ``evaluate``, the
    CLI, the integrations): ``fastamfm.bleu(...).corpus["Bleu_4"]``, ``res.sentences
    ["ROUGE_L"]``; ``fastamfm.registry.names()`` and ``python -m fastamfm metrics`` list
    them. Each column is also an item (``res["AM-FM"]``) and an attribute (``res.amfm``:
    case-insensitive, '-' read as '_'); ``float(res)`` is the corpus score of a
    one-column result. ``name`` is the metric's registry name (or the table's),
    ``signature`` records every setting that changes the numbers, ``extra`` holds a
    metric's supplementary outputs (e.g. BLEU's summable statistics).

    ``renamed``: {column name before 0.2: column}, still readable (with a
    ``DeprecationWarning``) for one release, as are the 0.1 forms of ``corpus`` (a float
    or an array) and ``sentences`` (an ndarray): see ``fastamfm._legacy_scores``.

    Parameters
    ----------
    name : str
        The metric's registry name (or the table's).
    corpus : mapping of str to float
        Column -> corpus score.
    sentences : mapping of str to numpy.ndarray
        Column -> per-response scores [n].
    signature : str
        Every setting that changes the numbers (``make_signature``).
    extra : dict, optional
        The metric's supplementary outputs.
    renamed : mapping of str to str, optional
        Column names before 0.2 -> columns.

    Raises
    ------
    KeyError
        ``res[key]`` for a key that is neither a column nor in ``extra``.
    AttributeError
        ``res.name_of_no_column``.
    TypeError
        ``float(res)`` of a result with more than one column.

    Examples
    --------
    >>> import fastamfm
    >>> res = fastamfm.rouge_l(["the cat sat on the mat", "a dog ran"], [["the cat sat on a mat"], ["the dog ran away"]])
    >>> res.name, res.columns, len(res)
    ('rouge_l', ('ROUGE_L',), 2)
    >>> res["ROUGE_L"].round(6).tolist(), res.rouge_l.round(6).tolist()
    ([0.833333, 0.557078], [0.833333, 0.557078])
    >>> round(res.corpus["ROUGE_L"], 6), round(float(res), 6)
    (0.695205, 0.695205)
    """

    name: str
    corpus: Mapping[str, float]
    sentences: Mapping[str, np.ndarray]
    signature: str
    extra: dict[str, Any] = field(default_factory=dict)
    renamed: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self):
        renamed = dict(self.renamed)
        sentences, corpus = self.sentences, self.corpus
        # A result built the 0.1 way (a float or array corpus, ndarray sentences: a third-party
        # metric's own result()) becomes columns named after the metric.
        if not isinstance(sentences, Mapping):
            values = np.asarray(sentences)
            if values.ndim == 2:
                sentences = {f"{self.name}_{k + 1}": values[:, k] for k in range(values.shape[1])}
            else:
                sentences = {self.name: values}
        if not isinstance(corpus, Mapping):
            scores = np.atleast_1d(np.asarray(corpus, dtype=np.float64))
            corpus = {column: float(v) for column, v in zip(sentences, scores)}
        object.__setattr__(self, "renamed", renamed)
        object.__setattr__(self, "sentences", SentenceScores(sentences, renamed, self.name))
        object.__setattr__(self, "corpus", CorpusScores(corpus, renamed, self.name))

    # --- columns --------------------------------------------------------------------
    @property
    def _stored_sentences(self) -> SentenceScores:
        # What __post_init__ stored, read past its own lookups (which warn for the 0.1 forms).
        return cast(SentenceScores, self.sentences)

    @property
    def columns(self) -> tuple[str, ...]:
        """The column names, in order."""
        return tuple(self.sentences)

    def __getitem__(self, key: str) -> Any:
        """A column's per-response scores; else an entry of ``extra`` (where metrics that
        returned dicts before keep their old keys, e.g. Distinct-n's ``"distinct_2"``)."""
        stored = self._stored_sentences
        if dict.__contains__(stored, key):
            return dict.__getitem__(stored, key)
        if key in self.renamed and key not in self.extra:
            warn_legacy(f"{self.name}[{key!r}]", f"[{self.renamed[key]!r}]")
            return dict.__getitem__(stored, self.renamed[key])
        if key in self.extra:
            return self.extra[key]
        if key == self.name:
            warn_legacy(f"{self.name}[{key!r}] (the metric's name as a column)",
                        f"a column of {list(self.columns)}")
            return stored._legacy()
        raise KeyError(f"{self.name} has no column {key!r}; columns: {list(self.columns)}")

    def __iter__(self) -> Iterator[str]:
        """The column names, as a mapping (or a DataFrame) iterates."""
        return iter(self.columns)

    def __contains__(self, key) -> bool:
        return key in self.sentences or key in self.extra

    def __getattr__(self, attribute: str) -> Any:
        # Only reached for names that are not fields: a column by attribute (``res.amfm``),
        # matched case-insensitively with '-' read as '_' (``AM-FM`` -> amfm).
        sentences = self.__dict__.get("sentences")
        if isinstance(sentences, Mapping) and not attribute.startswith("__"):
            wanted = attribute.lower()
            for column in sentences:
                if column.lower().replace("-", "") == wanted.replace("_", "") or column.lower() == wanted:
                    return sentences[column]
            renamed = self.__dict__.get("renamed", {})
            if renamed.get(attribute) in sentences:
                warn_legacy(f"{self.__dict__.get('name')}.{attribute}", f"[{renamed[attribute]!r}]")
                return dict.__getitem__(cast(SentenceScores, sentences), renamed[attribute])
        raise AttributeError(f"{type(self).__name__} {self.__dict__.get('name')!r} has no attribute {attribute!r}")

    def __len__(self) -> int:
        """The number of responses."""
        return len(next(iter(self.sentences.values()))) if self.sentences else 0

    def __float__(self) -> float:
        if len(self.corpus) != 1:
            raise TypeError(f"{self.name} has {len(self.corpus)} corpus scores; pick one: {list(self.corpus)}")
        return float(next(iter(self.corpus.values())))

    # --- conversions --------------------------------------------------------------
    def to_dict(self) -> dict[str, np.ndarray]:
        """``{column: ndarray[n]}``."""
        return dict(self.sentences)

    def to_frame(self):
        """The per-response scores as a pandas DataFrame (needs pandas)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("MetricResult.to_frame() needs pandas: pip install '.[analysis]' in the fastamfm "
                              "checkout") from None
        return pd.DataFrame(self.to_dict())

    def __repr__(self) -> str:
        text = ", ".join(f"{k}={v:.6f}" for k, v in self.corpus.items())
        return f"MetricResult({self.name}: corpus={text}, n={len(self)}, {self.signature})"
