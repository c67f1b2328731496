"""Scoring files of any size in chunks, with bounded memory and crash-safe output.

Input: a hypothesis file with K line-aligned reference files (nlg-eval layout), or a
jsonl file of ``{"hyp": str, "refs": [str, ...]}`` records. Output: one record per
response (jsonl, or tsv with a header) at ``out``, and the corpus summary as json at
``out + ".summary.json"``.

Crash safety. Each chunk's output and its summable statistics are written as part
files in ``out + ".parts/"`` (each part atomically), together with a manifest naming
the inputs and settings. ``out`` itself is assembled from the parts and renamed into
place only when every chunk is done, so it is never truncated. A rerun after an
interruption (Ctrl-C, a crash, a killed process) finds the manifest, checks that
inputs and settings are unchanged, scores only the missing chunks and assembles.
"""
from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path

import numpy as np

from . import _core
from ._version import __version__
from .evaluate import METRIC_COLUMNS, ChunkTotals, ScoringContext, available_metrics, parse_metrics, score_chunk
from .io import (AtomicWriter, discard_on_input_error, iter_jsonl_chunks, iter_parallel_chunks,
                 relocate_chunk_error, write_text_atomic)

log = logging.getLogger("fastamfm")

FORMATS = ("jsonl", "tsv")
DEFAULT_CHUNK_SIZE = 20000
MANIFEST = "manifest.json"


def _input_fingerprint(path) -> dict:
    st = os.stat(path)
    return {"path": os.path.abspath(path), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _format_rows(ids: np.ndarray, columns: dict, fmt: str) -> str:
    """Per-response lines for one chunk (no Python work per value beyond %-formatting)."""
    names = list(columns)
    values = [np.asarray(columns[n], dtype=np.float64) for n in names]
    rows = zip(ids.tolist(), *(v.tolist() for v in values))
    if fmt == "tsv":
        pattern = "%d" + "\t%.9g" * len(names)
    else:
        pattern = "{\"id\": %d" + "".join(", " + json.dumps(n) + ": %.9g" for n in names) + "}"
    lines = "\n".join(pattern % row for row in rows)
    return lines + "\n" if lines else ""


class _Parts:
    """The part-file directory of one output: which chunks are done, and their files."""

    def __init__(self, out: Path, manifest: dict):
        self.dir = out.with_name(out.name + ".parts")
        self.manifest = manifest

    def open(self) -> set[int]:
        """Prepare the directory; returns the chunks already done by a previous run."""
        manifest_path = self.dir / MANIFEST
        if self.dir.exists():
            try:
                previous = json.loads(manifest_path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                previous = None
            if previous == self.manifest:
                done = {int(p.name.split("-")[1].split(".")[0]) for p in self.dir.glob("part-*.totals.json")}
                if done:
                    log.info("resuming: %d chunks already scored in %s", len(done), self.dir)
                return done
            log.warning("discarding %s: it belongs to other inputs or settings", self.dir)
            shutil.rmtree(self.dir)
        self.dir.mkdir(parents=True)
        write_text_atomic(manifest_path, json.dumps(self.manifest, sort_keys=True))
        return set()

    def rows(self, index: int) -> Path:
        return self.dir / f"part-{index:08d}.rows"

    def totals(self, index: int) -> Path:
        return self.dir / f"part-{index:08d}.totals.json"

    def write(self, index: int, text: str, totals: ChunkTotals) -> None:
        # Rows first, totals second: a chunk counts as done only once its totals exist.
        write_text_atomic(self.rows(index), text)
        write_text_atomic(self.totals(index), json.dumps(totals.to_json()))


def _iter_input(hyp, refs, jsonl, chunk_size: int):
    if jsonl is not None:
        if hyp is not None or refs:
            raise ValueError("give either jsonl= or hyp= with refs=, not both")
        yield from iter_jsonl_chunks(jsonl, chunk_size)
        return
    if hyp is None or not refs:
        raise ValueError("score_files needs hyp= and at least one file in refs= (or jsonl=)")
    for chunks in iter_parallel_chunks([hyp, *refs], chunk_size):
        yield chunks[0], [list(r) for r in zip(*chunks[1:])]


def count_responses(hyp=None, jsonl=None) -> int:
    """Number of responses in the input (a fast line count), for progress bars."""
    path = os.fspath(jsonl if jsonl is not None else hyp)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: no such file")
    return int(_core.count_lines(path))


def score_files(out, *, hyp=None, refs=(), jsonl=None, metrics=("am", "fm", "amfm"), model="default",
                format: str | None = None, chunk_size: int = DEFAULT_CHUNK_SIZE, vectors=None,
                workers: int = -1, progress=None) -> dict:
    """Score a hypothesis file against reference files (or a jsonl file) into ``out``
    (``out=None``: compute the corpus summary only).

    ``format``: "jsonl" or "tsv" (default: from the extension of ``out``, else jsonl).
    ``progress``: a callable receiving the number of responses finished in each chunk.
    Returns the corpus summary (also written to ``out + ".summary.json"``).
    """
    out = None if out is None else Path(out)
    if format is None:
        format = "tsv" if out is not None and out.suffix.lower() == ".tsv" else "jsonl"
    if format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {format!r}")
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    refs = [refs] if isinstance(refs, (str, os.PathLike)) else list(refs)
    inputs = [jsonl] if jsonl is not None else ([hyp] if hyp is not None else []) + refs
    for p in inputs:
        if not os.path.isfile(p):
            raise FileNotFoundError(f"{p}: no such file")
    if out is not None and out.is_dir():
        raise IsADirectoryError(f"{out} is a directory; give a file path for the output")
    names = parse_metrics(metrics)
    if "cider" in names:
        raise ValueError("cider cannot be streamed: its idf weights come from the references of the whole "
                         "corpus; use fastamfm.cider on the full data")
    context = ScoringContext(model=model, vectors=vectors, workers=workers)
    names = available_metrics(names, context)
    if not names:
        raise ValueError("none of the requested metrics is available")
    scorer_id = context.scorer().signature if any(m in ("am", "fm", "amfm") for m in names) else None
    # Everything that changes the output: parts of a run with other values are stale.
    manifest = {"inputs": [_input_fingerprint(p) for p in inputs], "metrics": names, "format": format,
                "chunk_size": chunk_size, "amfm": scorer_id, "version": __version__,
                "vectors": None if vectors is None else str(getattr(vectors, "fingerprint", repr(vectors)))}
    parts = None if out is None else _Parts(out, manifest)
    done = set() if parts is None else parts.open()
    columns_out = [c for m in names for c in METRIC_COLUMNS[m]]
    total = ChunkTotals()
    first_id = 0
    index = -1
    with discard_on_input_error(None if parts is None else parts.dir):
        for index, (hyps, ref_lists) in enumerate(_iter_input(hyp, refs, jsonl, chunk_size)):
            ids = np.arange(first_id, first_id + len(hyps))
            first_id += len(hyps)
            if index in done:
                totals = ChunkTotals.from_json(json.loads(parts.totals(index).read_text(encoding="utf-8")))
            else:
                try:
                    columns, totals = score_chunk(hyps, ref_lists, names, context)
                except ValueError as exc:  # hyps[i] of this chunk -> of the whole input
                    raise relocate_chunk_error(exc, int(ids[0]), inputs[0]) from None
                if parts is not None:
                    parts.write(index, _format_rows(ids, columns, format), totals)
            total.add(totals)
            if progress is not None:
                progress(len(hyps))
    if first_id == 0:
        if parts is not None:
            shutil.rmtree(parts.dir)
        raise ValueError(f"{inputs[0]} holds no response")
    summary = {"responses": total.n, "corpus": total.corpus(), "metrics": names, "format": format,
               "inputs": [m["path"] for m in manifest["inputs"]], "amfm_signature": scorer_id}
    if parts is None:
        return summary
    with AtomicWriter(out) as f:
        if format == "tsv":
            f.write("id\t" + "\t".join(columns_out) + "\n")
        for i in range(index + 1):
            with open(parts.rows(i), encoding="utf-8") as part:
                shutil.copyfileobj(part, f, 1 << 20)
    write_text_atomic(out.with_name(out.name + ".summary.json"), json.dumps(summary, indent=2) + "\n")
    shutil.rmtree(parts.dir)
    return summary
