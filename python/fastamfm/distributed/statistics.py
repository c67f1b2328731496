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

Pickle is for the Dask transport between the processes of one cluster only. The
reference statistics a run keeps on disk (for resuming) are a ``checked_file`` of
arrays and JSON (``write_statistics_file``/``read_statistics_file``): a file in a
shared output directory names no code, so whoever can write there runs nothing.
"""
from __future__ import annotations

import copyreg
import dataclasses
import functools
import inspect
import operator
from typing import Any

import numpy as np

from .. import _core
from ..errors import format_error
from ..io.checked_file import read_checked_file, write_checked_file
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


# --- the reference statistics of a run, on disk ------------------------------------------

FILE_MAGIC = b"FASTAMFM-REFSTAT"
FILE_VERSION = 1


def write_statistics_file(path, statistics: dict, run: str) -> None:
    """Write ``statistics`` ({metric: Statistics}) of the run ``run`` (a digest of its
    identity) as a ``checked_file``: document frequencies as their key and count arrays,
    any other statistics as their ``to_json`` and exact class name."""
    header: dict[str, Any] = {"run": run, "metrics": {}}
    arrays: dict[str, np.ndarray] = {}
    for name, value in statistics.items():
        if isinstance(value, DocumentFrequencies):
            keys, counts = value.table.entries()
            header["metrics"][name] = {"kind": "document_frequencies", "max_order": value.max_order,
                                       "tokenizer": [value.tokenizer.preset, value.tokenizer.lowercase],
                                       "segments": value.num_segments}
            arrays[f"{name}.keys"], arrays[f"{name}.counts"] = keys, counts
        else:
            header["metrics"][name] = {"kind": "json", "class": _class_name(type(value)), "data": value.to_json()}
    write_checked_file(path, FILE_MAGIC, FILE_VERSION, header, arrays)


def read_statistics_file(path, run: str) -> dict:
    """The statistics ``write_statistics_file`` wrote for the run ``run``. Nothing in the
    file names code: a class is one of the loaded ``Statistics`` classes, looked up by its
    exact name, and its values are checked; anything else is a ``FormatError``."""
    header, arrays = read_checked_file(path, FILE_MAGIC, FILE_VERSION, "reference statistics")
    if header.get("run") != run:
        raise format_error(path, f"written by another run ({header.get('run')!r}, this run is {run!r})")
    metrics = header.get("metrics")
    if not isinstance(metrics, dict) or set(arrays) - {f"{m}.{a}" for m in metrics for a in ("keys", "counts")}:
        raise format_error(path, "the header's metrics do not match its arrays")
    classes = {_class_name(c): c for c in _concrete_subclasses(Statistics)}
    out = {}
    for name, entry in metrics.items():
        try:
            if entry["kind"] == "document_frequencies":
                out[name] = _document_frequencies(entry, arrays[f"{name}.keys"], arrays[f"{name}.counts"])
            elif entry["kind"] == "json" and entry["class"] in classes:
                out[name] = classes[entry["class"]].from_json(entry["data"])
            else:
                raise ValueError(f"unknown kind of statistics {entry.get('kind')!r} / {entry.get('class')!r}")
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            raise format_error(path, f"statistics of {name!r}: {type(exc).__name__}: {exc}") from None
    return out


def _class_name(cls) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _document_frequencies(entry: dict, keys: np.ndarray, counts: np.ndarray) -> DocumentFrequencies:
    max_order, (preset, lowercase), segments = entry["max_order"], entry["tokenizer"], entry["segments"]
    if type(max_order) is not int or not 1 <= max_order <= _core.MAX_NGRAM_ORDER or type(lowercase) is not bool \
            or type(segments) is not int or segments < 0:
        raise ValueError(f"max_order {max_order!r}, lowercase {lowercase!r} or segments {segments!r} out of range")
    if keys.dtype != np.dtype("<u8") or counts.dtype != np.dtype("<u4") or keys.shape != counts.shape \
            or keys.ndim != 1:
        raise ValueError(f"keys {keys.dtype}{keys.shape} and counts {counts.dtype}{counts.shape} do not pair up")
    if len(counts) and (counts.min() < 1 or counts.max() > segments):
        raise ValueError(f"a document frequency outside 1..{segments} (the segments counted)")
    df = DocumentFrequencies(max_order=max_order, tokenize=preset, lowercase=lowercase)
    df.table.add_entries(keys, counts, segments)
    if df.table.num_ngrams != len(keys):
        raise ValueError(f"{len(keys) - df.table.num_ngrams} n-grams are listed twice")
    return df


register_pickling()
