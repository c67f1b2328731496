"""The one result type every metric and every entry point returns, and the signature
that makes a number reproducible."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

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
    """Scores of n responses.

    A single metric: ``sentences`` is an ndarray ([n], or [n, k] for BLEU-1..k) and
    ``corpus`` a float (or an ndarray[k]). A family or a table (AM-FM's ``am``/``fm``/
    ``amfm``, BERTScore's ``precision``/``recall``/``f1``, ``evaluate``'s columns):
    ``sentences`` maps column -> ndarray[n] and ``corpus`` column -> float; each column
    is also an attribute (``res.amfm``) and an item (``res["AM-FM"]``).
    ``signature`` records every setting that changes the numbers; ``extra`` holds a
    metric's supplementary outputs (e.g. BLEU's summable statistics).
    """

    name: str
    corpus: object
    sentences: object
    signature: str
    extra: dict = field(default_factory=dict)

    # --- columns of a family / table ------------------------------------------------
    @property
    def columns(self) -> tuple:
        """Column names of a family or table; ``(name,)`` for a single metric."""
        if isinstance(self.sentences, Mapping):
            return tuple(self.sentences)
        return (self.name,)

    def __getitem__(self, key: str):
        """A column's per-response scores; else an entry of ``extra`` (where metrics that
        returned dicts before keep their old keys, e.g. Distinct-n's ``"distinct_2"``)."""
        if isinstance(self.sentences, Mapping) and key in self.sentences:
            return self.sentences[key]
        if key == self.name and not isinstance(self.sentences, Mapping):
            return self.sentences
        if key in self.extra:
            return self.extra[key]
        raise KeyError(f"{self.name} has no column {key!r}; columns: {list(self.columns)}")

    def __iter__(self):
        """The column names, as a mapping (or a DataFrame) iterates."""
        return iter(self.columns)

    def __contains__(self, key) -> bool:
        return key in self.columns or key in self.extra

    def __getattr__(self, attribute: str):
        # Only reached for names that are not fields: a family's columns by attribute
        # (``res.am``), matched case-insensitively with '-' read as '_' (``AM-FM`` -> amfm).
        sentences = self.__dict__.get("sentences")
        if isinstance(sentences, Mapping) and not attribute.startswith("__"):
            wanted = attribute.lower()
            for column, values in sentences.items():
                if column.lower().replace("-", "") == wanted.replace("_", "") or column.lower() == wanted:
                    return values
        raise AttributeError(f"{type(self).__name__} {self.__dict__.get('name')!r} has no attribute {attribute!r}")

    def __len__(self) -> int:
        if isinstance(self.sentences, Mapping):
            return len(next(iter(self.sentences.values()))) if self.sentences else 0
        return len(self.sentences)

    def __float__(self) -> float:
        if isinstance(self.corpus, Mapping):
            if len(self.corpus) != 1:
                raise TypeError(f"{self.name} has {len(self.corpus)} corpus scores; pick one: {list(self.corpus)}")
            return float(next(iter(self.corpus.values())))
        if isinstance(self.corpus, np.ndarray):
            return float(self.corpus[-1])
        return float(self.corpus)

    # --- conversions --------------------------------------------------------------
    def to_dict(self) -> dict:
        """``{column: ndarray[n]}`` (an [n, k] metric gives one column per k)."""
        if isinstance(self.sentences, Mapping):
            return dict(self.sentences)
        values = np.asarray(self.sentences)
        if values.ndim == 2:
            return {f"{self.name}_{k + 1}": values[:, k] for k in range(values.shape[1])}
        return {self.name: values}

    def to_frame(self):
        """The per-response scores as a pandas DataFrame (needs pandas)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("MetricResult.to_frame() needs pandas: pip install '.[analysis]' in the fastamfm "
                              "checkout") from None
        return pd.DataFrame(self.to_dict())

    def __repr__(self) -> str:
        corpus = self.corpus
        if isinstance(corpus, Mapping):
            text = ", ".join(f"{k}={v:.6f}" for k, v in corpus.items())
        elif isinstance(corpus, np.ndarray):
            text = np.array2string(corpus, precision=6)
        else:
            text = f"{corpus:.6f}"
        return f"MetricResult({self.name}: corpus={text}, n={len(self)}, {self.signature})"
