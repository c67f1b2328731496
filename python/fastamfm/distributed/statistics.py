"""Moving metric statistics between processes and to disk.

Statistics cross process boundaries as task results and arguments (per-partition
statistics, their sums, CIDEr's document frequencies sent to every worker). Some hold
C++ objects that pickle cannot copy (``DocumentFrequencies`` wraps a
``_core.DocumentFrequency``), so every ``Statistics`` class pickles through the
protocol's own ``to_json``/``from_json``, registered with ``copyreg`` (the metrics'
modules stay as they are). ``to_json``/``from_json`` are exact (integer sums stay
ints), so a sum is the same whichever process computed it.

The reference statistics of a run are kept on disk (for resuming) in the same form,
with the class named: ``{metric: {"class": "module:qualname", "data": to_json}}``.
"""
from __future__ import annotations

import copyreg
import importlib
import inspect

from ..registry import Statistics


def _restore(cls, data):
    return cls.from_json(data)


def _reduce(statistics: Statistics):
    return _restore, (type(statistics), statistics.to_json())


def _concrete_subclasses(cls) -> list:
    out = []
    for sub in cls.__subclasses__():
        if not inspect.isabstract(sub):
            out.append(sub)
        out.extend(_concrete_subclasses(sub))
    return out


def register_pickling() -> None:
    """Pickle every ``Statistics`` class through ``to_json``/``from_json`` (idempotent;
    called again before each run, so metrics registered later are covered)."""
    for cls in _concrete_subclasses(Statistics):
        if copyreg.dispatch_table.get(cls) is not _reduce:
            copyreg.pickle(cls, _reduce)


def to_file_json(statistics: dict) -> dict:
    """{metric: Statistics} as json data that names each statistics class."""
    return {name: {"class": f"{type(s).__module__}:{type(s).__qualname__}", "data": s.to_json()}
            for name, s in statistics.items()}


def from_file_json(data: dict) -> dict:
    """The inverse of ``to_file_json``; only ``Statistics`` classes of fastamfm load."""
    out = {}
    for name, entry in data.items():
        module, _, qualname = entry["class"].partition(":")
        if not module.startswith("fastamfm."):
            raise ValueError(f"statistics of {name!r}: {entry['class']} is not a fastamfm class")
        cls = importlib.import_module(module)
        for part in qualname.split("."):
            cls = getattr(cls, part)
        if not (isinstance(cls, type) and issubclass(cls, Statistics)):
            raise ValueError(f"statistics of {name!r}: {entry['class']} is not a Statistics class")
        out[name] = cls.from_json(entry["data"])
    return out


register_pickling()
