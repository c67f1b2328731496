"""Progress and logging (issue 42, part 6): ``progress=`` on every slow call, advanced per
step (a forward batch, a chunk, a resample), not per call; ``False`` silent, ``True`` a bar,
a callable hears every ``ProgressUpdate``; loggers per module under ``fastamfm``; the
library never prints to stdout."""
from __future__ import annotations

import ast
import io
import logging
from pathlib import Path

import numpy as np
import pytest

import fastamfm
from fastamfm import progress as progress_module
from fastamfm.progress import ProgressUpdate, reporting, task

PACKAGE = Path(fastamfm.__file__).parent
# The command line's own output (its results, saved paths) is what it prints, on purpose.
COMMANDS = {"cli.py", "training/command.py", "training/build_blocklist.py", "analysis/compare_command.py"}

HYPS = ["i like hiking and reading books .", "ok , see you", "Do you have any pets? yes, a dog named Max",
        "the weather is nice today", "i am not sure what you mean", "thanks , that helps a lot"]
CONTEXTS = [["hello , how are you today ?", "what do you like to do on weekends ?"], ["bye"],
            ["Do you have any pets?", "Yes, two cats.", "nice"], ["how is it outside ?"],
            ["the flight leaves at nine"], ["here is the link"]]


class Heard:
    """A progress callable that keeps every update."""

    def __init__(self):
        self.updates: list = []

    def __call__(self, update: ProgressUpdate) -> None:
        self.updates.append(update)

    def tasks(self) -> dict:
        """{task: (steps heard, last done, total, depth)}"""
        out: dict = {}
        for u in self.updates:
            steps = out.get(u.task, (0,))[0]
            out[u.task] = (steps + 1, u.done, u.total, u.depth)
        return out


def test_a_callable_hears_each_step_of_nested_tasks():
    heard = Heard()
    with reporting(heard):
        with task("outer", total=2, unit="chunk") as outer:
            for _ in range(2):
                with task("inner", total=3, unit="batch") as inner:
                    for _ in range(3):
                        inner.advance()
                outer.advance()
    assert [(u.task, u.done, u.depth) for u in heard.updates[:4]] == [
        ("inner", 1, 1), ("inner", 2, 1), ("inner", 3, 1), ("outer", 1, 0)]
    assert heard.tasks() == {"inner": (6, 3, 3, 1), "outer": (2, 2, 2, 0)}


def test_false_silences_every_task_inside_and_true_draws_a_bar(monkeypatch):
    heard = Heard()
    with reporting(heard), reporting(False), task("quiet", total=2) as quiet:
        quiet.advance(2)
    assert heard.updates == []
    monkeypatch.setattr(progress_module, "BAR_DELAY", 0.0)
    stderr = io.StringIO()
    monkeypatch.setattr("sys.stderr", stderr)
    with reporting(True), task("drawn", total=4, unit="batch") as drawn:
        drawn.advance(4)
    assert "drawn" in stderr.getvalue() and "4/4" in stderr.getvalue()
    with task("default, not a terminal", total=1) as default:   # stderr is a StringIO: no bar
        default.advance()
    assert "default" not in stderr.getvalue()


def test_a_terminal_that_reports_no_size_still_shows_the_bar(tmp_path):
    """A pseudo-terminal of 0 x 0 (``docker run -t``, ``script`` without a terminal): the
    default bar is drawn at a fixed width, not at tqdm's width 0 (which draws nothing)."""
    import os
    import pty
    import subprocess
    import sys

    script = tmp_path / "steps.py"
    script.write_text("from fastamfm import progress\nprogress.BAR_DELAY = 0.0\n"
                      "with progress.task('sized', total=3, unit='step') as t:\n    t.advance(3)\n")
    main, terminal = pty.openpty()          # a new pty reports 0 rows and 0 columns
    try:
        env = {**os.environ, "PYTHONPATH": str(PACKAGE.parent)}
        subprocess.run([sys.executable, str(script)], stderr=terminal, stdout=subprocess.DEVNULL, env=env,
                       check=True, timeout=60)
        os.close(terminal)
        terminal = -1
        drawn = b""
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:                  # the terminal end is closed: all is read
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        os.close(main)
        if terminal >= 0:
            os.close(terminal)
    assert b"sized" in drawn and b"3/3" in drawn, drawn


def test_a_bad_option_is_a_clear_error():
    with pytest.raises(TypeError, match="progress must be None, True, False or a callable"):
        with reporting("yes"):
            pass
    with pytest.raises(TypeError, match="progress must be"):
        fastamfm.evaluate(["a b"], [["a b"]], metrics=["bleu"], progress=3)


def test_evaluate_reports_each_metric():
    heard = Heard()
    fastamfm.evaluate(HYPS, [[h] for h in HYPS], metrics=["bleu", "rouge_l", "cider"], progress=heard)
    assert heard.tasks()["metrics"] == (3, 3, 3, 0)


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory):
    pytest.importorskip("torch", reason="the neural metrics need PyTorch (pip install 'fastamfm[deep]')")
    pytest.importorskip("transformers", reason="the neural metrics need transformers (pip install 'fastamfm[deep]')")
    from causal_models import make_model
    from fastamfm.neural.neural_lm import NeuralLM

    # A small forward batch: six replies take several passes, each one step.
    return NeuralLM.load(make_model(tmp_path_factory.mktemp("llama"), "llama", max_positions=1024), device="cpu",
                         batch_tokens=64)


def test_neural_metrics_advance_per_forward_batch(tiny_lm):
    heard = Heard()
    fastamfm.evaluate(HYPS, contexts=CONTEXTS, metrics=["followup", "lm_judge"], lm=tiny_lm, progress=heard)
    tasks = heard.tasks()
    passes = [u for u in heard.updates if u.task == "LM forward passes"]
    # Each metric's call of the LM counts its batches 1, 2, ... total, one level down.
    runs = [u.total for u in passes if u.done == u.total]
    assert len(runs) >= 2 and max(runs) > 1 and {u.depth for u in passes} == {1}
    assert [u.done for u in passes[:runs[0]]] == list(range(1, runs[0] + 1))
    assert tasks["metrics"] == (2, 2, 2, 0)
    # The first metric's batches are heard before the metrics task's first step.
    first_outer = next(i for i, u in enumerate(heard.updates) if u.task == "metrics")
    assert any(u.task == "LM forward passes" for u in heard.updates[:first_outer])


def test_scorer_calls_take_progress(tiny_lm):
    from fastamfm.deep.followup import FollowupScorer
    from fastamfm.deep.lm_judge import LMJudge

    for scorer in (FollowupScorer(tiny_lm), LMJudge(tiny_lm, aspects=["relevance"])):
        heard = Heard()
        quiet = scorer.score(HYPS, contexts=CONTEXTS, progress=False).sentences
        reported = scorer.score(HYPS, contexts=CONTEXTS, progress=heard).sentences
        assert any(u.task.startswith("LM forward passes") for u in heard.updates), type(scorer).__name__
        column = quiet.get("followup", quiet.get("lm_judge"))
        np.testing.assert_array_equal(column, reported.get("followup", reported.get("lm_judge")))


def test_sentence_encoder_advances_per_batch(tiny_bert):
    from fastamfm.neural.encoder import SentenceEncoder

    encoder = SentenceEncoder.load(tiny_bert, device="cpu", batch_size=2)
    heard = Heard()
    fastamfm.deep_am(HYPS, [[h] for h in HYPS], encoder=encoder, progress=heard)
    encoding = [u for u in heard.updates if u.task.startswith("encoding")]
    assert encoding and max(u.done for u in encoding) > 1


def test_bootstrap_advances_per_resample():
    heard = Heard()
    systems = {"a": HYPS, "b": HYPS[::-1]}
    fastamfm.compare_systems(systems, [[h] for h in HYPS], metrics=["bleu"], resamples=50, progress=heard)
    steps, done, total, depth = heard.tasks()["bootstrap resamples"]
    assert done == total == 50 and steps >= 1


def test_score_files_advances_per_chunk_and_reports_the_cider_pre_pass(tmp_path):
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("\n".join(HYPS * 5) + "\n")
    ref.write_text("\n".join(HYPS[::-1] * 5) + "\n")
    heard = Heard()
    fastamfm.score_files(tmp_path / "out.jsonl", hyp=hyp, refs=[ref], metrics=["bleu", "cider"], chunk_size=7,
                         progress=heard)
    tasks = heard.tasks()
    assert tasks["score_files"] == (5, 30, 30, 0)                  # ceil(30 / 7) chunks
    assert tasks["reference pass (cider)"] == (5, 30, 30, 1)       # CIDEr's first pass, inside the run
    assert tasks["metrics"][1:] == (2, 2, 1)                      # per chunk, two metrics


def test_the_library_never_prints():
    """No print() outside the command line's own output, found by reading the source."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative in COMMANDS:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "print":
                found.append(f"{relative}:{node.lineno}")
    assert not found, found


def test_evaluate_writes_nothing_to_stdout(capfd):
    fastamfm.evaluate(HYPS, [[h] for h in HYPS], metrics=["bleu", "meteor", "rouge_l", "cider"], progress=True)
    out, _ = capfd.readouterr()
    assert out == ""


def test_every_logger_is_named_after_its_module():
    """``logging.getLogger(__name__)``: a user can quiet one subpackage (``fastamfm.training``)."""
    wrong = []
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "getLogger"
                    and node.args and not (isinstance(node.args[0], ast.Name) and node.args[0].id == "__name__")):
                name = ast.literal_eval(node.args[0]) if isinstance(node.args[0], ast.Constant) else None
                # The command line configures the package's logger; sacrebleu's drop-in keeps sacrebleu's;
                # the CLI quiets Dask's by name.
                if relative == "cli.py" or (relative.startswith("compat/sacrebleu") and name == "sacrebleu"):
                    continue
                wrong.append(f"{relative}:{node.lineno} ({name})")
    assert not wrong, wrong
    # ... so a handler or level set on the package's logger reaches every module's records.
    package_logger = logging.getLogger("fastamfm")
    assert logging.getLogger("fastamfm.streaming").parent is package_logger
