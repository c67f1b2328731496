"""The result forms before 0.2's one naming rule, readable for one more release.

Since 0.2 every result's ``corpus`` maps column -> float and ``sentences`` column ->
ndarray[n], under the column names ``evaluate`` uses (``Bleu_4``, ``ROUGE_L``, ``CIDEr``,
``sacreBLEU``, ``deep_amfm_am``...). Before, a single metric's function gave a float
corpus and an ndarray of sentences (``fastamfm.rouge_l(...).corpus > 0.5``), BLEU and
Distinct-n arrays with a column per order (``.corpus[3]``, ``.sentences[:, 3]``), and some
scorers other column names (``DeepAMFM.score(...)["am"]``, ``bertscore(...).f1``).

``CorpusScores`` and ``SentenceScores`` are the new mappings. Used the old way -- indexed by
position, as a number or an array, by an old column name -- they answer as before with a
``DeprecationWarning``; these forms are removed in 0.3 (docs/versioning.md).
"""
from __future__ import annotations

import numbers
import operator
import warnings
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

import numpy as np

REMOVED_IN = "0.3"


def warn_legacy(what: str, instead: str, stacklevel: int = 3) -> None:
    warnings.warn(f"{what} is the result form before 0.2; use {instead} (the old form is removed in {REMOVED_IN})",
                  DeprecationWarning, stacklevel=stacklevel)


class _Scores(dict, ABC):
    """A mapping of column -> scores that still reads old column names and the old value
    (``_legacy``: what the attribute held before 0.2), with a warning."""

    def __init__(self, columns: Mapping, renamed: Mapping[str, str], owner: str):
        super().__init__(columns)
        # set through object.__setattr__-free plain attributes: dict subclasses have a __dict__
        self._renamed = dict(renamed)
        self._owner = owner

    @abstractmethod
    def _legacy(self) -> Any:
        """What the attribute held before 0.2: a float, or an array."""

    @abstractmethod
    def _attribute(self) -> str:
        """The result attribute this mapping is (``corpus`` or ``sentences``), for messages."""

    def __getitem__(self, key):
        if isinstance(key, str):
            if dict.__contains__(self, key):
                return dict.__getitem__(self, key)
            new = self._renamed.get(key)
            if new is not None and dict.__contains__(self, new):
                warn_legacy(f"{self._owner}.{self._attribute()}[{key!r}]", f"[{new!r}]")
                return dict.__getitem__(self, new)
            raise KeyError(f"{self._owner} has no column {key!r}; columns: {list(self)}")
        warn_legacy(f"{self._owner}.{self._attribute()}[{key!r}] (by position)",
                    f".{self._attribute()}[column] with a column of {list(self)}")
        return self._legacy()[key]

    def __contains__(self, key) -> bool:
        return dict.__contains__(self, key) or (key in self._renamed and dict.__contains__(self, self._renamed[key]))

    def get(self, key, default=None):
        return self[key] if key in self else default

    def __array__(self, dtype=None, copy=None):
        warn_legacy(f"{self._owner}.{self._attribute()} as an array", f".{self._attribute()}[column]")
        values = np.asarray(self._legacy())
        return values.astype(dtype) if dtype is not None else values

    def __float__(self) -> float:
        warn_legacy(f"{self._owner}.{self._attribute()} as a number", f".{self._attribute()}[column]")
        return float(self._legacy())

    def __format__(self, spec: str) -> str:
        if not spec:
            return dict.__repr__(self)
        warn_legacy(f"{self._owner}.{self._attribute()} formatted as a number", f".{self._attribute()}[column]")
        return format(self._legacy(), spec)

    def __round__(self, digits=None):
        warn_legacy(f"round({self._owner}.{self._attribute()})", f".{self._attribute()}[column]")
        return round(self._legacy(), digits)

    def __eq__(self, other):
        if isinstance(other, Mapping):
            return dict.__eq__(self, other)
        if not isinstance(other, (numbers.Number, np.ndarray, np.generic, list, tuple)):
            # another type's own comparison decides (pytest.approx of a mapping, of a number)
            return NotImplemented
        warn_legacy(f"{self._owner}.{self._attribute()} compared as a number", f".{self._attribute()}[column]")
        return self._legacy() == other

    def __ne__(self, other):
        result = self.__eq__(other)
        if result is NotImplemented:
            return result
        return not result if isinstance(result, bool) else ~result

    __hash__ = None  # type: ignore[assignment]   # a mapping, as dict is

    def __getattr__(self, name: str):
        # Only reached for what a dict has not: ndarray methods the old value had (.mean(), .shape).
        if name.startswith("_"):
            raise AttributeError(name)
        legacy = self._legacy()
        if not hasattr(legacy, name):
            raise AttributeError(f"{type(self).__name__} of {self._owner} has no attribute {name!r}")
        warn_legacy(f"{self._owner}.{self._attribute()}.{name}", f".{self._attribute()}[column].{name}")
        return getattr(legacy, name)


def _numeric(op, reflected: bool = False):
    def apply(self, other):
        warn_legacy(f"{self._owner}.{self._attribute()} in arithmetic", f".{self._attribute()}[column]")
        legacy = self._legacy()
        return op(other, legacy) if reflected else op(legacy, other)
    return apply


def _unary(op):
    def apply(self):
        warn_legacy(f"{self._owner}.{self._attribute()} in arithmetic", f".{self._attribute()}[column]")
        return op(self._legacy())
    return apply


for _name, _binary in (("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
                       ("truediv", operator.truediv), ("pow", operator.pow)):
    setattr(_Scores, f"__{_name}__", _numeric(_binary))
    setattr(_Scores, f"__r{_name}__", _numeric(_binary, reflected=True))
for _name, _binary in (("lt", operator.lt), ("le", operator.le), ("gt", operator.gt), ("ge", operator.ge)):
    setattr(_Scores, f"__{_name}__", _numeric(_binary))
for _name, _single in (("neg", operator.neg), ("abs", operator.abs)):
    setattr(_Scores, f"__{_name}__", _unary(_single))
# ``dict | dict`` merges: a mapping keeps that meaning, so no __or__ here.


class CorpusScores(_Scores):
    """``MetricResult.corpus``: column -> corpus score (see the module docstring)."""

    def _attribute(self) -> str:
        return "corpus"

    def _legacy(self):
        values = [float(v) for v in dict.values(self)]
        return values[0] if len(values) == 1 else np.array(values)


class SentenceScores(_Scores):
    """``MetricResult.sentences``: column -> ndarray[n] (see the module docstring)."""

    def _attribute(self) -> str:
        return "sentences"

    def _legacy(self):
        columns = [np.asarray(v) for v in dict.values(self)]
        return columns[0] if len(columns) == 1 else np.column_stack(columns)
