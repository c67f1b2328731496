"""Moving metric statistics between processes and to disk, and adding many at once.

Statistics cross process boundaries as task results and arguments (per-partition
statistics, their sums, CIDEr's document frequencies sent to every worker). How each
kind pickles is registered with ``copyreg`` here (the metrics' modules stay as they are):

- dataclass statistics (means, BLEU, METEOR, Distinct-n) hold plain numbers, tuples and
  arrays: they pickle as they are;
- ``DocumentFrequencies`` wraps a ``_core.DocumentFrequency`` that pickle cannot copy:
  it travels as its table's key and count arrays (its ``to_json`` would base64 them,
  and a corpus's table is hundreds of MB);
- any other ``Statistics`` class through the protocol's ``to_json``/``from_json``.

All three are exact, so a sum is the same whichever process computed it.

The reference statistics of a run are kept on disk (for resuming) in the same pickled
form (``dumps``/``loads``; loading accepts fastamfm's and numpy's classes only).
"""
from __future__ import annotations

import copyreg
import dataclasses
import functools
import inspect
import io
import operator
import pickle

from ..metrics import DocumentFrequencies
from ..registry import Statistics


def _restore(cls, data):
    return cls.from_json(data)


def _reduce(statistics: Statistics):
    return _restore, (type(statistics), statistics.to_json())


def _restore_document_frequencies(max_order, preset, lowercase, keys, counts, segments):
    df = DocumentFrequencies(max_order=max_order, tokenize=preset, lowercase=lowercase)
    df.table.add_entries(keys, counts, segments)
    return df


def _reduce_document_frequencies(df: DocumentFrequencies):
    keys, counts = df.table.entries()
    return _restore_document_frequencies, (df.max_order, df.tokenizer.preset, df.tokenizer.lowercase, keys, counts,
                                           df.num_segments)


def _concrete_subclasses(cls) -> list:
    out = []
    for sub in cls.__subclasses__():
        if not inspect.isabstract(sub):
            out.append(sub)
        out.extend(_concrete_subclasses(sub))
    return out


def register_pickling() -> None:
    """Register how every ``Statistics`` class pickles (idempotent; called again before
    each run, so metrics registered later are covered)."""
    copyreg.pickle(DocumentFrequencies, _reduce_document_frequencies)
    for cls in _concrete_subclasses(Statistics):
        if cls is not DocumentFrequencies and not dataclasses.is_dataclass(cls):
            copyreg.pickle(cls, _reduce)


def add_all(parts: list) -> dict | None:
    """The sum of statistics dicts ({metric: Statistics}; None for a part without any,
    such as an empty partition's reference statistics), as ``Pipeline.add`` repeated, but
    document frequencies of many parts go into one new table at once: each addition of
    two tables copies both, so a chain of them would copy the growing total each time."""
    parts = [p for p in parts if p is not None]
    if len(parts) <= 1:
        return parts[0] if parts else None
    out = {}
    for name in parts[0]:
        values = [p[name] for p in parts]
        first = values[0]
        if isinstance(first, DocumentFrequencies) and all(
                isinstance(v, DocumentFrequencies) and v.max_order == first.max_order
                and v.tokenizer.describe() == first.tokenizer.describe() for v in values):
            total = DocumentFrequencies(max_order=first.max_order, tokenize=first.tokenizer.preset,
                                        lowercase=first.tokenizer.lowercase)
            for v in values:
                keys, counts = v.table.entries()
                total.table.add_entries(keys, counts, v.num_segments)
            out[name] = total
        else:
            out[name] = functools.reduce(operator.add, values)
    return out


def dumps(statistics) -> bytes:
    """Statistics (any structure of them) as bytes for a file: the pickles registered above."""
    register_pickling()
    return pickle.dumps(statistics, protocol=5)


class _StatisticsUnpickler(pickle.Unpickler):
    """Loads only what ``dumps`` writes: fastamfm's statistics and numpy arrays."""

    def find_class(self, module: str, name: str):
        if module.startswith("fastamfm.") or module == "numpy" or module.startswith("numpy."):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name}: not a fastamfm statistics class; refusing to load it")


def loads(data: bytes):
    return _StatisticsUnpickler(io.BytesIO(data)).load()


register_pickling()
