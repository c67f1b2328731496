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
inputs or settings differ starts afresh.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from ..io import AtomicWriter, write_text_atomic
from .statistics import read_statistics_file, write_statistics_file

MANIFEST = "manifest.json"
SUMMARY = "summary.json"
REFERENCE = "reference-statistics.bin"
# Written by earlier versions (a pickle): removed with a stale run's files, never read.
_LEGACY_REFERENCE = "reference-statistics.pickle"
PARTS = "parts"
LAYOUT = "fastamfm-distributed-scores"
_PART = re.compile(r"part-(\d{8})\.statistics\.json")
# Every name this module writes in out (clear() removes only directories holding nothing else).
_OURS = {MANIFEST, SUMMARY, REFERENCE, _LEGACY_REFERENCE, PARTS, "scores.jsonl", "scores.tsv"}


def rows_path(out: str, index: int) -> Path:
    return Path(out) / PARTS / f"part-{index:08d}.rows"


def statistics_path(out: str, index: int) -> Path:
    return Path(out) / PARTS / f"part-{index:08d}.statistics.json"


def write_part(out: str, index: int, rows: bytes, record: dict) -> None:
    """One partition's output (on a worker): rows first, then the statistics that mark it done."""
    write_text_atomic(rows_path(out, index), rows)
    write_text_atomic(statistics_path(out, index), json.dumps(record))


def read_part_record(out: str, index: int) -> dict:
    return json.loads(statistics_path(out, index).read_text(encoding="utf-8"))


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
        manifest = self._read(MANIFEST)
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
        write_text_atomic(self.path / MANIFEST, json.dumps(manifest, indent=1, sort_keys=True) + "\n")

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
        """Indices of the partitions whose statistics exist."""
        parts = self.path / PARTS
        if not parts.is_dir():
            return set()
        return {int(m.group(1)) for p in parts.iterdir() if (m := _PART.fullmatch(p.name))}

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
                rows = 0
                with open(path, "rb") as part:
                    for block in iter(lambda: part.read(1 << 20), b""):
                        rows += block.count(b"\n")
                        f.write(block)
                if rows != partition.rows:
                    raise RuntimeError(f"{path}: {rows} rows, expected {partition.rows} ({partition.describe()})")
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
