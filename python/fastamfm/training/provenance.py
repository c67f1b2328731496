"""The provenance of a trained model: where it came from, enough to redo it.

``provenance(...)`` is the record a recipe writes as ``provenance.json`` of its model
directory (``models.directory.write_provenance``): the base models (path
and fingerprint), the corpus (files, formats, SHA-256 of their bytes, the counts of one
pass: read, dropped by the blocklist, duplicates, held out, trained on), the blocklist
(path, SHA-256, size), the settings of each stage, each stage's ``TrainingRun`` (steps,
examples, tokens, seconds, what stopped it), the versions of fastamfm, torch,
transformers (and peft, when used), the machine, and the time.
"""
from __future__ import annotations

import datetime
import importlib.metadata
import os
import platform

_PACKAGES = ("fastamfm", "torch", "transformers", "accelerate", "peft", "tokenizers", "numpy")


def versions() -> dict:
    out = {}
    for name in _PACKAGES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            pass
    out["python"] = platform.python_version()
    return out


def provenance(*, base_models: dict, corpus, stages: dict, settings: dict, extra: dict | None = None) -> dict:
    """The provenance record. ``corpus``: a ``DialogueCorpus`` (scanned); ``stages``:
    name -> ``TrainingRun`` (or a dict); ``settings``: name -> settings dict."""
    return {
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "base_models": base_models,
        "corpus": {**corpus.describe(), "counts": corpus.scan().as_dict()},
        "settings": settings,
        "stages": {name: (run.as_dict() if hasattr(run, "as_dict") else run) for name, run in stages.items()},
        "versions": versions(),
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
        **(extra or {}),
    }
