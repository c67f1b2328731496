"""Reading dialogues from corpus files, streamed: each reader yields ``(turns, line)``
per dialogue (``line``: where the dialogue starts, 1-based), holding one dialogue (and
for JSON one buffer of at most a few lines) in memory at a time.

Formats, chosen by the file name (any of them may be ``.bz2``-compressed):

``*.jsonl``  one dialogue a line, ``{"turns": ["first turn", "reply", ...]}``
             (other fields are ignored), as ``../shared/data/dialogues/``;
``*.json``   the DSTC-10 layout: a JSON list of records ``{"context": "t1\\nt2",
             "response": "..."}``; the context's turns (split at newlines) then the
             response form one dialogue;
otherwise    plain text: one turn a line, a blank line between dialogues.

Bad input is a ``fastamfm.FormatError`` with the path and line: an empty file, a
dialogue of one turn (nothing to learn a reply from), bytes that are not UTF-8, a line
longer than ``fastamfm.limits`` ``max_line_bytes`` (1 MiB by default), a JSON record of
the wrong shape.
"""
from __future__ import annotations

import bz2
import codecs
import json
from pathlib import Path
from typing import Iterator

from .. import limits as _limits
from ..errors import format_error

FORMATS = ("text", "jsonl", "dstc10-json")
_CHUNK = 1 << 20


def corpus_format(path) -> str:
    name = Path(path).name.lower().removesuffix(".bz2")
    if name.endswith(".jsonl"):
        return "jsonl"
    if name.endswith(".json"):
        return "dstc10-json"
    return "text"


def _open(path):
    return bz2.open(path, "rb") if str(path).lower().endswith(".bz2") else open(path, "rb")


def _lines(path) -> Iterator[tuple]:
    """(line number, text without the line end) of every line, each read with a bounded buffer."""
    limit = _limits.get()["max_line_bytes"]
    with _open(path) as f:
        number = 0
        while True:
            raw = f.readline(limit + 2)
            if not raw:
                return
            number += 1
            body = raw.rstrip(b"\r\n")
            if len(body) > limit:
                raise format_error(path, f"line longer than {limit} bytes (fastamfm.limits max_line_bytes; raise "
                                         f"it for corpora with longer lines)", line=number)
            try:
                yield number, body.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise format_error(path, f"invalid UTF-8 at byte {exc.start}", line=number,
                                   column=exc.start + 1) from None


def _check_dialogue(path, turns: list, line: int | None) -> tuple:
    if len(turns) < 2:
        raise format_error(path, f"a dialogue of {len(turns)} turn(s); a dialogue needs at least two (a blank line "
                                 f"separates dialogues)", line=line)
    return tuple(turns)


def _text_dialogues(path) -> Iterator[tuple]:
    turns, start = [], None
    for number, text in _lines(path):
        if text.strip():
            if start is None:
                start = number
            turns.append(text.strip())
        elif turns:
            yield _check_dialogue(path, turns, start), start
            turns, start = [], None
    if turns:
        yield _check_dialogue(path, turns, start), start


def _turn_list(path, value, line: int, field: str) -> list:
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise format_error(path, f'"{field}" must be a list of strings', line=line)
    return [t.strip() for t in value if t.strip()]


def _jsonl_dialogues(path) -> Iterator[tuple]:
    for number, text in _lines(path):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise format_error(path, f"invalid JSON: {exc}", line=number) from None
        if not isinstance(record, dict) or "turns" not in record:
            raise format_error(path, 'expected a JSON object with "turns": [...] on every line', line=number)
        yield _check_dialogue(path, _turn_list(path, record["turns"], number, "turns"), number), number


def _json_records(path) -> Iterator[tuple]:
    """(line, record) of each element of a JSON list, decoded incrementally: the buffer
    holds the records not yet returned, never the whole file."""
    limit = _limits.get()["max_line_bytes"]
    decoder = json.JSONDecoder()
    utf8 = codecs.getincrementaldecoder("utf-8")()
    buffer, at, line, eof = "", 0, 1, False
    with _open(path) as f:
        def more() -> bool:
            nonlocal buffer, at, eof
            if eof:
                return False
            chunk = f.read(_CHUNK)
            eof = not chunk
            try:
                text = utf8.decode(chunk, final=eof)
            except UnicodeDecodeError as exc:
                where = line + buffer.count("\n", at) + chunk[:exc.start].count(b"\n")
                raise format_error(path, "invalid UTF-8", line=where) from None
            buffer = buffer[at:] + text
            at = 0
            return bool(text) or not eof

        def skip_space() -> bool:
            nonlocal at, line
            while True:
                while at < len(buffer) and buffer[at] in " \t\r\n":
                    line += buffer[at] == "\n"
                    at += 1
                if at < len(buffer) or not more():
                    return at < len(buffer)

        if not skip_space() or buffer[at] != "[":
            raise format_error(path, "expected a JSON list of {\"context\", \"response\"} records", line=line)
        at += 1
        first = True
        while True:
            if not skip_space():
                raise format_error(path, "unexpected end of file inside the JSON list", line=line)
            if buffer[at] == "]":
                return
            if not first:
                if buffer[at] != ",":
                    raise format_error(path, "expected ',' or ']' between records", line=line)
                at += 1
                if not skip_space():
                    raise format_error(path, "unexpected end of file inside the JSON list", line=line)
            first = False
            while True:
                try:
                    record, end = decoder.raw_decode(buffer, at)
                    break
                except json.JSONDecodeError as exc:
                    if len(buffer) - at > limit:
                        raise format_error(path, f"a record longer than {limit} bytes, or invalid JSON ({exc.msg})",
                                           line=line) from None
                    if not more():
                        raise format_error(path, f"invalid JSON: {exc.msg}",
                                           line=line + buffer.count("\n", at, exc.pos)) from None
                except RecursionError:
                    raise format_error(path, "JSON nested too deeply", line=line) from None
            start = line
            line += buffer.count("\n", at, end)
            at = end
            yield start, record


def _dstc10_dialogues(path) -> Iterator[tuple]:
    for number, record in _json_records(path):
        if not isinstance(record, dict) or not isinstance(record.get("response"), str) \
                or not isinstance(record.get("context", ""), (str, list)):
            raise format_error(path, 'expected records {"context": "turn\\nturn", "response": "..."}', line=number)
        context = record.get("context", "")
        turns = context.split("\n") if isinstance(context, str) else _turn_list(path, context, number, "context")
        turns = [t.strip() for t in turns if t.strip()] + ([record["response"].strip()] if record["response"].strip()
                                                          else [])
        yield _check_dialogue(path, turns, number), number


_READERS = {"text": _text_dialogues, "jsonl": _jsonl_dialogues, "dstc10-json": _dstc10_dialogues}


def read_dialogues(path) -> Iterator[tuple]:
    """(turns, line) of every dialogue of one corpus file; an empty file is an error."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such corpus file")
    found = False
    for item in _READERS[corpus_format(path)](path):
        found = True
        yield item
    if not found:
        raise format_error(path, "no dialogue in this corpus file (empty)", line=1)
