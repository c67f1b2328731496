"""Scoring files of any size in chunks, with bounded memory and crash-safe output.

Input: a hypothesis file with K line-aligned reference files (nlg-eval layout) and
optionally a context file (one line per response, turns separated by tabs), or a jsonl
file of ``{"hyp": str, "refs": [str, ...], "context": ...}`` records. Output: one
record per response (jsonl, or tsv with a header) at ``out``, and the corpus summary
as json at ``out + ".summary.json"``.

Every chunk goes through the one pipeline (``pipeline.Pipeline``): its references
become one ``References`` shared by every metric, its responses are tokenized once per
tokenizer, and each metric's summable statistics are added over the chunks, so corpus
scores equal those of the whole file in one piece (BLEU, METEOR from their sufficient
statistics, means from exact sums, CIDEr after a first pass over the references that
counts its document frequencies). Reading the next chunk and writing the last one
run on their own threads while the current chunk is scored on all cores.

Crash safety. Each chunk's output and its statistics are written as part files in
``out + ".parts/"`` (each part atomically), with a manifest naming the inputs and
settings. ``out`` itself is assembled from the parts and renamed into place only when
every chunk is done, so it is never truncated. A rerun after an interruption (Ctrl-C,
a crash, a killed process) finds the manifest, checks that inputs and settings are
unchanged, scores only the missing chunks and assembles.
"""
from __future__ import annotations

import json
import logging
import os
import queue
import shutil
import threading
from pathlib import Path
from typing import Any

from . import _core
from ._version import __version__
from .io.atomic import AtomicWriter, discard_on_input_error, write_text_atomic
from .io.readers import iter_jsonl_records, iter_parallel_chunks, relocate_chunk_error
from .io.signals import join_if_started, start_thread
from .models.file_digest import file_digest
from .pipeline import Pipeline
from .progress import ProgressOption, reports_progress, task
from .references import References

log = logging.getLogger(__name__)

FORMATS = ("jsonl", "tsv")
DEFAULT_CHUNK_SIZE = 20000
DEFAULT_METRICS = ("am", "fm", "amfm")
MANIFEST = "manifest.json"
# Chunks read ahead of the one being scored (each holds chunk_size responses).
READ_AHEAD = 1


def _input_fingerprint(path) -> dict:
    """An input's path, size and content hash (``file_digest``): an edit that keeps the
    size and restores the modification time still makes the parts stale."""
    return {"path": os.path.abspath(path), "size": os.stat(path).st_size, "sha256": file_digest(path)}


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
                done = {int(p.name.split("-")[1].split(".")[0]) for p in self.dir.glob("part-*.statistics.json")}
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

    @property
    def reference_statistics(self) -> Path:
        """The first pass over the references (CIDEr's document frequencies), kept so that a
        resumed run does not read every reference again."""
        return self.dir / "reference-statistics.json"

    def statistics(self, index: int) -> Path:
        return self.dir / f"part-{index:08d}.statistics.json"

    def write(self, index: int, rows: bytes, statistics: dict) -> None:
        # Rows first, statistics second: a chunk counts as done only once its statistics exist.
        write_text_atomic(self.rows(index), rows)
        write_text_atomic(self.statistics(index), json.dumps(statistics))


def _read_contexts(lines: list) -> list:
    return [line.split("\t") for line in lines]


def _iter_chunks(hyp, refs, contexts, jsonl, chunk_size: int, require_refs: bool):
    """(hyps, References or None, contexts or None) per chunk of the input."""
    if jsonl is not None:
        for hyps, ref_lists, context_lists in iter_jsonl_records(jsonl, chunk_size, require_refs=require_refs):
            yield hyps, (None if ref_lists is None else References.of(ref_lists, len(hyps), layout="responses")), context_lists
        return
    paths = [hyp, *refs] + ([contexts] if contexts is not None else [])
    for chunks in iter_parallel_chunks(paths, chunk_size):
        ref_columns = chunks[1:1 + len(refs)]
        shared = References.from_columns(ref_columns) if ref_columns else None
        if shared is not None:
            shared.reusable = False  # one chunk, scored once: metrics may score straight from text
        yield chunks[0], shared, (_read_contexts(chunks[-1]) if contexts is not None else None)


def _iter_references(refs, jsonl, chunk_size: int):
    """The references alone, chunk by chunk (the first pass of reference-pass metrics)."""
    if jsonl is not None:
        for hyps, ref_lists, _ in iter_jsonl_records(jsonl, chunk_size, require_refs=True):
            yield References.of(ref_lists, len(hyps), layout="responses")
        return
    for chunks in iter_parallel_chunks(list(refs), chunk_size):
        yield References.from_columns(chunks)


class _ReadAhead:
    """Runs ``iterator`` on a thread, ``depth`` items ahead of the consumer (the reader
    parses lines and builds the next References while the current chunk is scored).
    Leaving the ``with`` block stops the thread and waits for it, so no thread is still
    inside the core when the process ends."""

    _DONE = object()

    def __init__(self, iterator, depth: int):
        self.iterator = iterator
        self.items: queue.Queue = queue.Queue(maxsize=depth)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._produce, name="fastamfm-reader", daemon=True)

    def _put(self, item) -> bool:
        while not self.stop.is_set():
            try:
                self.items.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _produce(self) -> None:
        try:
            for item in self.iterator:
                if not self._put((True, item)):
                    return
            self._put((True, self._DONE))
        except BaseException as exc:  # handed to the consumer, raised there
            self._put((False, exc))

    def __enter__(self):
        start_thread(self.thread)
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop.set()
        join_if_started(self.thread)

    def __iter__(self):
        while True:
            ok, item = self.items.get()
            if not ok:
                raise item
            if item is self._DONE:
                return
            yield item


class _Writer:
    """Formats and writes chunk outputs on a thread, one chunk behind the scorer."""

    def __init__(self, parts: _Parts, pipeline: Pipeline, fmt: str, workers: int):
        self.parts, self.pipeline, self.fmt, self.workers = parts, pipeline, fmt, workers
        self.keys = [json.dumps(c) for c in pipeline.columns]
        self.pending: threading.Thread | None = None
        self.error: BaseException | None = None

    def _write(self, index: int, first_id: int, columns: dict, statistics: dict) -> None:
        try:
            rows = _core.format_score_rows(first_id, [columns[c] for c in self.pipeline.columns], self.keys,
                                           self.fmt, self.workers)
            self.parts.write(index, rows, self.pipeline.statistics_to_json(statistics))
        except BaseException as exc:  # raised in the scoring thread by wait()
            self.error = exc

    def submit(self, index: int, first_id: int, columns: dict, statistics: dict) -> None:
        self.wait()
        # Tracked before it starts: an interruption from here on still waits for it.
        self.pending = threading.Thread(target=self._write, args=(index, first_id, columns, statistics),
                                        name="fastamfm-writer", daemon=True)
        start_thread(self.pending)

    def finish(self) -> None:
        """Waits for the part being written (if any), without raising its error."""
        join_if_started(self.pending)
        self.pending = None

    def wait(self) -> None:
        self.finish()
        if self.error is not None:
            raise self.error


def count_responses(hyp=None, jsonl=None) -> int:
    """Number of responses in the input (a fast line count), for progress bars."""
    path = os.fspath(jsonl if jsonl is not None else hyp)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: no such file")
    return int(_core.count_lines(path))


def _reference_pass(pipeline: Pipeline, refs: list, jsonl, chunk_size: int, parts: _Parts | None,
                    responses: int) -> dict:
    """The reference statistics of the whole input (the first pass), read back from the
    parts of an interrupted run of the same inputs and settings when it got that far."""
    if parts is not None and parts.reference_statistics.exists():
        try:
            data = json.loads(parts.reference_statistics.read_text(encoding="utf-8"))
            statistics = pipeline.reference_statistics_from_json(data)
            log.info("resuming: the first pass over the references read from %s", parts.reference_statistics)
            return statistics
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("%s is unreadable (%s): reading the references again", parts.reference_statistics, exc)
    total: dict = {}
    names = ", ".join(m.name for m in pipeline.metrics if m.reference_pass)
    with task(f"reference pass ({names})", total=responses, unit="resp") as read:
        for shared in _iter_references(refs, jsonl, chunk_size):
            chunk = pipeline.reference_statistics(shared)
            total = chunk if not total else Pipeline.add(total, chunk)
            read.advance(len(shared))
    if parts is not None:
        write_text_atomic(parts.reference_statistics, json.dumps(pipeline.statistics_to_json(total)))
    return total


@reports_progress
def score_files(out, *, hyp=None, refs=(), contexts=None, jsonl=None, metrics=DEFAULT_METRICS,
                format: str | None = None, chunk_size: int = DEFAULT_CHUNK_SIZE, progress: ProgressOption = None,
                **options) -> dict:
    """Score a hypothesis file against reference files (or a jsonl file) into ``out``
    (``out=None``: compute the corpus summary only).

    ``metrics``: registry names (default: am, fm, amfm); ``options``: the metrics'
    settings as for ``evaluate`` (``model=``, ``vectors=``, ``workers=``, ...).
    ``contexts``: a file line-aligned with ``hyp`` (turns separated by tabs), for
    reference-free metrics. ``format``: "jsonl" or "tsv" (default: from the extension of
    ``out``, else jsonl). ``progress`` (``fastamfm.progress``): per chunk of responses, and
    inside a chunk per metric and forward batch; the first pass over the references (CIDEr's
    document frequencies) per chunk too. Returns the corpus summary (also written to
    ``out + ".summary.json"``).

    Parameters
    ----------
    out : path or None
        The per-response scores file (one row per response, ``id`` then the columns); None:
        the summary only.
    hyp : path, optional
        The responses, one a line.
    refs : path or sequence of paths, default ()
        Reference files line-aligned with ``hyp`` (line i of each: a reference of response i).
    contexts : path, optional
        The dialogue contexts, line-aligned with ``hyp`` (turns separated by tabs).
    jsonl : path, optional
        Instead of ``hyp``/``refs``/``contexts``: records ``{"hyp": ..., "refs": [...]}``.
    metrics : str or sequence of str, default ("am", "fm", "amfm")
        Registry names, nlg-eval keys or aliases.
    format : {"jsonl", "tsv"}, optional
        The format of ``out``; None: "tsv" for a ``.tsv`` name, else "jsonl".
    chunk_size : int, default 20000
        Responses per chunk: memory stays bounded, and an interrupted run resumes at the
        first chunk not written.
    progress : bool or callable, optional
        ``fastamfm.progress``'s option.
    **options
        The metrics' settings, as for ``evaluate``.

    Returns
    -------
    dict
        The summary: ``responses`` (count), ``corpus`` {column: score}, ``metrics``,
        ``signatures``, ``format`` and ``inputs`` (the paths read).

    Raises
    ------
    ValueError
        A bad ``format`` or ``chunk_size``; ``jsonl`` with ``hyp``/``refs``/``contexts``, or
        neither; metrics that need references without ``refs``, or that cannot be scored
        chunk by chunk (Self-BLEU); files of different lengths, no response, other bad input.
    FileNotFoundError
        An input file that does not exist.
    IsADirectoryError
        ``out`` is a directory.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import fastamfm
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     folder = pathlib.Path(folder)
    ...     _ = (folder / "hyp.txt").write_text("the cat sat on the mat\\na dog ran\\n")
    ...     _ = (folder / "ref.txt").write_text("the cat sat on a mat\\nthe dog ran away\\n")
    ...     summary = fastamfm.score_files(folder / "scores.jsonl", hyp=folder / "hyp.txt", refs=folder / "ref.txt",
    ...                                    metrics=["rouge_l"], progress=False)
    ...     rows = (folder / "scores.jsonl").read_text().splitlines()
    >>> summary["responses"], round(summary["corpus"]["ROUGE_L"], 6)
    (2, 0.695205)
    >>> rows[0]
    '{"id": 0, "ROUGE_L": 0.833333333}'
    """
    out = None if out is None else Path(out)
    if format is None:
        format = "tsv" if out is not None and out.suffix.lower() == ".tsv" else "jsonl"
    if format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {format!r}")
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    refs = [refs] if isinstance(refs, (str, os.PathLike)) else list(refs)
    if jsonl is not None and (hyp is not None or refs or contexts is not None):
        raise ValueError("give either jsonl= or hyp= with refs=/contexts=, not both")
    if jsonl is None and hyp is None:
        raise ValueError("score_files needs hyp= (with refs= and/or contexts=) or jsonl=")
    inputs = [jsonl] if jsonl is not None else [hyp, *refs] + ([contexts] if contexts is not None else [])
    for p in inputs:
        if not os.path.isfile(p):
            raise FileNotFoundError(f"{p}: no such file")
    if out is not None and out.is_dir():
        raise IsADirectoryError(f"{out} is a directory; give a file path for the output")
    pipeline = Pipeline.from_names(metrics, what="score_files", **options)
    pipeline.check_chunked("score_files")
    needs_refs = any(m.needs_references for m in pipeline.metrics)
    if jsonl is None and not refs and needs_refs:
        raise ValueError(f"score_files: {', '.join(m.name for m in pipeline.metrics if m.needs_references)} "
                         f"need reference files (refs=)")
    workers = pipeline.workers
    # Everything that changes the output: parts of a run with other values are stale. (The
    # signatures before the reference pass: what it finds follows from the inputs and them.)
    manifest: dict[str, Any] = {"inputs": [_input_fingerprint(p) for p in inputs], "metrics": pipeline.signatures(),
                "format": format, "chunk_size": chunk_size, "version": __version__}
    parts = None if out is None else _Parts(out, manifest)
    done = set() if parts is None else parts.open()
    expected = count_responses(hyp=hyp, jsonl=jsonl)
    with task("score_files", total=expected, unit="resp") as scored:
        if pipeline.needs_reference_pass:
            # The first pass is part of the run: its progress is one level below the run's.
            pipeline = pipeline.with_reference_statistics(_reference_pass(pipeline, refs, jsonl, chunk_size, parts,
                                                                          expected))
        writer = None if parts is None else _Writer(parts, pipeline, format, workers)
        total = pipeline.empty_statistics()
        responses = 0
        index = -1
        # Bad input (a ValueError) discards the parts: they could never be resumed. An
        # interruption keeps them for the rerun.
        with discard_on_input_error(None if parts is None else parts.dir):
            try:
                with _ReadAhead(_iter_chunks(hyp, refs, contexts, jsonl, chunk_size, needs_refs), READ_AHEAD) as chunks:
                    for index, (hyps, shared, context_lists) in enumerate(chunks):
                        if parts is not None and index in done:   # done is empty without parts
                            statistics = pipeline.statistics_from_json(
                                json.loads(parts.statistics(index).read_text(encoding="utf-8")))
                        else:
                            try:
                                batch = pipeline.batch(hyps, shared, context_lists, what="score_files")
                                columns, statistics = pipeline.score_batch(batch)
                            except ValueError as exc:  # hyps[i] of this chunk -> of the whole input
                                raise relocate_chunk_error(exc, responses, inputs[0]) from None
                            if writer is not None:
                                writer.submit(index, responses, columns, statistics)
                        total = Pipeline.add(total, statistics)
                        responses += len(hyps)
                        scored.advance(len(hyps))
                if writer is not None:
                    writer.wait()
            except BaseException:
                if writer is not None:
                    writer.finish()  # let the last part finish or fail before leaving
                raise
    if responses == 0:
        if parts is not None:
            shutil.rmtree(parts.dir)
        raise ValueError(f"{inputs[0]} holds no response")
    summary = {"responses": responses, "corpus": pipeline.corpus(total), "metrics": pipeline.names,
               "signatures": pipeline.signatures(), "format": format,
               "inputs": [m["path"] for m in manifest["inputs"]]}
    if parts is None:
        return summary
    with AtomicWriter(out, "wb") as f:
        if format == "tsv":
            f.write(("id\t" + "\t".join(pipeline.columns) + "\n").encode("utf-8"))
        for i in range(index + 1):
            with open(parts.rows(i), "rb") as part:
                shutil.copyfileobj(part, f, 1 << 20)
    write_text_atomic(out.with_name(out.name + ".summary.json"), json.dumps(summary, indent=2) + "\n")
    shutil.rmtree(parts.dir)
    return summary
