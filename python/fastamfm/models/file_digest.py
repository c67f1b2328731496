"""SHA-256 of a file's whole content, computed once per version of the file.

Model fingerprints, derived caches and distributed manifests identify a file by its
content; hashing a model of hundreds of MB on every load would cost seconds, so a digest
is remembered (in the process, and for files of 1 MiB or more in
``$FASTAMFM_CACHE_DIR/digests``) under the file's
device, inode, size, modification time and status-change time. An edit that restores
the size and the modification time still changes the status-change time (which no
system call sets back), so it is hashed again. A remembered entry that does not match
the file's current status, or cannot be read, is ignored and rewritten.
"""
from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path

from ..io.cache_dir import cache_dir

_MEMORY: dict = {}
_LOCK = threading.Lock()
# Smaller files are hashed again in each process (under a millisecond) rather than
# leaving an entry on disk for every small file ever hashed.
PERSIST_FROM_BYTES = 1 << 20
_ENTRY_FIELDS = ("dev", "ino", "size", "mtime_ns", "ctime_ns")


def _status(st: os.stat_result) -> dict:
    return {"dev": st.st_dev, "ino": st.st_ino, "size": st.st_size, "mtime_ns": st.st_mtime_ns,
            "ctime_ns": st.st_ctime_ns}


def _entry_path(path: str) -> Path:
    return cache_dir() / "digests" / (hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:32]
                                      + ".json")


def _remembered(path: str, status: dict) -> str | None:
    with _LOCK:
        hit = _MEMORY.get(path)
    if hit is not None and hit[0] == status:
        return hit[1]
    try:
        entry = json.loads(_entry_path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(entry, dict) or entry.get("path") != path or {k: entry.get(k) for k in _ENTRY_FIELDS} != status:
        return None
    digest = entry.get("sha256")
    if not isinstance(digest, str) or len(digest) != 64:
        return None
    with _LOCK:
        _MEMORY[path] = (status, digest)
    return digest


def _remember(path: str, status: dict, digest: str, *, persist: bool) -> None:
    from ..io.atomic import write_text_atomic

    with _LOCK:
        _MEMORY[path] = (status, digest)
    if not persist:
        return
    entry = _entry_path(path)
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(entry, json.dumps({"path": path, **status, "sha256": digest}))
    except OSError:
        pass  # a read-only cache directory: the digest is remembered in this process only


def stream_digest(path) -> str:
    """The SHA-256 (hex) of the file at ``path``, read now (not remembered: for files
    read once, such as a run's output parts)."""
    with open(path, "rb") as f:
        return _sha256(f)


def _sha256(f) -> str:
    digest, buffer = hashlib.sha256(), bytearray(1 << 20)
    view = memoryview(buffer)
    while True:
        n = f.readinto(buffer)
        if not n:
            return digest.hexdigest()
        digest.update(view[:n])


def file_digest(path) -> str:
    """The SHA-256 (hex) of the whole file at ``path`` (remembered; see the module docstring)."""
    path = os.path.realpath(os.fspath(path))
    status = _status(os.stat(path))
    digest = _remembered(path, status)
    if digest is not None:
        return digest
    with open(path, "rb") as f:
        digest = _sha256(f)
        after = _status(os.fstat(f.fileno()))
    if after == status:  # unchanged while it was read: the digest is of this version
        _remember(path, status, digest, persist=status["size"] >= PERSIST_FROM_BYTES)
    return digest
