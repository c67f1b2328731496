"""Per-worker state: models loaded once per worker, and the pipelines built from them.

``WorkerModels`` is a Dask ``WorkerPlugin``: ``score``/``train`` register it on the
cluster (once; it is idempotent, so a long-lived cluster keeps its models across runs,
and workers that join or restart get it too). A task asks ``worker_models()`` for the
pipeline of its ``MetricSpec``; the first task of a worker builds it, loading each
model spec once (``loads`` counts the loads per spec), and later tasks reuse it. Both
caches keep the most recently used entries only, so a cluster scoring many models in
turn does not accumulate them.
"""
from __future__ import annotations

import json
import threading
from collections import Counter, OrderedDict
from typing import cast

from distributed import WorkerPlugin, get_worker

from .specs import MetricSpec, load_model

PLUGIN_NAME = "fastamfm-models"


class ReferenceTotals:
    """The reference statistics of a whole run (CIDEr's document frequencies), sent to
    the workers; ``token`` names them in the workers' pipeline cache."""

    def __init__(self, token: str, statistics: dict):
        self.token = token
        self.statistics = statistics


class WorkerModels(WorkerPlugin):
    """Models and pipelines of one worker process (see the module docstring)."""

    idempotent = True
    name = PLUGIN_NAME

    def __init__(self, capacity: int = 8):
        self.capacity = capacity
        self._reset()

    def _reset(self) -> None:
        self._models: OrderedDict = OrderedDict()
        self._pipelines: OrderedDict = OrderedDict()
        self.loads: Counter = Counter()    # (option, spec json) -> times loaded
        self.builds: Counter = Counter()   # (spec key, reference token) -> pipelines built
        self._lock = threading.RLock()

    # The plugin travels to the workers empty: what it caches is per process.
    def __getstate__(self) -> dict:
        return {"capacity": self.capacity}

    def __setstate__(self, state: dict) -> None:
        self.capacity = state["capacity"]
        self._reset()

    def teardown(self, worker) -> None:
        with self._lock:
            self._models.clear()
            self._pipelines.clear()

    def _cached(self, cache: OrderedDict, key, build):
        # One lock for the whole worker: a second thread asking for the same model
        # waits for the first load instead of loading it again.
        with self._lock:
            if key in cache:
                cache.move_to_end(key)
                return cache[key]
            value = build()
            cache[key] = value
            while len(cache) > self.capacity:
                cache.popitem(last=False)
            return value

    def model(self, option: str, spec):
        """The model ``spec`` names for ``option`` ("model", "vectors"), loaded once."""
        key = (option, json.dumps(spec, sort_keys=True))

        def load():
            self.loads[key] += 1
            return load_model(option, spec)

        return self._cached(self._models, key, load)

    def pipeline(self, spec: MetricSpec, reference: ReferenceTotals | None = None):
        """The pipeline of ``spec`` (configured with the run's reference statistics when
        given), with the warnings its construction gave."""
        def build():
            if reference is None:
                self.builds[(spec.key, None)] += 1
                return spec.build(self.model)
            base, warned = self.pipeline(spec)
            self.builds[(spec.key, reference.token)] += 1
            return base.with_reference_statistics(reference.statistics), warned

        return self._cached(self._pipelines, (spec.key, None if reference is None else reference.token), build)

    def forget(self, token: str) -> None:
        """Drop the pipelines configured with a finished run's reference statistics (CIDEr's
        corpus document frequencies can take a good part of a worker's memory)."""
        with self._lock:
            for key in [k for k in self._pipelines if k[1] == token]:
                del self._pipelines[key]

    def summary(self) -> dict:
        """What this worker loaded and built (for tests and diagnostics)."""
        with self._lock:
            return {"loads": {f"{o}:{s}": n for (o, s), n in self.loads.items()},
                    "builds": {f"{k}:{t}": n for (k, t), n in self.builds.items()},
                    "cached_with_references": sum(1 for _, token in self._pipelines if token is not None)}


_process_models: WorkerModels | None = None
_process_lock = threading.Lock()


def worker_models(worker=None) -> WorkerModels:
    """The ``WorkerModels`` of ``worker`` (default: the worker running the current task);
    outside a worker (or on one without the plugin) one instance per process."""
    global _process_models
    try:
        plugin = (worker or get_worker()).plugins.get(PLUGIN_NAME)
    except ValueError:  # not running in a Dask worker
        plugin = None
    if plugin is not None:
        return cast(WorkerModels, plugin)   # the plugin registered under PLUGIN_NAME
    with _process_lock:
        if _process_models is None:
            _process_models = WorkerModels()
        return _process_models


def forget_reference(token: str, dask_worker=None) -> None:
    """``WorkerModels.forget`` on every worker, through ``client.run`` (which passes
    ``dask_worker``: its functions run outside any task)."""
    worker_models(dask_worker).forget(token)


def register(client) -> None:
    """Put ``WorkerModels`` on every worker of ``client``'s cluster (a no-op when there)."""
    client.register_plugin(WorkerModels(), name=PLUGIN_NAME)
