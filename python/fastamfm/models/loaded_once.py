"""Models loaded once per process: every metric, call and Dask task that asks for the same
model with the same settings gets the one object already in memory.

Loaded models are read-only (the neural ones serialize their own calls), so sharing them is
safe; what it saves is the second copy: ``followup`` and ``lm_judge`` in one ``evaluate``
each loaded the packaged LM (1.9 GB resident against 1.2 GB for one). What is kept is
bounded (``LoadedOnce.capacity`` models of a kind, eight by default), so that callers asking for
ever other settings cannot grow the process without bound.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, Generic, Hashable, TypeVar

Model = TypeVar("Model")


class LoadedOnce(Generic[Model]):
    """The models of one kind, by the key of what was asked (the source and every setting).

    At most ``capacity`` are kept, the least recently asked for out first: a process whose
    callers ask for ever other settings (a server's clients, a sweep) must not hold ever
    more models. A metric that holds an evicted model keeps it until the metric goes; the
    next ask for that key loads it again."""

    def __init__(self, capacity: int = 8) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, got {capacity}")
        self.capacity = capacity
        self._models: OrderedDict[Hashable, Model] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, load: Callable[[], Model]) -> Model:
        """The model under ``key``, loaded by ``load()`` on the first request (under a lock:
        two threads asking at once load it once)."""
        with self._lock:
            if key not in self._models:
                self._models[key] = load()
                while len(self._models) > self.capacity:
                    self._models.popitem(last=False)
            self._models.move_to_end(key)
            return self._models[key]

    def __len__(self) -> int:
        return len(self._models)
