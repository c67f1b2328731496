"""Readers for the input layouts users have, and atomic writers.

- one sentence per line (nlg-eval's hyp.txt / ref1.txt ...): read by the C++ LineReader,
  which checks UTF-8 and line length and names the file and line in every error;
- jsonl records ``{"hyp": str, "refs": [str, ...]}``;
- DSTC-style json: a list of records with ``context``, ``response``, ``reference``.
"""
from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from . import _core

DEFAULT_CHUNK_LINES = 65536
MAX_LINE_BYTES = 16 << 20


def _path(p) -> str:
    p = os.fspath(p)
    if not os.path.exists(p):
        raise FileNotFoundError(f"{p}: no such file")
    return p


def read_lines(path, *, max_line_bytes: int = MAX_LINE_BYTES) -> list[str]:
    """All lines of a UTF-8 text file, without line terminators."""
    reader = _core.LineReader(_path(path), max_line_bytes)
    lines: list[str] = []
    while True:
        chunk = reader.read_chunk(DEFAULT_CHUNK_LINES)
        if not chunk:
            return lines
        lines.extend(chunk)


def iter_parallel_chunks(paths, chunk_lines: int = DEFAULT_CHUNK_LINES, *,
                         max_line_bytes: int = MAX_LINE_BYTES) -> Iterator[list[list[str]]]:
    """Read K line-aligned files in lockstep, ``chunk_lines`` lines at a time.

    Yields one list per file (all of equal length). Raises ValueError naming the
    files and their line counts as soon as one file ends before the others.
    """
    paths = [_path(p) for p in paths]
    if not paths:
        raise ValueError("no files given")
    readers = [_core.LineReader(p, max_line_bytes) for p in paths]
    while True:
        chunks = [r.read_chunk(chunk_lines) for r in readers]
        sizes = {len(c) for c in chunks}
        if len(sizes) > 1:
            # Finish counting so the message gives the true line counts.
            counts = [r.line_number + sum(len(x) for x in iter(lambda r=r: r.read_chunk(chunk_lines), []))
                      for r in readers]
            detail = ", ".join(f"{p}: {c} lines" for p, c in zip(paths, counts))
            raise ValueError(f"line counts differ between parallel files ({detail})")
        if not chunks[0]:
            return
        yield chunks


def read_line_columns(paths, *, max_line_bytes: int = MAX_LINE_BYTES) -> list[list[str]]:
    """K line-aligned files -> K lists of lines (``columns[k][i]``: line i of file k);
    ``fastamfm.References.from_columns`` takes them as they are."""
    columns: list[list[str]] = [[] for _ in paths]
    for chunks in iter_parallel_chunks(paths, max_line_bytes=max_line_bytes):
        for column, chunk in zip(columns, chunks):
            column.extend(chunk)
    return columns


def read_parallel_files(paths, *, max_line_bytes: int = MAX_LINE_BYTES) -> list[list[str]]:
    """K reference files (nlg-eval layout) -> per segment the list of its K references."""
    return [list(refs) for refs in zip(*read_line_columns(paths, max_line_bytes=max_line_bytes))]


def read_json_document(path):
    """A whole JSON file, with errors that name the file and line."""
    path = _path(path)
    with open(path, "rb") as f:
        raw = f.read()
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: invalid UTF-8 at byte {exc.start}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg} (column {exc.colno})") from None


def iter_json_lines(path) -> Iterator[tuple[int, dict]]:
    """(line number, object) of each non-blank line of a jsonl file; errors name file:line."""
    path = _path(path)
    with open(path, "rb") as f:
        for line_no, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw.decode("utf-8"))
            except UnicodeDecodeError as exc:
                raise ValueError(f"{path}:{line_no}: invalid UTF-8 at byte {exc.start}") from None
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{line_no}: invalid JSON: {exc.msg} (column {exc.colno})") from None
            if not isinstance(record, dict):
                raise ValueError(f"{path}:{line_no}: expected a JSON object, got {type(record).__name__}")
            yield line_no, record


def _check_record(path, line_no: int, record: dict, require_refs: bool) -> tuple[str, list | None, list | None]:
    """(hyp, refs or None, context turns or None) of one jsonl record."""
    where = f"{path}:{line_no}"
    for key in ("hyp", "refs") if require_refs else ("hyp",):
        if key not in record:
            raise ValueError(f"{where}: record has no {key!r} key (expected {{\"hyp\": ..., \"refs\": [...]}})")
    hyp, refs, context = record["hyp"], record.get("refs"), record.get("context")
    if not isinstance(hyp, str):
        raise ValueError(f"{where}: 'hyp' must be a string, got {type(hyp).__name__}")
    if refs is not None:
        if isinstance(refs, str):
            refs = [refs]
        if not isinstance(refs, list) or not all(isinstance(r, str) for r in refs):
            raise ValueError(f"{where}: 'refs' must be a list of strings")
        if not refs:
            raise ValueError(f"{where}: 'refs' is empty")
    if context is not None:
        if isinstance(context, str):
            context = context.split("\n")
        if not isinstance(context, list) or not all(isinstance(t, str) for t in context):
            raise ValueError(f"{where}: 'context' must be a string (turns joined by newlines) or a list of strings")
    return hyp, refs, context


def iter_jsonl_records(path, chunk_records: int = DEFAULT_CHUNK_LINES, *,
                       require_refs: bool = False) -> Iterator[tuple[list, list | None, list | None]]:
    """Stream jsonl records ``{"hyp", "refs"?, "context"?}`` as (hyps, refs, contexts)
    chunks; refs (contexts) is None for a chunk whose records carry none. Every record of
    a file must agree on having references and contexts."""
    hyps: list = []
    refs: list = []
    contexts: list = []
    shape = None
    for line_no, record in iter_json_lines(path):
        hyp, rs, context = _check_record(path, line_no, record, require_refs)
        if shape is None:
            shape = (rs is not None, context is not None)
        elif shape != (rs is not None, context is not None):
            raise ValueError(f"{path}:{line_no}: the first record {'has' if shape[0] else 'has no'} 'refs' and "
                             f"{'has' if shape[1] else 'has no'} 'context'; every record must have the same keys")
        hyps.append(hyp)
        refs.append(rs)
        contexts.append(context)
        if len(hyps) == chunk_records:
            yield hyps, (refs if shape[0] else None), (contexts if shape[1] else None)
            hyps, refs, contexts = [], [], []
    if hyps:
        yield hyps, (refs if shape[0] else None), (contexts if shape[1] else None)


def iter_jsonl_chunks(path, chunk_records: int = DEFAULT_CHUNK_LINES) -> Iterator[tuple[list[str], list[list[str]]]]:
    """Stream jsonl records ``{"hyp", "refs"}`` as (hyps, refs) chunks."""
    for hyps, refs, _ in iter_jsonl_records(path, chunk_records, require_refs=True):
        yield hyps, refs


def read_jsonl(path) -> tuple[list[str], list[list[str]]]:
    """jsonl records ``{"hyp": str, "refs": [str, ...]}`` -> (hyps, refs)."""
    hyps: list[str] = []
    refs: list[list[str]] = []
    for h, r in iter_jsonl_chunks(path):
        hyps.extend(h)
        refs.extend(r)
    return hyps, refs


def read_dstc_json(path) -> tuple[list, list[str], list[list[str]]]:
    """DSTC-style json: a list of records (or jsonl) with ``context``, ``response``, ``reference``.

    Returns (contexts, responses, references); ``reference`` may be a string or a list.
    """
    path = _path(path)
    with open(path, "rb") as f:
        starts_with_list = f.read(4096).lstrip().startswith(b"[")
    if starts_with_list:
        numbered = list(enumerate(read_json_document(path), 1))
        where = lambda i: f"{path}: record {i}"  # noqa: E731
    else:
        numbered = list(iter_json_lines(path))
        where = lambda i: f"{path}:{i}"  # noqa: E731
    contexts, responses, references = [], [], []
    for i, rec in numbered:
        if not isinstance(rec, dict):
            raise ValueError(f"{where(i)}: expected a JSON object")
        missing = [k for k in ("response", "reference") if k not in rec]
        if missing:
            raise ValueError(f"{where(i)}: record has no {missing[0]!r} key")
        ref = rec["reference"]
        ref = [ref] if isinstance(ref, str) else ref
        if not isinstance(rec["response"], str) or not isinstance(ref, list) or not ref or \
                not all(isinstance(r, str) for r in ref):
            raise ValueError(f"{where(i)}: 'response' must be a string and 'reference' a non-empty list of strings")
        contexts.append(rec.get("context"))
        responses.append(rec["response"])
        references.append(ref)
    return contexts, responses, references


def write_text_atomic(path, text: str | bytes) -> None:
    """Replace ``path`` with ``text`` so readers never see a partial file."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    _core.write_file_atomic(os.fspath(path), data)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class AtomicWriter:
    """A text file written in pieces that appears at ``path`` only on success.

    Used by streaming writers: on an exception (or Ctrl-C) the temporary file is
    removed and any previous file at ``path`` is left untouched.
    """

    def __init__(self, path, mode: str = "w"):
        self.path = Path(path)
        self.mode = mode

    def __enter__(self):
        directory = self.path.parent if str(self.path.parent) else Path(".")
        fd, self._tmp = tempfile.mkstemp(prefix=self.path.name + ".", suffix=".tmp", dir=directory)
        # mkstemp creates the file private (0600); give it the mode a plain open() would.
        os.chmod(self._tmp, 0o666 & ~_umask())
        self._file = os.fdopen(fd, self.mode, encoding=None if "b" in self.mode else "utf-8")
        return self._file

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None:
                self._file.flush()
                os.fsync(self._file.fileno())
            self._file.close()
            if exc_type is None:
                os.replace(self._tmp, self.path)
        finally:
            if os.path.exists(self._tmp):
                os.unlink(self._tmp)
        return False
