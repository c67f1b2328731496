"""The decontamination blocklist: SHA-256 hashes of every utterance of the rated sets
(``../shared/data/dstc10_blocklist/utterances.sha256``). A dialogue holding any listed
utterance is dropped before training, so a trained metric is never judged on what it saw.

The normalisation is the blocklist's own (its README): NFKC, lowercase, every run of
characters other than a-z and 0-9 becomes one space, words joined by single spaces;
utterances of fewer than three words are too short to block.

Where the list is read from: ``blocklist=`` (a path, or ``False`` for none), else
``$FASTAMFM_BLOCKLIST``, else ``../shared/data/dstc10_blocklist/utterances.sha256`` beside
the working directory or the source tree, when one exists.
"""
from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from pathlib import Path

from ..errors import format_error

ENV_VARIABLE = "FASTAMFM_BLOCKLIST"
_RELATIVE = Path("shared") / "data" / "dstc10_blocklist" / "utterances.sha256"
_NOT_WORD = re.compile(r"[^a-z0-9]+")
_HEX = re.compile(r"[0-9a-f]{64}")


def utterance_hash(text: str) -> str | None:
    """The blocklist's hash of one utterance, or None when it has fewer than three words."""
    normalized = " ".join(_NOT_WORD.sub(" ", unicodedata.normalize("NFKC", text).lower()).split())
    if len(normalized.split()) < 3:
        return None
    return hashlib.sha256(normalized.encode()).hexdigest()


def default_blocklist_path() -> Path | None:
    """``$FASTAMFM_BLOCKLIST``, else the shared data's list found from the working
    directory or the source tree upwards, else None."""
    if os.environ.get(ENV_VARIABLE):
        return Path(os.environ[ENV_VARIABLE])
    for start in (Path.cwd(), Path(__file__).resolve()):
        for folder in (start, *start.parents):
            candidate = folder / _RELATIVE
            if candidate.is_file():
                return candidate
            candidate = folder / ".." / _RELATIVE
            if candidate.is_file():
                return candidate.resolve()
    return None


class Blocklist:
    """A set of utterance hashes; ``blocks(turns)`` says whether a dialogue must go."""

    def __init__(self, hashes: frozenset, path: Path | None, digest: str):
        self.hashes = hashes
        self.path = path
        self.digest = digest          # SHA-256 of the list file (provenance)

    @classmethod
    def empty(cls) -> "Blocklist":
        return cls(frozenset(), None, "none")

    @classmethod
    def load(cls, path) -> "Blocklist":
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such blocklist file (set {ENV_VARIABLE}, pass blocklist=, "
                                    f"or blocklist=False to train without decontamination)")
        data = path.read_bytes()
        hashes = set()
        for number, line in enumerate(data.split(b"\n"), 1):
            line = line.strip()
            if not line:
                continue
            text = line.decode("ascii", errors="replace").lower()
            if not _HEX.fullmatch(text):
                raise format_error(path, "expected one SHA-256 hex digest per line", line=number)
            hashes.add(text)
        return cls(frozenset(hashes), path.resolve(), hashlib.sha256(data).hexdigest())

    @classmethod
    def resolve(cls, blocklist) -> "Blocklist":
        """``blocklist``: a Blocklist, a path, None (the default location; none there is
        an error, so decontamination is never skipped silently) or False (none)."""
        if isinstance(blocklist, Blocklist):
            return blocklist
        if blocklist is False:
            return cls.empty()
        if blocklist is None:
            found = default_blocklist_path()
            if found is None:
                raise FileNotFoundError(f"no blocklist found: set {ENV_VARIABLE} or pass blocklist=PATH "
                                        f"(blocklist=False / --no-blocklist trains without decontamination)")
            return cls.load(found)
        return cls.load(blocklist)

    def __len__(self) -> int:
        return len(self.hashes)

    def blocks(self, turns) -> bool:
        if not self.hashes:
            return False
        for turn in turns:
            digest = utterance_hash(turn)
            if digest is not None and digest in self.hashes:
                return True
        return False
