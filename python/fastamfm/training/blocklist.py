"""The decontamination blocklist: hashes of every utterance of the DSTC-10 rated sets. A
dialogue holding any listed utterance is dropped before training, so a trained metric is
never judged on what it saw.

The list ships inside the package (``fastamfm/data/dstc10_blocklist.bin``), so training
decontaminates by default from any directory: ``blocklist=None`` (``fastamfm train`` without
``--blocklist``) is the packaged list, ``blocklist=PATH`` (``--blocklist FILE``) ADDS a list
of your own to it (one SHA-256 hex digest per line, made with ``utterance_hash``), as does
``$FASTAMFM_BLOCKLIST``, and ``blocklist=False`` (``--no-blocklist``) trains on everything.
Which lists were used, with their digests and sizes, goes into the model's provenance.

The packaged file is derived from the shared data's ``dstc10_blocklist/utterances.sha256``
by ``python -m fastamfm.training.build_blocklist DIR`` (``build_blocklist``): the first
``PREFIX_BYTES`` bytes of each SHA-256, sorted, with a header naming the source file's
SHA-256 and the payload's. An utterance is blocked when the prefix of its hash is listed;
with 8 bytes, a chance collision of an unrelated utterance with one of the ~9,000 listed has
probability about 9,000 / 2^64 = 5e-16.

The normalisation is the blocklist's own (its README): NFKC, lowercase, every run of
characters other than a-z and 0-9 becomes one space, words joined by single spaces;
utterances of fewer than three words are too short to block.
"""
from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from pathlib import Path

from ..errors import format_error

ENV_VARIABLE = "FASTAMFM_BLOCKLIST"
PACKAGED = Path(__file__).resolve().parents[1] / "data" / "dstc10_blocklist.bin"
PACKAGED_NAME = "dstc10-rated-sets"
PREFIX_BYTES = 8
MAGIC = b"fastamfm-blocklist"
FORMAT_VERSION = 1
_NOT_WORD = re.compile(r"[^a-z0-9]+")
_HEX = re.compile(r"[0-9a-f]{64}")


def utterance_hash(text: str) -> str | None:
    """The blocklist's hash of one utterance, or None when it has fewer than three words."""
    normalized = " ".join(_NOT_WORD.sub(" ", unicodedata.normalize("NFKC", text).lower()).split())
    if len(normalized.split()) < 3:
        return None
    return hashlib.sha256(normalized.encode()).hexdigest()


def _prefix(hex_digest: str) -> int:
    return int(hex_digest[:2 * PREFIX_BYTES], 16)


def default_blocklist_path() -> Path:
    """The packaged list (``PACKAGED``)."""
    return PACKAGED


def read_hex_list(path) -> tuple:
    """(set of hex digests, SHA-256 of the file) of a list of one SHA-256 hex digest per line."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such blocklist file (blocklist=False / --no-blocklist trains without "
                                f"decontamination)")
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
    return hashes, hashlib.sha256(data).hexdigest()


def packed(hashes, source_sha256: str) -> bytes:
    """The packaged form of a set of hex digests: a header line, then the sorted
    ``PREFIX_BYTES``-byte prefixes."""
    prefixes = sorted({_prefix(h) for h in hashes})
    payload = b"".join(p.to_bytes(PREFIX_BYTES, "big") for p in prefixes)
    header = (f"{MAGIC.decode()} {FORMAT_VERSION} prefix_bytes={PREFIX_BYTES} count={len(prefixes)} "
              f"source_sha256={source_sha256} payload_sha256={hashlib.sha256(payload).hexdigest()}\n")
    return header.encode("ascii") + payload


def read_packed(path) -> tuple:
    """(frozenset of prefixes, header fields) of a packaged list, checked whole."""
    path = Path(path)
    data = path.read_bytes()
    end = data.find(b"\n")
    fields = data[:end].decode("ascii", errors="replace").split() if end > 0 else []
    if len(fields) < 2 or fields[0].encode() != MAGIC or fields[1] != str(FORMAT_VERSION):
        raise format_error(path, f"not a fastamfm blocklist file (version {FORMAT_VERSION})")
    header = dict(f.split("=", 1) for f in fields[2:] if "=" in f)
    payload = data[end + 1:]
    try:
        width, count = int(header["prefix_bytes"]), int(header["count"])
    except (KeyError, ValueError):
        raise format_error(path, "the blocklist header lacks prefix_bytes or count") from None
    if width != PREFIX_BYTES or len(payload) != width * count or \
            hashlib.sha256(payload).hexdigest() != header.get("payload_sha256"):
        raise format_error(path, f"damaged blocklist file: {len(payload)} bytes of prefixes where the header says "
                                 f"{count} x {width} with SHA-256 {header.get('payload_sha256')}")
    prefixes = frozenset(int.from_bytes(payload[i:i + width], "big") for i in range(0, len(payload), width))
    return prefixes, header


class Blocklist:
    """Hash prefixes of blocked utterances; ``blocks(turns)`` says whether a dialogue must
    go. ``sources``: each list it holds ({"name" or "path", "sha256", "hashes"}), for the
    provenance; ``digest``: one SHA-256 naming them all."""

    def __init__(self, prefixes: frozenset, sources: list):
        self.prefixes = frozenset(prefixes)
        self.sources = list(sources)
        self.digest = "none" if not self.sources else hashlib.sha256(
            "|".join(s["sha256"] for s in self.sources).encode()).hexdigest()

    @property
    def path(self) -> Path | None:
        """The first list's file (the packaged one by default)."""
        return Path(self.sources[0]["file"]) if self.sources else None

    @classmethod
    def empty(cls) -> "Blocklist":
        return cls(frozenset(), [])

    @classmethod
    def packaged(cls) -> "Blocklist":
        """The list that ships with fastamfm: the DSTC-10 rated sets (see the module docstring)."""
        prefixes, header = read_packed(PACKAGED)
        return cls(prefixes, [{"name": PACKAGED_NAME, "file": str(PACKAGED), "sha256": header["source_sha256"],
                               "hashes": len(prefixes)}])

    @classmethod
    def load(cls, path) -> "Blocklist":
        """A list of one SHA-256 hex digest per line (``utterance_hash``), alone."""
        hashes, digest = read_hex_list(path)
        return cls(frozenset(_prefix(h) for h in hashes),
                   [{"path": str(Path(path).resolve()), "file": str(Path(path).resolve()), "sha256": digest,
                     "hashes": len(hashes)}])

    def __or__(self, other: "Blocklist") -> "Blocklist":
        return Blocklist(self.prefixes | other.prefixes, self.sources + other.sources)

    @classmethod
    def resolve(cls, blocklist) -> "Blocklist":
        """``blocklist``: a Blocklist (as is), False (none), None (the packaged list, plus
        ``$FASTAMFM_BLOCKLIST`` when set) or a path or list of paths (the packaged list plus
        each file)."""
        if isinstance(blocklist, Blocklist):
            return blocklist
        if blocklist is False:
            return cls.empty()
        extra: list[str | os.PathLike]
        if blocklist is None:
            extra = [os.environ[ENV_VARIABLE]] if os.environ.get(ENV_VARIABLE) else []
        elif isinstance(blocklist, (str, os.PathLike)):
            extra = [blocklist]
        else:
            extra = list(blocklist)
        out = cls.packaged()
        for path in extra:
            out = out | cls.load(path)
        return out

    def __len__(self) -> int:
        return len(self.prefixes)

    def describe(self) -> dict:
        """What the provenance records: the lists, their digests and sizes."""
        return {"blocklist": [{k: v for k, v in s.items() if k != "file"} for s in self.sources],
                "blocklist_sha256": self.digest, "blocklist_hashes": len(self)}

    def blocks(self, turns) -> bool:
        if not self.prefixes:
            return False
        for turn in turns:
            digest = utterance_hash(turn)
            if digest is not None and _prefix(digest) in self.prefixes:
                return True
        return False
