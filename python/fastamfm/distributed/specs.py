"""What a worker needs to build the metric pipeline: metric names and options in which
models are named ("specs": a directory, a file, ``"default"``), never loaded objects.

Tasks carry a ``MetricSpec`` (a few hundred bytes); each worker resolves the model
specs through its ``WorkerModels`` cache, so a model is loaded once per worker and
never pickled per task. Every other option must be plain data (str, numbers, bools,
None, lists, tuples, dicts of them).

Model options:

- ``model``: ``"default"`` (the packaged AM-FM model) or a model directory of any kind the
  registry knows (an AM-FM model from ``AMFM.save``, a DeepAMFM from ``DeepAMFM.train``, an
  evaluator from ``train_evaluator``, a plugin metric's model), or ``{"path": DIR or
  "default", ...}`` with settings for its loader (``lam=`` for AM-FM...).
- ``vectors`` (embedding metrics): a word-vector file (GloVe, word2vec, fastText), or
  ``{"path": FILE, "lowercase": ..., "oov": ..., "format": ...}`` (``WordVectors.load``).
"""
from __future__ import annotations

import hashlib
import json
import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

from .. import registry

# Options the per-worker model cache resolves, and how.
MODEL_OPTIONS = ("model", "vectors")
PLAIN_TYPES = (str, int, float, bool, type(None))


def load_model(option: str, spec):
    """The object a model spec names (called once per worker and spec by ``WorkerModels``):
    a ``model`` directory of any kind through the registry (``registry.load_model``: the
    metric owning the directory's kind loads it, a plugin's included)."""
    path, settings = (spec["path"], {k: v for k, v in spec.items() if k != "path"}) if isinstance(spec, dict) \
        else (spec, {})
    if option == "model":
        return registry.load_model(path, **settings)
    if option == "vectors":
        from ..metrics.vectors import WordVectors

        return WordVectors.load(path, **settings)
    raise ValueError(f"no model option {option!r}")


def _model_spec(option: str, value, where: str):
    """A model option normalised: absolute paths, settings checked to be plain data."""
    if value is None or (option == "model" and isinstance(value, str) and value == "default"):
        return value
    if isinstance(value, (str, os.PathLike)):
        path = os.path.abspath(os.fspath(value))
        if not os.path.exists(path):
            raise FileNotFoundError(f"{where}: {path} does not exist (models are loaded by each worker from a path "
                                    f"it can read)")
        return path
    if isinstance(value, Mapping):
        if "path" not in value:
            raise ValueError(f"{where}: a model given as a mapping needs its 'path'")
        settings = {k: _plain(v, f"{where}[{k!r}]") for k, v in value.items() if k != "path"}
        return {"path": _model_spec(option, value["path"], where), **settings}
    raise TypeError(f"{where}: give the model's path, not a loaded {type(value).__name__}: fastamfm.distributed "
                    f"loads models once per worker from their paths (save it first, e.g. AMFM.save(DIR))")


def _plain(value, where: str):
    """``value`` if it is plain data that pickles small and compares by content."""
    if isinstance(value, PLAIN_TYPES):
        return value
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v, f"{where}[{i}]") for i, v in enumerate(value))
    if isinstance(value, Mapping):
        return {str(k): _plain(v, f"{where}[{k!r}]") for k, v in value.items()}
    raise TypeError(f"{where}: options sent to the workers must be plain data (str, numbers, lists, dicts), "
                    f"got {type(value).__name__}")


def _normalise(options: Mapping, where: str) -> dict:
    out = {}
    for key, value in options.items():
        if key in MODEL_OPTIONS:
            out[key] = _model_spec(key, value, f"{where}{key}")
        elif isinstance(value, Mapping):
            # A dict under a metric's name: that metric's own settings, models included.
            out[key] = _normalise(value, f"{where}{key}.")
        else:
            out[key] = _plain(value, f"{where}{key}")
    return out


def _resolve(options: dict, load) -> dict:
    return {key: (load(key, value) if key in MODEL_OPTIONS and value is not None
                  else _resolve(value, load) if isinstance(value, dict) else value)
            for key, value in options.items()}


@dataclass(frozen=True)
class MetricSpec:
    """Metric names and options with model specs; ``key`` names the pipeline they build."""

    names: tuple
    options: dict
    key: str

    @classmethod
    def of(cls, metrics, options: Mapping) -> "MetricSpec":
        """Checked on the client: names resolved in the registry (no model is loaded),
        options normalised. ``workers`` (C++ threads per task) defaults to 1: each Dask
        worker thread scores one partition."""
        names = tuple(registry.resolve(metrics))
        normalised = _normalise({"workers": 1, **options}, "")
        key = hashlib.sha256(json.dumps([names, normalised], sort_keys=True, default=str).encode()).hexdigest()[:16]
        return cls(names, normalised, key)

    def build(self, load) -> tuple:
        """(Pipeline, warnings) on a worker, models loaded by ``load(option, spec)``."""
        from ..pipeline import Pipeline

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            pipeline = Pipeline.from_names(list(self.names), what="fastamfm.distributed",
                                           **_resolve(self.options, load))
        pipeline.check_chunked("fastamfm.distributed")
        return pipeline, [str(w.message) for w in caught]
