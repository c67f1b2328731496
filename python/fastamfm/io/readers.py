"""Readers for the input layouts users have.

- one sentence per line (nlg-eval's hyp.txt / ref1.txt ...): read by the C++ LineReader,
  which checks UTF-8 and line length and names the file and line in every error;
- jsonl records ``{"hyp": str, "refs": [str, ...]}``;
- DSTC-style json: a list of records with ``context``, ``response``, ``reference``.

Every reader refuses a line (or JSON text field) longer than ``fastamfm.limits``
``max_line_bytes`` and reports bad content as ``fastamfm.FormatError`` with the file,
line (or record) and column.
"""
from __future__ import annotations

import functools
import json
import math
import os
import re
from collections.abc import Iterator

from .. import _core
from .. import limits as _limits
from ..errors import format_error

DEFAULT_CHUNK_LINES = 65536


def _path(p) -> str:
    p = os.fspath(p)
    if not os.path.exists(p):
        raise FileNotFoundError(f"{p}: no such file")
    return p


def _max_line_bytes(max_line_bytes: int | None) -> int:
    return _limits.get()["max_line_bytes"] if max_line_bytes is None else max_line_bytes


def read_lines(path, *, max_line_bytes: int | None = None) -> list[str]:
    """All lines of a UTF-8 text file, without line terminators."""
    reader = _core.LineReader(_path(path), _max_line_bytes(max_line_bytes))
    lines: list[str] = []
    while True:
        chunk = reader.read_chunk(DEFAULT_CHUNK_LINES)
        if not chunk:
            return lines
        lines.extend(chunk)


def iter_parallel_chunks(paths, chunk_lines: int = DEFAULT_CHUNK_LINES, *,
                         max_line_bytes: int | None = None) -> Iterator[list[list[str]]]:
    """Read K line-aligned files in lockstep, ``chunk_lines`` lines at a time.

    Yields one list per file (all of equal length). Raises ValueError naming the
    files and their line counts as soon as one file ends before the others.
    """
    paths = [_path(p) for p in paths]
    if not paths:
        raise ValueError("no files given")
    readers = [_core.LineReader(p, _max_line_bytes(max_line_bytes)) for p in paths]
    while True:
        chunks = [r.read_chunk(chunk_lines) for r in readers]
        sizes = {len(c) for c in chunks}
        if len(sizes) > 1:
            # Finish counting so the message gives the true line counts.
            counts = [r.line_number + sum(len(x) for x in iter(functools.partial(r.read_chunk, chunk_lines), []))
                      for r in readers]
            detail = ", ".join(f"{p}: {c} lines" for p, c in zip(paths, counts))
            raise ValueError(f"line counts differ between parallel files ({detail})")
        if not chunks[0]:
            return
        yield chunks


def read_line_columns(paths, *, max_line_bytes: int | None = None) -> list[list[str]]:
    """K line-aligned files -> K lists of lines (``columns[k][i]``: line i of file k);
    ``fastamfm.References.from_columns`` takes them as they are."""
    columns: list[list[str]] = [[] for _ in paths]
    for chunks in iter_parallel_chunks(paths, max_line_bytes=max_line_bytes):
        for column, chunk in zip(columns, chunks):
            column.extend(chunk)
    return columns


def read_parallel_files(paths, *, max_line_bytes: int | None = None) -> list[list[str]]:
    """K reference files (nlg-eval layout) -> per segment the list of its K references."""
    return [list(refs) for refs in zip(*read_line_columns(paths, max_line_bytes=max_line_bytes))]


def check_text_field(value: str, what: str, path, **place) -> None:
    """A text field of a JSON record: within the line limit and encodable as UTF-8
    (JSON's \\ud800 escapes give lone surrogates, which no tokenizer can take)."""
    limit = _limits.get()["max_line_bytes"]
    size = len(value)
    if not value.isascii():  # isascii is O(1) for Python's compact strings
        try:
            size = len(value.encode("utf-8"))
        except UnicodeEncodeError as exc:
            raise format_error(path, f"{what} holds a lone surrogate (\\u{ord(value[exc.start]):04x}) at character "
                                     f"{exc.start}, which is not text", **place) from None
    if size > limit:
        raise format_error(path, f"{what} is longer than {limit} bytes (fastamfm.limits max_line_bytes)", **place)


def iter_json_lines(path) -> Iterator[tuple[int, dict]]:
    """(line number, object) for every non-blank line of a jsonl file, each line read
    with a bounded buffer (a file without newlines cannot exhaust memory)."""
    path = _path(path)
    limit = _limits.get()["max_line_bytes"]
    with open(path, "rb") as f:
        line_no = 0
        while True:
            raw = f.readline(limit + 2)
            if not raw:
                return
            line_no += 1
            if len(raw.rstrip(b"\r\n")) > limit:
                raise format_error(path, f"line longer than {limit} bytes (fastamfm.limits max_line_bytes; "
                                         f"raise it for files with longer lines)", line=line_no)
            if not raw.strip():
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise format_error(path, f"invalid UTF-8 at byte {exc.start}", line=line_no,
                                   column=exc.start + 1) from None
            try:
                record = json.loads(text)
            except json.JSONDecodeError as exc:
                raise format_error(path, f"invalid JSON: {exc.msg}", line=line_no, column=exc.colno) from None
            except (ValueError, RecursionError) as exc:  # a number of too many digits, or deep nesting
                raise format_error(path, f"unreadable JSON ({type(exc).__name__}: {exc})", line=line_no) from None
            if not isinstance(record, dict):
                raise format_error(path, f"expected a JSON object, got {type(record).__name__}", line=line_no)
            yield line_no, record


def check_record(path, line_no: int, record: dict, require_refs: bool) -> tuple[str, list | None, list | None]:
    """(hyp, refs or None, context turns or None) of one jsonl record."""
    for key in ("hyp", "refs") if require_refs else ("hyp",):
        if key not in record:
            raise format_error(path, f"record has no {key!r} key (expected {{\"hyp\": ..., \"refs\": [...]}})",
                               line=line_no)
    hyp, refs, context = record["hyp"], record.get("refs"), record.get("context")
    if not isinstance(hyp, str):
        raise format_error(path, f"'hyp' must be a string, got {type(hyp).__name__}", line=line_no)
    check_text_field(hyp, "'hyp'", path, line=line_no)
    if refs is not None:
        if isinstance(refs, str):
            refs = [refs]
        if not isinstance(refs, list) or not all(isinstance(r, str) for r in refs):
            raise format_error(path, "'refs' must be a list of strings", line=line_no)
        if not refs:
            raise format_error(path, "'refs' is empty", line=line_no)
        for j, r in enumerate(refs):
            check_text_field(r, f"'refs'[{j}]", path, line=line_no)
    if context is not None:
        if isinstance(context, str):
            context = context.split("\n")
        if not isinstance(context, list) or not all(isinstance(t, str) for t in context):
            raise format_error(path, "'context' must be a string (turns joined by newlines) or a list of strings",
                               line=line_no)
        for t in context:
            check_text_field(t, "'context'", path, line=line_no)
    return hyp, refs, context


def iter_jsonl_records(path, chunk_records: int = DEFAULT_CHUNK_LINES, *,
                       require_refs: bool = False) -> Iterator[tuple[list, list | None, list | None]]:
    """Stream jsonl records ``{"hyp", "refs"?, "context"?}`` as (hyps, refs, contexts)
    chunks; refs (contexts) is None for a chunk whose records carry none. Every record of
    a file must agree on having references and contexts."""
    hyps: list = []
    refs: list = []
    contexts: list = []
    shape: tuple[bool, bool] | None = None
    for line_no, record in iter_json_lines(path):
        hyp, rs, context = check_record(path, line_no, record, require_refs)
        if shape is None:
            shape = (rs is not None, context is not None)
        elif shape != (rs is not None, context is not None):
            raise format_error(path, f"the first record {'has' if shape[0] else 'has no'} 'refs' and "
                                     f"{'has' if shape[1] else 'has no'} 'context'; every record must have the same "
                                     f"keys", line=line_no)
        hyps.append(hyp)
        refs.append(rs)
        contexts.append(context)
        if len(hyps) == chunk_records:
            yield hyps, (refs if shape[0] else None), (contexts if shape[1] else None)
            hyps, refs, contexts = [], [], []
    if hyps and shape is not None:   # shape is set by the first record
        yield hyps, (refs if shape[0] else None), (contexts if shape[1] else None)


def iter_jsonl_chunks(path, chunk_records: int = DEFAULT_CHUNK_LINES) -> Iterator[tuple[list[str], list[list[str]]]]:
    """Stream jsonl records ``{"hyp", "refs"}`` as (hyps, refs) chunks."""
    for hyps, refs, _ in iter_jsonl_records(path, chunk_records, require_refs=True):
        assert refs is not None   # require_refs=True
        yield hyps, refs


def read_jsonl(path) -> tuple[list[str], list[list[str]]]:
    """jsonl records ``{"hyp": str, "refs": [str, ...]}`` -> (hyps, refs)."""
    hyps: list[str] = []
    refs: list[list[str]] = []
    for h, r in iter_jsonl_chunks(path):
        hyps.extend(h)
        refs.extend(r)
    return hyps, refs


def read_json_file(path, what: str = "JSON file"):
    """The value of a whole JSON file; bad UTF-8 or JSON is a FormatError with line and column."""
    path = _path(path)
    with open(path, "rb") as f:
        raw = f.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise format_error(path, f"invalid UTF-8 in the {what}", line=line, column=column) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise format_error(path, f"invalid JSON in the {what}: {exc.msg}", line=exc.lineno,
                           column=exc.colno) from None
    except (ValueError, RecursionError) as exc:  # a number of too many digits, or deep nesting
        raise format_error(path, f"unreadable {what} ({type(exc).__name__}: {exc})") from None


def read_dstc_json(path) -> tuple[list, list[str], list[list[str]]]:
    """DSTC-style json: a list of records (or jsonl) with ``context``, ``response``, ``reference``.

    Returns (contexts, responses, references); ``reference`` may be a string or a list.
    """
    path = _path(path)
    with open(path, "rb") as f:
        is_list = f.read(4096).lstrip().startswith(b"[")
    if is_list:
        records = read_json_file(path, "DSTC json file")
        numbered = list(enumerate(records, 1))
        place = lambda i: {"record": i}  # noqa: E731
    else:
        numbered = list(iter_json_lines(path))
        place = lambda i: {"line": i}  # noqa: E731
    contexts, responses, references = [], [], []
    for i, rec in numbered:
        if not isinstance(rec, dict):
            raise format_error(path, "expected a JSON object", **place(i))
        missing = [k for k in ("response", "reference") if k not in rec]
        if missing:
            raise format_error(path, f"record has no {missing[0]!r} key", **place(i))
        ref = rec["reference"]
        ref = [ref] if isinstance(ref, str) else ref
        if not isinstance(rec["response"], str) or not isinstance(ref, list) or not ref or \
                not all(isinstance(r, str) for r in ref):
            raise format_error(path, "'response' must be a string and 'reference' a non-empty list of strings",
                               **place(i))
        check_text_field(rec["response"], "'response'", path, **place(i))
        for j, r in enumerate(ref):
            check_text_field(r, f"'reference'[{j}]", path, **place(i))
        contexts.append(rec.get("context"))
        responses.append(rec["response"])
        references.append(ref)
    return contexts, responses, references


def read_numbers(path, what: str = "number") -> list[float]:
    """One finite number per non-blank line (e.g. human ratings), errors naming file:line."""
    numbers = []
    for line_no, line in enumerate(read_lines(path), 1):
        if not line.strip():
            continue
        try:
            value = float(line)
        except ValueError:
            raise format_error(path, f"{line.strip()[:40]!r} is not a {what}", line=line_no) from None
        if not math.isfinite(value):
            raise format_error(path, f"{line.strip()!r} is not a finite {what}", line=line_no)
        numbers.append(value)
    if not numbers:
        raise format_error(path, f"no {what}s in the file")
    return numbers


_INDEX = re.compile(r"\b(hyps|refs|hypotheses|references)\[(\d+)\]")


def relocate_chunk_error(error: Exception, first: int, source) -> Exception:
    """The error a chunk of a streamed input raised, with its ``hyps[i]``/``refs[i]``
    indices made absolute (the chunk starts at response ``first``, 0-based) and the
    input file named."""
    message = _INDEX.sub(lambda m: f"{m[1]}[{int(m[2]) + first}]", str(error))
    try:
        relocated = type(error)(f"{os.fspath(source)}: {message}")
    except TypeError:  # an exception type that does not take a message
        relocated = ValueError(f"{os.fspath(source)}: {message}")
    return relocated

