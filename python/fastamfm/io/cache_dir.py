"""Where fastamfm keeps what it converts once and reuses (METEOR resource tables, word-vector
caches, models converted from GGUF, ONNX exports, remembered file digests):
``$FASTAMFM_CACHE_DIR``, else ``$XDG_CACHE_HOME/fastamfm``, else ``~/.cache/fastamfm``.

Every cache fastamfm writes there is one of ``CACHE_KINDS`` (a name, what it holds, the
file patterns it owns), so ``fastamfm cache`` can list them with their sizes and
``fastamfm cache clear [KIND ...]`` remove them: everything there is rebuilt on the next
use that needs it. ``build_lock`` serialises the processes that would build the same
cache at once (test workers, Dask workers on one machine): the second waits for the
first and then finds the cache built.
"""
from __future__ import annotations

import os
import shutil
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ENV_VARIABLE = "FASTAMFM_CACHE_DIR"

# kind -> (what it holds, how long it takes to build once, the glob patterns it owns in the cache directory)
CACHE_KINDS = {
    "meteor": ("METEOR 1.5 resource tables converted from pycocoevalcap's jar and paraphrase table",
               "about 15 s", ("meteor-*.bin",)),
    "gguf": ("GGUF language models converted to float32 Hugging Face directories (NeuralLM, DeepAMFM)",
             "about 1 min per model on two cores", ("gguf/*",)),
    "onnx": ("sentence encoders exported to ONNX (SentenceEncoder backend='onnx')", "seconds per model",
             ("onnx/*",)),
    "vectors": ("word-vector caches of files whose own directory is not writable (WordVectors.load)",
                "seconds to minutes per file", ("*.fastamfm-wv",)),
    "digests": ("remembered SHA-256 digests of large files (model fingerprints)", "under a second per file",
                ("digests/*",)),
}
# Leftovers of interrupted builds and the lock files of ``build_lock``: removed with any kind.
_LEFTOVERS = (".locks", ".partial-*", ".stale-*", "*/.partial-*", "*/.stale-*", "meteor-*.tmp", "*.fastamfm-wv*.tmp",
              "digests/*.tmp")


def cache_dir() -> Path:
    env = os.environ.get(ENV_VARIABLE)
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "fastamfm"


@dataclass(frozen=True)
class CacheEntry:
    """One cached file or directory: its kind, path, size in bytes and last modification."""

    kind: str
    path: Path
    bytes: int
    modified: float


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass
    return total


def _check_kinds(kinds) -> list:
    kinds = list(CACHE_KINDS) if kinds is None else [kinds] if isinstance(kinds, str) else list(kinds)
    unknown = [k for k in kinds if k not in CACHE_KINDS]
    if unknown:
        raise ValueError(f"unknown cache kind(s) {unknown}; the kinds are {list(CACHE_KINDS)}")
    return kinds


def cache_entries(kinds=None, directory=None) -> list:
    """The ``CacheEntry`` of every cache of ``kinds`` (default: all) in ``directory``
    (default: ``cache_dir()``), largest first within a kind."""
    root = Path(directory) if directory is not None else cache_dir()
    out: list[CacheEntry] = []
    if not root.is_dir():
        return out
    for kind in _check_kinds(kinds):
        found = []
        for pattern in CACHE_KINDS[kind][2]:
            for path in root.glob(pattern):
                if path.name.startswith((".partial-", ".stale-")):
                    continue
                try:
                    found.append(CacheEntry(kind, path, _size(path), path.stat().st_mtime))
                except OSError:
                    continue          # removed meanwhile
        out += sorted(found, key=lambda e: -e.bytes)
    return out


def clear_cache(kinds=None, directory=None) -> tuple:
    """Remove every cache of ``kinds`` (default: all) from ``directory`` (default:
    ``cache_dir()``), and leftovers of interrupted builds; returns (entries removed, bytes
    freed). Only what fastamfm writes is touched (``CACHE_KINDS``' patterns)."""
    root = Path(directory) if directory is not None else cache_dir()
    entries = cache_entries(kinds, root)
    freed = 0
    for entry in entries:
        if entry.path.is_dir() and not entry.path.is_symlink():
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            entry.path.unlink(missing_ok=True)
        freed += entry.bytes
    if root.is_dir():
        for pattern in _LEFTOVERS:
            for path in root.glob(pattern):
                if path.is_dir():
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink(missing_ok=True)
        for kind in _check_kinds(kinds):          # the kinds' now empty folders (gguf/, onnx/, digests/)
            for pattern in CACHE_KINDS[kind][2]:
                folder = root / pattern.split("/")[0]
                if "/" in pattern and folder.is_dir() and not any(folder.iterdir()):
                    folder.rmdir()
    return len(entries), freed


def describe_size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"


LOCKS = ".locks"


def lock_path(target) -> Path:
    """The lock file of ``target``: in the cache directory's ``.locks/`` folder (never beside
    the caches, whose folders hold only caches), named after the target's absolute path."""
    import hashlib

    target = Path(os.path.abspath(target))
    digest = hashlib.sha256(str(target).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return cache_dir() / LOCKS / f"{target.name}.{digest}.lock"


@contextmanager
def build_lock(target):
    """Hold an exclusive lock named after ``target`` (``lock_path``) while a cache is built:
    processes building the same cache at once take turns, and the one that waited finds the
    cache there. Where file locks are not available it does nothing. Lock files stay (removing
    one another process holds would let a third build alongside); ``clear_cache`` removes them."""
    target = Path(target)
    try:
        import fcntl
    except ImportError:              # not a POSIX system: no lock, the atomic renames still hold
        yield
        return
    path = lock_path(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as handle:
        start = time.monotonic()
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        waited = time.monotonic() - start
        if waited > 1:
            import logging

            logging.getLogger(__name__).info("waited %.0f s for another process building %s", waited, target)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
