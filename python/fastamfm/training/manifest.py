"""The manifest of a trained model directory: one JSON object naming its ``format`` and
``version`` beside what the scorer needs (``deep_amfm.json``, ``evaluator.json``)."""
from __future__ import annotations

import json
from pathlib import Path

from ..errors import format_error


def read_manifest(path: Path, format_name: str, version: int) -> dict:
    """The manifest at ``path``; a ``FormatError`` when it is unreadable, of another format,
    or of a version this fastamfm does not read."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise format_error(path, f"unreadable ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != format_name:
        raise format_error(path, f"not a {format_name} manifest")
    if data.get("version") != version:
        raise format_error(path, f"manifest version {data.get('version')!r}; this fastamfm reads version {version}")
    return data
