"""The shape every training recipe shares (``DeepAMFMRecipe``, ``EvaluatorRecipe``, and a
plugin's): one recipe trains one kind of model directory from dialogue corpora.

    class MyRecipe(Recipe):
        kind = "my_kind"                 # the directory it writes: DIR/my_kind.json, scored by the
                                         # registry metric whose model_kind is "my_kind"
        default_minutes = 30.0           # the budget when none is given
        @classmethod
        def train(cls, corpus, out, **settings): ...   # -> the loaded model

and is found by the registry under its kind (an entry point of ``fastamfm.recipes``), so
``fastamfm train``, ``DeepAMFM.train`` and ``fastamfm.train_evaluator`` reach it the same way.

``RecipeRun`` is what every recipe does around its own stages:

- the corpus opened once (``DialogueCorpus.of``: paths or a corpus, the blocklist applied);
- a work folder beside the output (``DIR.work``) for the stages' checkpoints: kept when a
  run is interrupted after its first checkpoint, so that ``resume=True`` goes on from there;
  removed when the model is written, and when the run fails or is interrupted before any
  checkpoint or finished stage was saved in it (nothing to resume: a bad corpus, a missing
  model, an error in the first steps leave nothing behind);
- the time budget: minutes used and left across the stages;
- the output: written whole with its provenance and checksums (``models.directory.written``).
"""
from __future__ import annotations

import logging
import shutil
import time
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, Literal

from ..models.directory import write_provenance, written
from .corpus import DialogueCorpus

log = logging.getLogger(__name__)
# What a recipe writes in a stage's folder once the stage is finished (``deep_amfm._Stage``).
STAGE_RECORD = "stage.json"


class Recipe(ABC):
    """Base of the training recipes (see the module docstring)."""

    kind: str = ""
    default_minutes: float = 40.0

    @classmethod
    @abstractmethod
    def train(cls, corpus, out, *args: Any, **settings: Any) -> Any:
        """Train on ``corpus`` into the model directory ``out``. Each recipe declares its own
        keywords (hence ``*args``/``**settings`` here, which its signature narrows)."""


class RecipeRun:
    """One run of a recipe (see the module docstring); a context manager."""

    def __init__(self, what: str, out, *, max_minutes: float | None, max_steps: int | None, resume: bool):
        if max_minutes is None and max_steps is None:
            raise ValueError(f"{what}: give a budget: max_minutes and/or max_steps")
        self.what = what
        self.out = Path(out)
        self.work = Path(str(self.out) + ".work")
        self.max_minutes = max_minutes
        self.max_steps = max_steps
        self.resume = resume
        self.started = time.monotonic()

    def __enter__(self) -> "RecipeRun":
        if not self.resume and self.work.exists():
            shutil.rmtree(self.work)
        # The folders this run creates above its work folder (--out new/dir/model): gone too
        # when it fails with nothing to resume.
        self._created = [p for p in self.work.absolute().parents if not p.exists()]
        self.work.mkdir(parents=True, exist_ok=True)
        return self

    def resumable(self) -> bool:
        """Whether the work folder holds something ``resume=True`` would go on from: a
        complete checkpoint or a finished stage."""
        from .checkpoints import PREFIX

        return any(p.is_dir() and p.name.startswith(PREFIX) and p.name[len(PREFIX):].isdigit()
                   for p in self.work.rglob(f"{PREFIX}*")) or any(self.work.rglob(STAGE_RECORD))

    def __exit__(self, exc_type, exc, tb) -> Literal[False]:
        # A failed or interrupted run keeps its work folder for --resume only if it holds a
        # checkpoint or a finished stage; anything else (settings written, half a checkpoint in
        # staging, a model directory begun) is of no use to a resume and goes.
        if exc_type is not None and not self.resumable():
            shutil.rmtree(self.work, ignore_errors=True)
            for folder in self._created:        # innermost first; only if nothing else was put there
                try:
                    folder.rmdir()
                except OSError:
                    break
        return False

    def corpus(self, corpus, **options) -> DialogueCorpus:
        return DialogueCorpus.of(corpus, **options)

    def minutes_used(self) -> float:
        return (time.monotonic() - self.started) / 60

    def minutes_left(self, reserve: float = 0.0) -> float | None:
        """What the budget has left after ``reserve`` minutes are kept back (None: no time budget)."""
        if self.max_minutes is None:
            return None
        return self.max_minutes - reserve - self.minutes_used()

    def write(self, fill, provenance: dict) -> Path:
        """The model directory: ``fill(staging)`` writes the kind's files and manifest, then the
        provenance (with the run's total time) and the checksums; the work folder goes."""
        with written(self.out) as staging:
            fill(staging)
            write_provenance(staging, {**provenance, "total_seconds": time.monotonic() - self.started})
        shutil.rmtree(self.work, ignore_errors=True)
        log.info("%s in %.1f min: %s", self.what, self.minutes_used(), self.out)
        return self.out
