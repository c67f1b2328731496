"""The command line's streams, as sacrebleu's: ``-`` names stdin for an input and stdout for
an output; whatever is not the requested output (logs, progress, warnings) goes to stderr,
so ``--format json`` leaves one JSON document on stdout.

The readers take paths (they seek, count lines, fingerprint a file to resume a run), so
stdin is first copied into a temporary file, and so is an input that can be read only once
(a pipe: bash's ``<(command)``, a FIFO); error messages name it ``<stdin>`` or its own path.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

STDIO = "-"
STDIN_NAME = "<stdin>"

# The options of each subcommand that name input files ("NAME=PATH" pairs for --system):
# the ones that may be "-", checked not to be directories before the command runs.
INPUT_OPTIONS = {
    "score": ("hyp", "ref", "context", "jsonl"),
    "train": ("corpus",),
    "correlate": ("human", "scores", "system"),
    "report": ("human", "ref", "system"),
    "compare": ("hyp", "ref", "context"),
    "fit": ("ratings",),
}
# Options whose value may be NAME=PATH (compare's --hyp: PATH or NAME=PATH).
PAIR_OPTIONS = ("system", "hyp")
# fit tells DSTC-10 JSON from jsonl by the file's extension: no stdin there.
NO_STDIN = {("fit", "ratings")}


def _option(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def _is_pair(dest: str, value: str) -> bool:
    return dest in PAIR_OPTIONS and "=" in value and not os.path.exists(value)


def _values(args, dest: str) -> list:
    """[(index or None, path)] of option ``dest`` (a list for a repeatable option); of a
    NAME=PATH value, the PATH (a malformed pair is left to the command to report)."""
    value = getattr(args, dest, None)
    if value is None:
        return []
    items = list(enumerate(value)) if isinstance(value, list) else [(None, value)]
    if dest == "system":
        return [(i, v.partition("=")[2]) for i, v in items if "=" in v]
    return [(i, v.partition("=")[2] if _is_pair(dest, v) else v) for i, v in items]


def _replace(args, dest: str, index, path: str) -> None:
    value = getattr(args, dest)
    if index is not None and _is_pair(dest, value[index]):
        name = value[index].partition("=")[0]
        value[index] = f"{name}={path}"
    elif index is None:
        setattr(args, dest, path)
    else:
        value[index] = path


class InputFiles:
    """The input files a command was given: the one ``-`` replaced by a temporary copy of
    stdin and each pipe by a temporary copy of what it gives (``bind``), a directory among
    them reported as one (the readers would say "no such file"), and the temporary copies
    removed afterwards (``close``)."""

    def __init__(self) -> None:
        self.dir: str | None = None
        self.stdin_path: str | None = None
        self.shown: dict[str, str] = {}      # temporary copy -> what messages call it

    def _copy(self, source, name: str, suffix: str) -> str:
        """A temporary file holding what ``source`` (a binary stream) gives; messages call it ``name``."""
        if self.dir is None:
            self.dir = tempfile.mkdtemp(prefix="fastamfm-stdin-")
        path = os.path.join(self.dir, f"input{len(self.shown)}{suffix}")
        with open(path, "wb") as f:
            shutil.copyfileobj(source, f, 1 << 20)
        self.shown[path] = name
        return path

    def bind(self, args) -> None:
        command = getattr(args, "command", None)
        dests = INPUT_OPTIONS.get(command or "", ())
        dashes = [(dest, i) for dest in dests for i, path in _values(args, dest) if path == STDIO]
        if len(dashes) > 1:
            raise ValueError(f"only one input may be '-' (stdin), got {', '.join(_option(d) for d, _ in dashes)}")
        if dashes:
            dest, index = dashes[0]
            if (command, dest) in NO_STDIN:
                raise ValueError(f"{_option(dest)} cannot be '-': the file's extension tells its format")
            self.stdin_path = self._copy(sys.stdin.buffer, STDIN_NAME, _suffix(dest))
            _replace(args, dest, index, self.stdin_path)
        for dest in dests:
            for index, path in _values(args, dest):
                if path in self.shown:
                    continue
                # (a missing file the command reports, after its checks of the options)
                if os.path.isdir(path):
                    raise IsADirectoryError(f"{path}: is a directory, not a file ({_option(dest)})")
                if os.path.exists(path) and not os.path.isfile(path):     # a pipe: readable once
                    with open(path, "rb") as source:
                        _replace(args, dest, index, self._copy(source, path, _suffix(dest)))

    def name(self, text: str) -> str:
        """``text`` with each temporary copy called what it copies (``<stdin>``, the pipe's path)."""
        for path, shown in self.shown.items():
            text = text.replace(path, shown)
        return text

    def close(self) -> None:
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = self.stdin_path = None
            self.shown = {}


def _suffix(dest: str) -> str:
    """The extension a reader tells the input's format by."""
    return ".jsonl" if dest == "jsonl" else ".tsv" if dest in ("human", "scores") else ".txt"


def copy_to_stdout(path, *, precision: int | None = None, tsv: bool = False) -> None:
    """The rows a command wrote to ``path``, onto stdout; TSV numbers rounded to
    ``precision`` digits after the point when one is given."""
    sys.stdout.flush()
    if precision is None or not tsv:
        with open(path, "rb") as f:
            shutil.copyfileobj(f, sys.stdout.buffer, 1 << 20)
        sys.stdout.buffer.flush()
        return
    with open(path, encoding="utf-8") as f:
        sys.stdout.write(f.readline())
        for line in f:
            fields = line.rstrip("\n").split("\t")
            sys.stdout.write("\t".join([fields[0], *(format_number(float(x), precision) for x in fields[1:])]) + "\n")
    sys.stdout.flush()


def format_number(value: float, precision: int) -> str:
    return f"{value:.{precision}f}"


def read_rows(path, fmt: str) -> list:
    """The per-response rows of a ``score`` output (jsonl or tsv) as dicts."""
    import json

    rows = []
    with open(path, encoding="utf-8") as f:
        if fmt == "tsv":
            header = f.readline().rstrip("\n").split("\t")
            for line in f:
                fields = line.rstrip("\n").split("\t")
                rows.append({header[0]: int(fields[0]), **{k: float(v) for k, v in zip(header[1:], fields[1:])}})
        else:
            rows = [json.loads(line) for line in f if line.strip()]
    return rows


_DEFAULT_SAID = re.compile(r"\(default\b|default:|%\(default\)")


class HelpFormatter(argparse.HelpFormatter):
    """argparse's ArgumentDefaultsHelpFormatter, without repeating a default the help
    text already says or showing an empty one (None, False)."""

    def _get_help_string(self, action):
        text = action.help or ""
        if (not action.option_strings or action.default in (None, False, argparse.SUPPRESS)
                or _DEFAULT_SAID.search(text)):
            return text
        return f"{text} (default: %(default)s)" if text else "default: %(default)s"
