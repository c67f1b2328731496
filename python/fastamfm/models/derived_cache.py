"""Caches derived from a model (a GGUF file converted to a Hugging Face directory, an ONNX
export), verified before every use and rebuilt when they do not match.

A cache is a directory in ``$FASTAMFM_CACHE_DIR`` holding what was built and a record,
``fastamfm-derived.json``: the fingerprint of the source it was built from and the
SHA-256 of every file built. A load uses the directory only if the record names the same
source and every file is there, unchanged (digests through ``file_digest``, so checking
reads the files' status only, unless a file changed). Otherwise -- a truncated or edited
file, a deleted one, an unknown extra file, a missing or damaged record -- it is built
again aside and swapped into place whole: a reader never sees half a cache.
"""
from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Callable

from ..io.cache_dir import build_lock
from .file_digest import file_digest

RECORD = "fastamfm-derived.json"
log = logging.getLogger(__name__)


def _files(directory: Path) -> dict:
    """{relative path: path} of every file under ``directory`` but the record."""
    return {str(p.relative_to(directory)): p for p in sorted(directory.rglob("*"))
            if p.is_file() and p.name != RECORD}


def mismatch(directory: Path, source: str) -> str | None:
    """Why ``directory`` is not a sound cache of ``source`` (None when it is)."""
    if not directory.is_dir():
        return "absent"
    try:
        record = json.loads((directory / RECORD).read_text(encoding="utf-8"))
        recorded_source, recorded_files = record["source"], record["files"]
    except (OSError, ValueError, TypeError, KeyError) as exc:
        return f"no readable record ({type(exc).__name__})"
    if recorded_source != source:
        return f"built from {recorded_source!r}, not {source!r}"
    files = _files(directory)
    if not isinstance(recorded_files, dict) or set(files) != set(recorded_files):
        return f"files {sorted(files)} instead of {sorted(recorded_files) if isinstance(recorded_files, dict) else '?'}"
    for name, path in files.items():
        if file_digest(path) != recorded_files[name]:
            return f"{name} changed since it was built"
    return None


def verified_cache(target: Path, source: str, build: Callable[[Path], None], what: str,
                   duration: str | None = None) -> Path:
    """``target``, a cache of ``source`` (a fingerprint) that ``build(directory)`` makes;
    built or rebuilt when ``mismatch`` finds it unsound. A build is announced in one log
    line (INFO) saying what it is and, given ``duration``, how long it usually takes;
    processes building the same cache at once take turns (``build_lock``)."""
    problem = mismatch(target, source)
    if problem is None:
        return target
    with build_lock(target):
        problem = mismatch(target, source)          # another process may have built it meanwhile
        if problem is None:
            return target
        return _build(target, source, build, what, duration, problem)


def _build(target: Path, source: str, build: Callable[[Path], None], what: str, duration: str | None,
           problem: str) -> Path:
    if problem != "absent":
        log.warning("%s: the cached %s does not match its record (%s); rebuilding it", target, what, problem)
    else:
        log.info("%s into %s (once; %s)", what, target, duration or "kept for later runs")
    start = time.perf_counter()
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=".partial-"))
    try:
        build(staging)
        record = {"source": source, "files": {name: file_digest(path) for name, path in _files(staging).items()}}
        (staging / RECORD).write_text(json.dumps(record, indent=1, sort_keys=True), encoding="utf-8")
        _swap_in(staging, target, source)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if mismatch(target, source) is not None:  # also remembers the digests under their final paths
        raise RuntimeError(f"{target}: the {what} just built does not match its record (another process "
                           f"is writing the same cache?)")
    log.info("%s done in %.0f s", what, time.perf_counter() - start)
    return target


def _swap_in(staging: Path, target: Path, source: str) -> None:
    """Put ``staging`` at ``target``, moving any stale cache there out of the way first
    (a sound one another process stored meanwhile stays: readers may be using it)."""
    for _ in range(3):
        if target.exists() and mismatch(target, source) is None:
            return
        if target.exists():
            stale = target.with_name(f".stale-{os.getpid()}-{os.urandom(4).hex()}")
            try:
                target.rename(stale)
            except FileNotFoundError:
                pass  # another process moved it
            else:
                shutil.rmtree(stale, ignore_errors=True)
        try:
            staging.rename(target)
            return
        except OSError:
            if mismatch(target, source) is None:
                return  # another process stored a sound one first
    raise RuntimeError(f"{target}: could not replace the cache (other processes keep rewriting it)")
