"""Models loaded once per process: every metric, call and Dask task that asks for the same
model with the same settings gets the one object already in memory.

Loaded models are read-only (the neural ones serialize their own calls), so sharing them is
safe; what it saves is the second copy: ``followup`` and ``lm_judge`` in one ``evaluate``
each loaded the packaged LM (1.9 GB resident against 1.2 GB for one).
"""
from __future__ import annotations

import threading
from typing import Callable, Dict, Hashable, Generic, TypeVar

Model = TypeVar("Model")


class LoadedOnce(Generic[Model]):
    """The models of one kind, by the key of what was asked (the source and every setting)."""

    def __init__(self) -> None:
        self._models: Dict[Hashable, Model] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable, load: Callable[[], Model]) -> Model:
        """The model under ``key``, loaded by ``load()`` on the first request (under a lock:
        two threads asking at once load it once)."""
        with self._lock:
            if key not in self._models:
                self._models[key] = load()
            return self._models[key]

    def __len__(self) -> int:
        return len(self._models)
