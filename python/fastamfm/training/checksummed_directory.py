"""A model directory whose every file is checksummed: ``CHECKSUMS`` (a JSON object of
relative path -> SHA-256) is written last, and ``verify_directory`` checks every file
listed (and that no listed file is missing) before a model is loaded from it."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ..errors import format_error
from ..io import write_text_atomic

CHECKSUMS = "checksums.json"


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_checksums(directory) -> dict:
    """Checksum every file under ``directory`` (but the checksum file) into ``CHECKSUMS``."""
    directory = Path(directory)
    sums = {str(p.relative_to(directory)): file_sha256(p) for p in sorted(directory.rglob("*"))
            if p.is_file() and p.name != CHECKSUMS}
    write_text_atomic(directory / CHECKSUMS, json.dumps(sums, indent=1, sort_keys=True) + "\n")
    return sums


def verify_directory(directory) -> None:
    """A ``FormatError`` naming the first file whose content is not what was written."""
    directory = Path(directory)
    listing = directory / CHECKSUMS
    if not listing.is_file():
        raise format_error(listing, "missing: not a complete fastamfm model directory")
    try:
        sums = json.loads(listing.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise format_error(listing, f"unreadable ({exc})") from None
    if not isinstance(sums, dict):
        raise format_error(listing, "expected a JSON object of file -> sha256")
    for name, expected in sums.items():
        path = directory / name
        if ".." in Path(name).parts or Path(name).is_absolute():
            raise format_error(listing, f"{name!r} is outside the directory")
        if not path.is_file():
            raise format_error(path, "missing (listed in checksums.json)")
        if file_sha256(path) != expected:
            raise format_error(path, "SHA-256 differs from checksums.json: the file was changed or is damaged")
