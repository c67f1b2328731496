"""The command line's conventions (sacrebleu's): '-' for stdin and stdout, --format json on a
clean stdout, `fastamfm metrics`, `python -m fastamfm`, --precision, exit statuses, help texts."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import fastamfm
import pytest
from fastamfm.cli import build_parser, main

PYTHON_DIR = Path(fastamfm.__file__).resolve().parents[1]
HYPS = ["the cat sat on the mat", "hello there my friend", "it is raining again today"]
REFS = ["the cat is on the mat", "hello my friend", "it rains again today"]


def _files(tmp_path):
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("\n".join(HYPS) + "\n")
    ref.write_text("\n".join(REFS) + "\n")
    return str(hyp), str(ref)


def _run(args, *, stdin=None, cwd=None):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(PYTHON_DIR), os.environ.get("PYTHONPATH"))
                                                      if p))
    return subprocess.run([sys.executable, "-m", "fastamfm", *args], input=stdin, capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=300)


def test_stdin_hypotheses_to_json_stdout(tmp_path):
    """Hypotheses piped in, one JSON document out: nothing else on stdout."""
    _, ref = _files(tmp_path)
    proc = _run(["score", "--hyp", "-", "--ref", ref, "--metrics", "bleu,sacrebleu", "--format", "json",
                 "--sentences"], stdin="\n".join(HYPS) + "\n")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    expected = fastamfm.bleu(HYPS, [[r] for r in REFS])
    assert doc["corpus"]["Bleu_4"] == pytest.approx(expected.corpus["Bleu_4"], rel=1e-9)
    assert doc["responses"] == 3 and doc["inputs"][0] == "<stdin>"
    assert [row["id"] for row in doc["sentences"]] == [0, 1, 2]
    assert doc["sentences"][0]["Bleu_1"] == pytest.approx(expected.sentences["Bleu_1"][0], rel=1e-6)
    assert doc["signatures"]["bleu"].startswith("bleu|")
    assert doc["signatures"]["sacrebleu"].startswith("nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:")


def test_sacrebleu_signature_is_sacrebleus(tmp_path, capsys):
    sacrebleu = pytest.importorskip("sacrebleu")
    hyp, ref = _files(tmp_path)
    ref2 = tmp_path / "ref2.txt"
    ref2.write_text("\n".join(REFS[::-1]) + "\n")
    assert main(["score", "--hyp", hyp, "--ref", ref, "--ref", str(ref2), "--metrics", "sacrebleu",
                 "--no-progress"]) == 0
    printed = dict(line.split(": ", 1) for line in capsys.readouterr().out.splitlines())
    bleu = sacrebleu.BLEU()
    score = bleu.corpus_score(HYPS, [REFS, REFS[::-1]])
    assert float(printed["sacreBLEU"]) == pytest.approx(score.score, abs=1e-6)
    ours = printed["signature sacrebleu"]
    theirs = str(bleu.get_signature())
    assert ours.rsplit("|version:", 1)[0] == theirs.rsplit("|version:", 1)[0]


def test_stdin_references_and_one_dash_only(tmp_path, capsys):
    hyp, ref = _files(tmp_path)
    proc = _run(["score", "--hyp", hyp, "--ref", "-", "--metrics", "rouge_l", "--format", "json"],
                stdin=Path(ref).read_text())
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["corpus"]["ROUGE_L"] == pytest.approx(
        fastamfm.rouge_l(HYPS, [[r] for r in REFS]).corpus["ROUGE_L"], rel=1e-9)
    assert main(["score", "--hyp", "-", "--ref", "-", "--metrics", "bleu"]) == 1
    assert "only one input may be '-'" in capsys.readouterr().err


def test_stdin_error_names_stdin(tmp_path):
    _, ref = _files(tmp_path)
    proc = _run(["score", "--hyp", "-", "--ref", ref, "--metrics", "bleu"], stdin="just one line\n")
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1].startswith("fastamfm: error:")
    assert "<stdin>" in proc.stderr and "fastamfm-stdin" not in proc.stderr


@pytest.mark.parametrize("fmt", ["jsonl", "tsv"])
def test_rows_to_stdout(tmp_path, capsys, fmt):
    """--out - (or --format jsonl|tsv alone): the rows on stdout, the corpus scores on stderr."""
    hyp, ref = _files(tmp_path)
    assert main(["score", "--hyp", hyp, "--ref", ref, "--metrics", "bleu", "--out", "-", "--format", fmt,
                 "--no-progress"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    if fmt == "jsonl":
        assert [json.loads(line)["id"] for line in lines] == [0, 1, 2]
    else:
        assert lines[0] == "id\tBleu_1\tBleu_2\tBleu_3\tBleu_4" and len(lines) == 4
    assert "Bleu_4: " in captured.err and "signature bleu" in captured.err
    assert main(["score", "--hyp", hyp, "--ref", ref, "--metrics", "bleu", "--format", fmt, "--no-progress"]) == 0
    assert capsys.readouterr().out.splitlines() == lines


def test_precision(tmp_path, capsys):
    hyp, ref = _files(tmp_path)
    assert main(["score", "--hyp", hyp, "--ref", ref, "--metrics", "rouge_l", "--precision", "2",
                 "--no-progress"]) == 0
    value = capsys.readouterr().out.splitlines()[0].split(": ")[1]
    assert len(value.split(".")[1]) == 2
    assert main(["score", "--hyp", hyp, "--ref", ref, "--metrics", "rouge_l", "--format", "tsv", "--precision", "3",
                 "--no-progress"]) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    assert all(len(row.split("\t")[1].split(".")[1]) == 3 for row in rows)
    assert main(["score", "--hyp", hyp, "--ref", ref, "--metrics", "rouge_l", "--format", "json", "--precision",
                 "1"]) == 0
    exact = fastamfm.rouge_l(HYPS, [[r] for r in REFS]).corpus["ROUGE_L"]
    assert json.loads(capsys.readouterr().out)["corpus"]["ROUGE_L"] == pytest.approx(exact, rel=1e-12)


def test_json_with_out_file_keeps_stdout_clean(tmp_path, capsys):
    hyp, ref = _files(tmp_path)
    out = tmp_path / "rows.tsv"
    assert main(["score", "--hyp", hyp, "--ref", ref, "--metrics", "bleu", "--format", "json", "--out", str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "sentences" not in doc and out.read_text().startswith("id\tBleu_1")
    assert main(["score", "--hyp", hyp, "--ref", ref, "--format", "json", "--out", "-"]) == 1
    assert main(["score", "--hyp", hyp, "--ref", ref, "--sentences"]) == 1


def test_metrics_command(capsys):
    from fastamfm import registry

    assert main(["metrics", "--format", "json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["metrics"]}
    assert list(rows) == list(registry.names())
    assert rows["bleu"]["columns"] == ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4"] and rows["bleu"]["needs_references"]
    assert not rows["distinct"]["needs_references"] and rows["distinct"]["available"]
    assert rows["amfm"]["model_kind"] == "amfm"
    assert rows["embedding_average"]["needs_option"] and "vectors" in rows["embedding_average"]["missing"]
    assert rows["deep_amfm"]["extra"] == "deep"
    assert main(["metrics"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0].split()[:3] == ["name", "refs", "contexts"]
    for name in registry.names():
        assert any(line.split()[0] == name for line in text.splitlines() if line.strip())


def test_python_dash_m_fastamfm():
    proc = _run(["metrics", "--format", "json"])
    assert proc.returncode == 0, proc.stderr
    assert "bleu" in {r["name"] for r in json.loads(proc.stdout)["metrics"]}
    assert _run(["--version"]).stdout.startswith("fastamfm ")


def test_directory_input_is_named_a_directory(tmp_path, capsys):
    _, ref = _files(tmp_path)
    assert main(["score", "--hyp", str(tmp_path), "--ref", ref, "--metrics", "bleu"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("fastamfm: error:") and "is a directory" in err and "--hyp" in err
    assert "no such file" not in err


def test_reference_free_metric_needs_no_ref(tmp_path, capsys):
    hyp, _ = _files(tmp_path)
    assert main(["score", "--hyp", hyp, "--metrics", "distinct", "--no-progress"]) == 0
    printed = dict(line.split(": ", 1) for line in capsys.readouterr().out.splitlines())
    assert float(printed["Distinct_1"]) == pytest.approx(fastamfm.distinct(HYPS)["distinct_1"], abs=1e-6)
    assert main(["score", "--hyp", hyp, "--metrics", "distinct,bleu"]) == 1
    err = capsys.readouterr().err
    assert "score needs --ref files for bleu" in err


def test_internal_error_is_not_a_user_error(monkeypatch, capsys):
    """A TypeError from fastamfm itself is a bug: its traceback and status 3, never 'error: ...'."""
    def broken():
        raise TypeError("unsupported operand type(s) for +: 'int' and 'str'")

    monkeypatch.setattr("fastamfm.cli.metric_rows", broken)
    assert main(["metrics"]) == 3
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "TypeError: unsupported operand" in err
    assert "fastamfm: error:" not in err and "internal error" in err


def test_debug_prints_the_traceback_of_a_user_error(tmp_path, capsys):
    assert main(["score", "--hyp", str(tmp_path / "nope.txt"), "--ref", "x", "--metrics", "bleu"]) == 1
    assert "Traceback" not in capsys.readouterr().err
    assert main(["score", "--debug", "--hyp", str(tmp_path / "nope.txt"), "--ref", "x", "--metrics", "bleu"]) == 1
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and err.splitlines()[-1].startswith("fastamfm: error:")


def test_usage_error_exits_2():
    proc = _run(["score", "--format", "yaml"])
    assert proc.returncode == 2 and "invalid choice" in proc.stderr


def test_local_workers_are_quiet(tmp_path):
    pytest.importorskip("distributed")
    hyp, ref = _files(tmp_path)
    proc = _run(["score", "--hyp", hyp, "--ref", ref, "--metrics", "bleu", "--local-workers", "1", "--no-progress",
                 "--format", "json"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["corpus"]["Bleu_1"] > 0
    noise = [line for line in proc.stderr.splitlines() if "responses" not in line]
    assert len(noise) <= 3, proc.stderr


def _subparsers():
    parser = build_parser()
    command = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return parser, command.choices


def test_every_option_has_help_and_shows_its_default():
    parser, commands = _subparsers()
    for name, sub in [("fastamfm", parser), *commands.items()]:
        text = sub.format_help()
        for action in sub._actions:
            if isinstance(action, argparse._SubParsersAction) or action.dest in ("help", "version"):
                continue
            assert action.help, f"{name} {action.option_strings or action.dest}: no help text"
            if action.option_strings and action.default not in (None, False, argparse.SUPPRESS):
                assert "default" in sub._get_formatter()._get_help_string(action), \
                    f"{name} {action.option_strings}: default {action.default!r} not shown"
        assert "show this help" in text
    correlate = commands["correlate"].format_help()
    assert "pearson,spearman,kendall" in correlate
    assert "(default: 100)" in " ".join(commands["train"].format_help().split())


def test_an_option_no_metric_reads_is_a_user_error(tmp_path, capsys):
    """--vectors with --metrics bleu: the user's mistake (status 1, one line), not the pipeline's TypeError."""
    hyp, ref = _files(tmp_path)
    assert main(["score", "--hyp", hyp, "--ref", ref, "--metrics", "bleu", "--vectors", hyp]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("fastamfm: error: --vectors is read by embedding_average")


def test_progress_counts_the_scored_responses_only(caplog):
    """The bar's count is score_files' (or the partitions') responses; a model load before the
    first chunk or CIDEr's pass over the references is what the bar says it is doing, not a
    response scored."""
    import logging

    from fastamfm.cli import _Progress
    from fastamfm.progress import ProgressUpdate

    progress = _Progress(total=4, enabled=True)
    progress.draws = False          # the log lines a pipe or a file gets
    with caplog.at_level(logging.INFO, logger="fastamfm"):
        progress(ProgressUpdate("loading the encoder", 1, 1, "step", 0))
        progress(ProgressUpdate("reference pass (cider)", 4, 4, "resp", 0))
        assert progress.done == 0 and progress.inside == "reference pass (cider) 4/4 resp"
        progress(ProgressUpdate("LM forward passes", 1, 2, "batch", 1))
        progress(ProgressUpdate("score_files", 4, 4, "resp", 0))
    assert progress.done == 4
    assert caplog.messages[-1].startswith("4 / 4 responses")


def test_a_pipe_as_input_file(tmp_path):
    """bash's ``--ref <(command)`` and a FIFO: a path that reads once, copied like stdin; the
    scores equal the same file's, and an error names the pipe, not the temporary copy."""
    import threading

    hyp, ref = _files(tmp_path)
    fifo = tmp_path / "refs.fifo"

    def feed(text: str) -> threading.Thread:
        os.mkfifo(fifo)

        def write() -> None:
            with open(fifo, "w") as f:
                f.write(text)

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        return writer

    writer = feed("\n".join(REFS) + "\n")
    piped = _run(["score", "--hyp", hyp, "--ref", str(fifo), "--metrics", "bleu", "--format", "json"])
    writer.join(timeout=60)
    assert piped.returncode == 0, piped.stderr
    plain = _run(["score", "--hyp", hyp, "--ref", ref, "--metrics", "bleu", "--format", "json"])
    assert json.loads(piped.stdout)["corpus"] == json.loads(plain.stdout)["corpus"]
    assert json.loads(piped.stdout)["inputs"][1] == str(fifo)
    fifo.unlink()
    writer = feed("just one line\n")
    short = _run(["score", "--hyp", hyp, "--ref", str(fifo), "--metrics", "bleu"])
    writer.join(timeout=60)
    assert short.returncode == 1 and str(fifo) in short.stderr and "fastamfm-stdin" not in short.stderr
