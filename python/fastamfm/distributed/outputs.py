"""The output directory of a distributed run, which is also its resumable state.

    out/manifest.json                    inputs, metrics and signatures, format, partitions
    out/reference-statistics.bin         the summed reference pass (CIDEr), when needed
    out/parts/part-00000042.rows         partition 42's rows, as ``fastamfm score`` writes them
    out/parts/part-00000042.statistics.json   its row count and summable statistics
    out/scores.jsonl (or .tsv)           every row in order (``assemble=True``)
    out/summary.json                     the corpus scores, written last

Every file is written atomically (a temporary file renamed into place), rows before
statistics: a partition is done exactly when its statistics file exists, whichever
worker wrote it and however often (a task rerun after a lost worker writes the same
bytes). A rerun whose manifest matches skips the finished partitions; one whose
inputs (their content hashes) or settings differ starts afresh.

Nothing in ``out`` is trusted as it is read back: the manifest and each statistics
record carry a SHA-256 of their own content (``_seal``), each record the SHA-256 of its
part's rows. A resumed run scores again a partition whose record or rows do not match
(rows rewritten with the same line count included); assembling refuses a part changed
since it was scored; a manifest that does not match its hash is a stale run's.
"""
from __future__ import annotations

import hashlib
import json
import logging
import re
import shutil
from pathlib import Path

from ..errors import format_error
from ..io.atomic import AtomicWriter, write_text_atomic
from ..models.file_digest import stream_digest
from .statistics import read_statistics_file, write_statistics_file

MANIFEST = "manifest.json"
SUMMARY = "summary.json"
REFERENCE = "reference-statistics.bin"
# Written by earlier versions (a pickle): removed with a stale run's files, never read.
_LEGACY_REFERENCE = "reference-statistics.pickle"
PARTS = "parts"
LAYOUT = "fastamfm-distributed-scores"
log = logging.getLogger(__name__)
_PART = re.compile(r"part-(\d{8})\.statistics\.json")
# Every name this module writes in out (clear() removes only directories holding nothing else).
_OURS = {MANIFEST, SUMMARY, REFERENCE, _LEGACY_REFERENCE, PARTS, "scores.jsonl", "scores.tsv"}


def rows_path(out: str, index: int) -> Path:
    return Path(out) / PARTS / f"part-{index:08d}.rows"


def statistics_path(out: str, index: int) -> Path:
    return Path(out) / PARTS / f"part-{index:08d}.statistics.json"


def _seal(record: dict) -> dict:
    """``record`` with the SHA-256 of its canonical JSON under "sha256"."""
    return {**record, "sha256": _record_digest(record)}


def _record_digest(record: dict) -> str:
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode("utf-8")).hexdigest()


def _unsealed(data) -> dict | None:
    """The record ``_seal`` wrote, or None when ``data`` is not one (edited, damaged)."""
    if not isinstance(data, dict) or not isinstance(data.get("sha256"), str):
        return None
    record = {k: v for k, v in data.items() if k != "sha256"}
    return record if _record_digest(record) == data["sha256"] else None


def write_part(out: str, index: int, rows: bytes, record: dict) -> None:
    """One partition's output (on a worker): rows first, then the statistics that mark it
    done, with the SHA-256 of the rows."""
    write_text_atomic(rows_path(out, index), rows)
    record = _seal({**record, "rows_sha256": hashlib.sha256(rows).hexdigest()})
    write_text_atomic(statistics_path(out, index), json.dumps(record))


def read_part_record(out: str, index: int) -> dict:
    """The statistics record of partition ``index``; a ``FormatError`` if it was changed."""
    path = statistics_path(out, index)
    try:
        record = _unsealed(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        raise format_error(path, f"unreadable part record ({type(exc).__name__}: {exc})") from None
    if record is None:
        raise format_error(path, "the part record does not match its hash (edited or damaged)")
    return record


def part_problem(out: str, index: int) -> str | None:
    """Why partition ``index``'s output cannot be reused (None when its record and rows
    match their hashes)."""
    try:
        record = read_part_record(out, index)
        if stream_digest(rows_path(out, index)) != record.get("rows_sha256"):
            return "its rows changed since they were scored"
    except (OSError, ValueError) as exc:
        return str(exc)
    return None


def write_reference(out: str, statistics: dict, run: str) -> None:
    write_statistics_file(Path(out) / REFERENCE, statistics, run)


def read_reference(out: str, run: str) -> dict:
    return read_statistics_file(Path(out) / REFERENCE, run)


class OutputDirectory:
    """The client's view of ``out`` (see the module docstring)."""

    def __init__(self, path):
        self.path = Path(path)
        if self.path.exists() and not self.path.is_dir():
            raise NotADirectoryError(f"out={self.path} is a file; give a directory for the distributed outputs")

    def stored_manifest(self, identity: dict) -> dict | None:
        """The manifest of a previous run with the same ``identity``, if any. A directory
        holding another run's outputs is cleared of them; one holding anything else is
        refused rather than touched."""
        manifest = _unsealed(self._read(MANIFEST))
        if manifest is not None and manifest.get("identity") == identity:
            return manifest
        foreign = [p.name for p in self.path.iterdir() if p.name.split(".tmp.")[0] not in _OURS] \
            if self.path.is_dir() else []
        if foreign:
            raise FileExistsError(f"out={self.path} holds files fastamfm did not write ({', '.join(sorted(foreign)[:3])}"
                                  f"{', ...' if len(foreign) > 3 else ''}); give a new or empty directory")
        self.clear()
        return None

    def create(self) -> None:
        (self.path / PARTS).mkdir(parents=True, exist_ok=True)

    def start(self, manifest: dict) -> None:
        """Record the run's plan: from now on finished partitions are kept for a rerun."""
        write_text_atomic(self.path / MANIFEST, json.dumps(_seal(manifest), indent=1, sort_keys=True) + "\n")

    def clear(self) -> None:
        """Remove a stale run's files (only the ones this module writes)."""
        if not self.path.is_dir():
            return
        for p in self.path.iterdir():
            if p.is_dir():
                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink(missing_ok=True)

    def done(self) -> set:
        """Indices of the partitions whose statistics exist and whose record and rows match
        their hashes; a part that does not is removed (it is scored again)."""
        parts = self.path / PARTS
        if not parts.is_dir():
            return set()
        found = {int(m.group(1)) for p in parts.iterdir() if (m := _PART.fullmatch(p.name))}
        done = set()
        for index in sorted(found):
            problem = part_problem(str(self.path), index)
            if problem is None:
                done.add(index)
                continue
            log.warning("%s: part %d is scored again: %s", self.path, index, problem)
            statistics_path(str(self.path), index).unlink(missing_ok=True)
            rows_path(str(self.path), index).unlink(missing_ok=True)
        return done

    def summary(self) -> dict | None:
        return self._read(SUMMARY)

    def write_summary(self, summary: dict) -> None:
        write_text_atomic(self.path / SUMMARY, json.dumps(summary, indent=2) + "\n")

    def has_reference(self) -> bool:
        return (self.path / REFERENCE).is_file()

    def scores_path(self, fmt: str) -> Path:
        return self.path / f"scores.{fmt}"

    def assemble(self, partitions: list, fmt: str, columns: list, target: Path | None = None) -> Path:
        """Concatenate the partitions' rows, in order, into one file (atomically): the file
        ``fastamfm score`` writes. Each part must hold exactly its planned rows."""
        target = target or self.scores_path(fmt)
        with AtomicWriter(target, "wb") as f:
            if fmt == "tsv":
                f.write(("id\t" + "\t".join(columns) + "\n").encode("utf-8"))
            for partition in partitions:
                path = rows_path(str(self.path), partition.index)
                expected = read_part_record(str(self.path), partition.index).get("rows_sha256")
                rows, digest = 0, hashlib.sha256()
                with open(path, "rb") as part:
                    for block in iter(lambda: part.read(1 << 20), b""):
                        rows += block.count(b"\n")
                        digest.update(block)
                        f.write(block)
                if rows != partition.rows:
                    raise RuntimeError(f"{path}: {rows} rows, expected {partition.rows} ({partition.describe()})")
                if digest.hexdigest() != expected:
                    raise format_error(path, f"the rows changed since they were scored ({partition.describe()}); "
                                             f"delete the file and run again to score it anew")
        return target

    def remove_parts(self) -> None:
        shutil.rmtree(self.path / PARTS, ignore_errors=True)

    def remove_temporaries(self) -> None:
        """Temporary files of writes a killed worker never finished."""
        parts = self.path / PARTS
        for p in parts.glob("*.tmp.*") if parts.is_dir() else ():
            p.unlink(missing_ok=True)

    def _read(self, name: str) -> dict | None:
        try:
            return json.loads((self.path / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
