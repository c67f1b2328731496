"""Checkpoint folders of one training run: ``<dir>/checkpoint-<step>``, each complete.

``transformers.Trainer`` writes a checkpoint's files straight into its final folder; a
run killed while saving (SIGKILL, power loss) leaves a half-written folder that a resume
would then load. The trainer (``trainer._TaskTrainer``) has it write into a staging
folder instead and renames it here (one ``rename``: a reader sees the whole folder or
none). Staging leftovers of a killed run are removed on the next start.
"""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

PREFIX = "checkpoint-"
STAGING_PREFIX = ".staging-"
_NAME = re.compile(r"checkpoint-(\d+)")


def checkpoints(directory) -> list:
    """The complete checkpoint folders, oldest (fewest steps) first."""
    directory = Path(directory)
    if not directory.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in directory.iterdir() if p.is_dir() and (m := _NAME.fullmatch(p.name))]
    return [p for _, p in sorted(found)]


def latest_checkpoint(directory) -> Path | None:
    found = checkpoints(directory)
    return found[-1] if found else None


def remove_staging(directory) -> None:
    directory = Path(directory)
    if directory.is_dir():
        for path in directory.iterdir():
            if path.name.startswith(STAGING_PREFIX):
                shutil.rmtree(path, ignore_errors=True)


def _fsync_tree(path: Path) -> None:
    for root, _, files in os.walk(path):
        for name in files:
            with open(os.path.join(root, name), "rb") as f:
                os.fsync(f.fileno())


def publish(staged: Path, directory: Path, keep: int) -> Path:
    """Move the complete checkpoint ``staged`` into ``directory`` (same name) and keep
    only the newest ``keep`` checkpoints."""
    _fsync_tree(staged)
    target = directory / staged.name
    if target.exists():                 # the same step saved again (a resumed run): replace
        shutil.rmtree(target)
    os.rename(staged, target)
    for old in checkpoints(directory)[:-keep]:
        shutil.rmtree(old, ignore_errors=True)
    return target
