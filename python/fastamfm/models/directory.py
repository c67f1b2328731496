"""The model directory: the one form of every model fastamfm writes and reads back (an
AM-FM model, a trained DeepAMFM, a dialogue evaluator, a plugin's model).

    DIR/<kind>.json       the manifest: {"format": "fastamfm-<kind>", "kind": KIND, "version": N, ...}
                          plus what the kind's scorer needs to load it
    DIR/provenance.json   where it came from (trained models: base models, corpus, runs)
    DIR/...               the kind's own files (weights, binary models)
    DIR/checksums.json    SHA-256 of every other file, written last

The *kind* names the registry metric that scores with the model (``Metric.model_kind``),
so ``model=DIR`` is resolved the same way by ``evaluate``, the CLI and Dask workers
(``fastamfm.registry.load_model``). A directory is written whole beside its final path
and renamed into place (``written``), and verified before anything is loaded from it
(``verify_directory``): a changed, missing or foreign file is a ``FormatError`` naming it.
"""
from __future__ import annotations

import hashlib
import json
from contextlib import contextmanager
from pathlib import Path

from ..errors import format_error
from ..io.atomic import atomic_directory, write_text_atomic

CHECKSUMS = "checksums.json"
PROVENANCE = "provenance.json"


def manifest_path(directory, kind: str) -> Path:
    return Path(directory) / f"{kind}.json"


def format_name(kind: str) -> str:
    """The manifest's ``format`` value of a kind (``deep_amfm`` -> ``fastamfm-deep-amfm``)."""
    return "fastamfm-" + kind.replace("_", "-")


def has_kind(directory, kind: str) -> bool:
    return Path(directory).is_dir() and manifest_path(directory, kind).is_file()


def kind_of(directory, kinds) -> str | None:
    """The first of ``kinds`` whose manifest ``directory`` holds, or None."""
    return next((kind for kind in kinds if has_kind(directory, kind)), None)


def write_manifest(directory, kind: str, version: int, fields: dict) -> Path:
    """``DIR/<kind>.json`` with the kind, its format and version beside ``fields``."""
    path = manifest_path(directory, kind)
    record = {"format": format_name(kind), "kind": kind, "version": version, **fields}
    write_text_atomic(path, json.dumps(record, indent=1, sort_keys=True) + "\n")
    return path


def read_manifest(directory, kind: str, version: int, *, version_key: str = "version") -> dict:
    """The manifest of a ``kind`` directory; a ``FormatError`` when it is unreadable, of another
    kind, or of a version this fastamfm does not read. ``version_key``: where older formats
    kept their version (the first AM-FM directories: ``format_version``)."""
    path = manifest_path(directory, kind)
    if not path.is_file():
        raise FileNotFoundError(f"{directory}: not a {kind} model directory (no {path.name})")
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise format_error(path, f"unreadable manifest ({type(exc).__name__}: {exc})") from None
    if not isinstance(data, dict) or data.get("format") != format_name(kind):
        raise format_error(path, f"not a {format_name(kind)} manifest")
    if data.get(version_key) != version:
        raise format_error(path, f"manifest version {data.get(version_key)!r}; this fastamfm reads version {version}")
    return data


def write_provenance(directory, record: dict) -> Path:
    path = Path(directory) / PROVENANCE
    write_text_atomic(path, json.dumps(record, indent=1, sort_keys=True, default=str) + "\n")
    return path


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_checksums(directory) -> dict:
    """Checksum every file under ``directory`` (but the checksum file) into ``CHECKSUMS``."""
    directory = Path(directory)
    sums = {p.relative_to(directory).as_posix(): file_sha256(p) for p in sorted(directory.rglob("*"))
            if p.is_file() and p.name != CHECKSUMS}
    write_text_atomic(directory / CHECKSUMS, json.dumps(sums, indent=1, sort_keys=True) + "\n")
    return sums


def _listed_checksums(directory: Path) -> dict:
    listing = directory / CHECKSUMS
    if not listing.is_file():
        raise format_error(listing, "missing: not a complete fastamfm model directory")
    try:
        sums = json.loads(listing.read_bytes().decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise format_error(listing, f"unreadable ({exc})") from None
    if not isinstance(sums, dict):
        raise format_error(listing, "expected a JSON object of file -> sha256")
    return sums


def verify_directory(directory, sums: dict | None = None, *, listing=None) -> None:
    """A ``FormatError`` naming the first file whose content is not what was written.
    ``sums``: {relative path: SHA-256} to check instead of ``checksums.json`` (directories
    that keep their checksums in their manifest; ``listing`` is then that manifest's path)."""
    directory = Path(directory)
    if sums is None:
        sums, listing = _listed_checksums(directory), directory / CHECKSUMS
    listing = Path(listing) if listing is not None else directory / CHECKSUMS
    for name, expected in sums.items():
        if not isinstance(name, str) or ".." in Path(name).parts or Path(name).is_absolute():
            raise format_error(listing, f"{name!r} is outside the directory")
        if not isinstance(expected, str) or len(expected) != 64:
            raise format_error(listing, f"sha256 of {name} is {expected!r}, not a SHA-256 hex digest")
        path = directory / name
        if not path.is_file():
            raise format_error(path, f"missing (listed in {listing.name})")
        if file_sha256(path) != expected:
            raise format_error(path, f"SHA-256 differs from {listing.name}: the file was changed or is damaged")


def content_fingerprint(directory) -> str:
    """16 hex digits naming what a verified directory scores with: its checksums, the
    provenance's left out (it records when and where the model was made, not what it is)."""
    sums = _listed_checksums(Path(directory))
    listing = json.dumps({name: value for name, value in sums.items() if name != PROVENANCE}, sort_keys=True)
    return hashlib.sha256(listing.encode()).hexdigest()[:16]


@contextmanager
def written(out):
    """Yields an empty staging directory to fill; on success its checksums are written last
    and it replaces ``out`` whole (``atomic_directory``): a failed or interrupted write
    leaves ``out`` as it was and no staging folder behind."""
    with atomic_directory(out) as staging:
        yield staging
        write_checksums(staging)
