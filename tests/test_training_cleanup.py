"""A training run that fails before its first checkpoint leaves nothing behind (issue 37):
no ``OUT``, no ``OUT.work``, no folder it created for ``--out``; one that fails after a
checkpoint keeps its work folder for ``--resume``. Both recipes, from the command line."""
from __future__ import annotations

import importlib.util

import pytest
from fastamfm.cli import main
from fastamfm.training.recipe import RecipeRun

KINDS = ("--deep", "--evaluator")


def _corpus(tmp_path, case: str):
    path = tmp_path / f"{case}.txt"
    if case == "empty":
        path.write_bytes(b"")
    elif case == "binary":
        path.write_bytes(bytes(range(256)) * 8)
    elif case == "valid":
        path.write_text("".join(f"my flight {i} is late today\nsorry about flight {i} , let me check\n\n"
                                for i in range(60)))
    return path


def _left_behind(root) -> list:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if not p.name.endswith(".txt"))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case, message", [("missing", "no such corpus file"),
                                           ("empty", "no dialogue in this corpus file (empty)"),
                                           ("binary", "invalid UTF-8")])
def test_a_bad_corpus_leaves_nothing_behind(tmp_path, capsys, kind, case, message):
    corpus = _corpus(tmp_path, case)
    out = tmp_path / "new" / "folder" / "model"           # --out inside folders that do not exist yet
    assert main(["train", kind, "--corpus", str(corpus), "--out", str(out), "--max-steps", "1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("fastamfm: error:") and message in err and err.count("\n") == 1
    assert "%|" not in err                                   # no progress bar before the error
    assert _left_behind(tmp_path) == []


@pytest.mark.parametrize("kind", KINDS)
def test_a_missing_base_model_leaves_nothing_behind(tmp_path, capsys, kind):
    """The corpus is read and scanned, then the base encoder is not there."""
    corpus = _corpus(tmp_path, "valid")
    out = tmp_path / "model"
    assert main(["train", kind, "--corpus", str(corpus), "--out", str(out), "--max-steps", "1", "--no-blocklist",
                 "--encoder", str(tmp_path / "no-such-encoder")]) == 1
    err = capsys.readouterr().err
    if kind == "--deep" and importlib.util.find_spec("torch") is None:  # .ci/pythons: no torch
        assert "the neural metrics need PyTorch" in err
    else:
        assert "no-such-encoder" in err
    assert _left_behind(tmp_path) == []


def test_a_run_keeps_its_work_folder_only_with_something_to_resume(tmp_path):
    out = tmp_path / "m"
    # Settings written, a half-saved checkpoint in staging: nothing a resume could use.
    with pytest.raises(RuntimeError), RecipeRun("t", out, max_minutes=1, max_steps=None, resume=False) as run:
        (run.work / "checkpoints" / "encoder" / ".staging-checkpoint-2").mkdir(parents=True)
        (run.work / "checkpoints" / "encoder" / "settings.json").write_text("{}")
        raise RuntimeError("failed in the first steps")
    assert not (tmp_path / "m.work").exists()
    # A complete checkpoint: kept for --resume (also after Ctrl-C).
    with pytest.raises(KeyboardInterrupt), RecipeRun("t", out, max_minutes=1, max_steps=None, resume=False) as run:
        (run.work / "checkpoints" / "encoder" / "checkpoint-4").mkdir(parents=True)
        raise KeyboardInterrupt
    assert (tmp_path / "m.work" / "checkpoints" / "encoder" / "checkpoint-4").is_dir()
    # A finished stage: kept too.
    with pytest.raises(RuntimeError), RecipeRun("t", out, max_minutes=1, max_steps=None, resume=False) as run:
        (run.work / "encoder-model").mkdir()
        (run.work / "encoder-model" / "stage.json").write_text("{}")
        raise RuntimeError("the LM stage failed")
    assert (tmp_path / "m.work" / "encoder-model" / "stage.json").is_file()
