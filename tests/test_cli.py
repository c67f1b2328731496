"""The fastamfm command: score / train / correlate / report, errors, and a killed run."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import fastamfm
import numpy as np
import pytest
from amfm_helpers import tiny_corpus, tiny_pairs, train_tiny
from fastamfm import AMFM
from fastamfm.cli import main

# The folder holding the fastamfm these tests imported (installed, or the developer tree),
# so subprocesses run the same build.
PYTHON_DIR = Path(fastamfm.__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "amfm"
    train_tiny().save(path)
    return path


def _write_pairs(tmp_path, n, n_refs=2, seed=1):
    hyps, refs = tiny_pairs(n, n_refs=n_refs, seed=seed)
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("\n".join(hyps) + "\n")
    ref_paths = []
    for k in range(n_refs):
        p = tmp_path / f"ref{k}.txt"
        p.write_text("\n".join(r[k] for r in refs) + "\n")
        ref_paths.append(str(p))
    return hyps, refs, str(hyp), ref_paths


def _ref_args(ref_paths):
    return [a for p in ref_paths for a in ("--ref", p)]


def test_score_writes_per_response_and_prints_corpus(model_dir, tmp_path, capsys):
    hyps, refs, hyp, ref_paths = _write_pairs(tmp_path, 120)
    out = tmp_path / "scores.tsv"
    rc = main(["score", "--hyp", hyp, *_ref_args(ref_paths), "--model", str(model_dir), "--out", str(out),
               "--no-progress", "--chunk-size", "50"])
    assert rc == 0
    expected = AMFM.load(model_dir).score(hyps, refs)
    printed = dict(line.split(": ", 1) for line in capsys.readouterr().out.splitlines())
    assert float(printed["AM-FM"]) == pytest.approx(expected.corpus["AM-FM"], abs=1e-6)
    assert printed["signature amfm"] == expected.signature
    lines = out.read_text().splitlines()
    assert lines[0] == "id\tAM\tFM\tAM-FM"
    np.testing.assert_allclose([float(x.split("\t")[3]) for x in lines[1:]], expected.amfm, rtol=1e-8, atol=1e-12)


def test_score_lam_override_and_jsonl(model_dir, tmp_path, capsys):
    hyps, refs = tiny_pairs(30)
    jsonl = tmp_path / "in.jsonl"
    jsonl.write_text("".join(json.dumps({"hyp": h, "refs": r}) + "\n" for h, r in zip(hyps, refs)))
    assert main(["score", "--jsonl", str(jsonl), "--model", str(model_dir), "--lam", "0.9", "--metrics", "amfm",
                 "--no-progress"]) == 0
    value = float(capsys.readouterr().out.splitlines()[0].split(": ")[1])
    assert value == pytest.approx(AMFM.load(model_dir, lam=0.9).score(hyps, refs).corpus["AM-FM"], abs=1e-6)


def test_train_then_score(tmp_path, capsys):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(tiny_corpus(1500)) + "\n")
    out = tmp_path / "model"
    assert main(["train", "--corpus", str(corpus), "--out", str(out), "--dims", "6", "--order", "2",
                 "--tokenize", "whitespace", "--lam", "0.8", "--smoothing", "katz"]) == 0
    assert "saved" in capsys.readouterr().out
    model = AMFM.load(out)
    assert model.dims == 6 and model.lm.order == 2 and model.settings.lam == 0.8


def test_correlate_system_table_and_per_response_outputs(model_dir, tmp_path, capsys):
    human = tmp_path / "human.tsv"
    human.write_text("system\tscore\nA\t3.1\nB\t3.5\nC\t2.9\nD\t3.3\nREF\t4.0\n")
    table = tmp_path / "table.tsv"
    table.write_text("system\tm1\tm2\nA\t0.1\t0.5\nB\t0.4\t0.2\nC\t0.05\t0.3\nD\t0.3\t0.1\n")
    assert main(["correlate", "--human", str(human), "--scores", str(table), "--matrix"]) == 0
    out = capsys.readouterr().out
    import scipy.stats as st

    r = st.pearsonr([0.1, 0.4, 0.05, 0.3], [3.1, 3.5, 2.9, 3.3])[0]
    line = next(x for x in out.splitlines() if x.startswith("m1") and "pearson" in x)
    assert float(line.split()[3]) == pytest.approx(r, abs=1e-4)

    outputs = []
    for i, name in enumerate("ABCD"):
        _, _, hyp, ref_paths = _write_pairs(tmp_path, 20 + i, seed=i)
        o = tmp_path / f"{name}.jsonl"
        assert main(["score", "--hyp", hyp, *_ref_args(ref_paths), "--model", str(model_dir), "--out", str(o),
                     "--no-progress"]) == 0
        outputs += ["--system", f"{name}={o}"]
    capsys.readouterr()
    assert main(["correlate", "--human", str(human), *outputs, "--metrics", "AM-FM", "--methods", "pearson",
                 "--bootstrap", "20"]) == 0
    assert "AM-FM" in capsys.readouterr().out


def test_report_html(model_dir, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    _, refs, _, ref_paths = _write_pairs(tmp_path, 40, n_refs=2, seed=3)
    hyp_dir = tmp_path / "systems"
    hyp_dir.mkdir()
    rng = np.random.default_rng(0)
    human_lines = ["system\tscore"]
    for i in range(5):
        hyps, _ = tiny_pairs(40, seed=10 + i)
        mixed = [r[0] if rng.random() < i / 5 else h for h, r in zip(hyps, refs)]
        (hyp_dir / f"S_{i}.txt").write_text("\n".join(mixed) + "\n")
        human_lines.append(f"S_{i}\t{2 + i * 0.3 + rng.random() * 0.1:.3f}")
    human = tmp_path / "human.tsv"
    human.write_text("\n".join(human_lines) + "\n")
    out = tmp_path / "report.html"
    assert main(["report", "--human", str(human), *_ref_args(ref_paths), "--hyp-dir", str(hyp_dir),
                 "--model", str(model_dir), "--metrics", "am,fm,amfm", "--dims", "2,4,8", "--out", str(out)]) == 0
    text = out.read_text()
    # scatter, clustered heatmap, metric significance matrix, forest plot, curves
    assert text.count("data:image/png;base64,") == 5
    assert "TUNED ON THE EVALUATION DATA" in text

    # Default metrics (all that run here) and the default dimension sweep (2, 5 and the model's 8).
    assert main(["report", "--human", str(human), *_ref_args(ref_paths), "--hyp-dir", str(hyp_dir),
                 "--model", str(model_dir), "--lams", "0.3,0.6", "--out", str(out)]) == 0
    text = out.read_text()
    # scatter, clustered heatmap, metric significance matrix, forest plot, Distinct-n, curves
    assert text.count("data:image/png;base64,") == 6
    hyps = (hyp_dir / "S_3.txt").read_text().splitlines()
    expected = {"ROUGE_L": fastamfm.rouge_l(hyps, refs).corpus["ROUGE_L"],
                "CIDEr": fastamfm.cider(hyps, refs).corpus["CIDEr"],
                "Bleu_2": fastamfm.bleu(hyps, refs).corpus["Bleu_2"], "Distinct-2": fastamfm.distinct(hyps)["distinct_2"]}
    row = re.search(r"<tr><td>S_3</td>(.*?)</tr>", text).group(1)
    for value in expected.values():
        assert f"<td>{value:.4f}</td>" in row
    for column in ("Bleu_4", "CIDEr", "AM-FM", "Distinct-1 (utterance)"):
        assert f"<th>{column}</th>" in text


@pytest.mark.parametrize("argv, message", [
    (["score", "--hyp", "/nonexistent/h.txt", "--ref", "/nonexistent/r.txt"], "no such file"),
    (["score", "--hyp", "h.tsv"], "score needs --ref files for am, fm, amfm"),
    (["score", "--jsonl", "x.jsonl", "--hyp", "h.txt"], "either --jsonl or --hyp/--ref"),
    (["train", "--corpus", "/nonexistent/c.txt", "--out", "m"], "/nonexistent/c.txt: no such file"),
    (["correlate", "--human", "h.tsv", "--system", "noequals"], "NAME=PATH"),
])
def test_errors_are_one_line_with_status_1(argv, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "h.tsv").write_text("A\t1\n")
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("fastamfm: error:") and message in err


def test_bad_model_and_mismatched_files(model_dir, tmp_path, capsys):
    _, _, hyp, ref_paths = _write_pairs(tmp_path, 10)
    short = tmp_path / "short.txt"
    short.write_text("a\n")
    assert main(["score", "--hyp", hyp, "--ref", str(short), "--model", str(model_dir), "--no-progress"]) == 1
    assert "line counts differ" in capsys.readouterr().err
    assert main(["score", "--hyp", hyp, *_ref_args(ref_paths), "--model", str(tmp_path), "--no-progress"]) == 1
    assert "not an AM-FM model directory" in capsys.readouterr().err


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["score", "--chunk-size", "0"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit):
        main([])


def test_killed_score_run_leaves_no_truncated_output_and_resumes(model_dir, tmp_path):
    """SIGKILL a real `fastamfm score` process mid-run, then rerun it to completion."""
    n = 120_000
    hyps, refs, hyp, ref_paths = _write_pairs(tmp_path, n, n_refs=2)
    out = tmp_path / "scores.jsonl"
    env = dict(os.environ, PYTHONPATH=str(PYTHON_DIR))
    cmd = [sys.executable, "-m", "fastamfm.cli", "-q", "score", "--hyp", hyp, *_ref_args(ref_paths), "--model",
           str(model_dir), "--out", str(out), "--chunk-size", "500", "--no-progress", "--workers", "1"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    parts = tmp_path / "scores.jsonl.parts"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if len(list(parts.glob("*.statistics.json"))) >= 2:
            break
        time.sleep(0.002)
    assert proc.poll() is None, f"the run ended before it could be killed: {proc.stderr.read().decode()}"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not out.exists()
    done = len(list(parts.glob("*.statistics.json")))
    assert 2 <= done < n // 500
    rerun = subprocess.run(cmd, env=env, capture_output=True, text=True)
    assert rerun.returncode == 0, rerun.stderr
    rows = out.read_text().splitlines()
    assert len(rows) == n
    expected = AMFM.load(model_dir).score(hyps, refs).amfm
    got = np.array([json.loads(r)["AM-FM"] for r in rows])
    np.testing.assert_allclose(got, expected, rtol=1e-8, atol=1e-12)
    assert not parts.exists()


def test_progress_bar_when_tqdm_is_installed(model_dir, tmp_path, capsys, monkeypatch):
    pytest.importorskip("tqdm")
    monkeypatch.setattr("fastamfm.cli.stderr_is_terminal", lambda: True)    # a bar is for a terminal
    _, _, hyp, ref_paths = _write_pairs(tmp_path, 30)
    # A run shorter than the bar's delay prints no bar at all ...
    assert main(["score", "--hyp", hyp, *_ref_args(ref_paths), "--model", str(model_dir)]) == 0
    assert "30/30" not in capsys.readouterr().err
    # ... a longer one does (here: no delay), and -q never.
    monkeypatch.setattr("fastamfm.cli.BAR_DELAY", 0.0)
    assert main(["score", "--hyp", hyp, *_ref_args(ref_paths), "--model", str(model_dir)]) == 0
    err = capsys.readouterr().err
    # Before the first chunk ends the bar shows the step inside it (here: the metrics done).
    assert "30/30" in err and all("metrics" in line for line in re.findall(r"(?<!\d)0/30[^\r\n]*", err))
    assert main(["score", "-q", "--hyp", hyp, *_ref_args(ref_paths), "--model", str(model_dir)]) == 0
    assert capsys.readouterr().err == ""


def test_plain_log_lines_without_tqdm(model_dir, tmp_path, capsys, monkeypatch, caplog):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    _, _, hyp, ref_paths = _write_pairs(tmp_path, 30)
    with caplog.at_level("INFO", logger="fastamfm"):
        assert main(["score", "--hyp", hyp, *_ref_args(ref_paths), "--model", str(model_dir)]) == 0
    assert any("30 / 30 responses" in r.getMessage() for r in caplog.records)


def test_correlate_utterance_level(model_dir, tmp_path, capsys):
    import scipy.stats as st

    outputs, amfm = [], []
    for i, name in enumerate("AB"):
        hyps, refs, hyp, ref_paths = _write_pairs(tmp_path, 15, seed=30 + i)
        o = tmp_path / f"{name}.tsv"
        assert main(["score", "--hyp", hyp, *_ref_args(ref_paths), "--model", str(model_dir), "--out", str(o),
                     "--no-progress"]) == 0
        outputs += ["--system", f"{name}={o}"]
        amfm.append(AMFM.load(model_dir).score(hyps, refs).amfm)
    ratings = np.random.default_rng(0).random(30)
    (tmp_path / "ratings.txt").write_text("\n".join(f"{r:.6f}" for r in ratings) + "\n")
    capsys.readouterr()
    assert main(["correlate", "--level", "utterance", "--human", str(tmp_path / "ratings.txt"), *outputs,
                 "--metrics", "AM-FM", "--methods", "pearson"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("AM-FM"))
    expected = st.pearsonr(np.concatenate(amfm), np.round(ratings, 6))[0]
    assert float(line.split()[3]) == pytest.approx(expected, abs=1e-4)
