"""Quiet by default (issue 37): no warning for what is expected, one fastamfm line per model
load (not transformers' bars) that -q silences, first-time conversions that say what they do
and how long they take, warnings and errors on the command line as one line each, no empty
progress bar before an error; install hints that work from a checkout; the README's
``fastamfm.integrations`` attribute."""
from __future__ import annotations

import gzip
import io
import os
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import fastamfm
import pytest
from fastamfm.cli import main

REPO = Path(__file__).resolve().parents[1]


def _env(**extra) -> dict:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(Path(fastamfm.__file__).resolve().parents[1]), os.environ.get("PYTHONPATH")) if p), **extra}


def test_the_readme_calls_warn_nothing():
    hyps = ["i can check the flight status for you", "we are boarding now"]
    refs = [["please send me your confirmation number", "happy to check on that flight"], ["boarding has started"]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fastamfm.compute_metrics(hyps, refs)
        n = fastamfm.NLGEval(metrics_to_omit=["CIDEr"], no_skipthoughts=True, no_glove=True)
        n.compute_metrics(ref_list=[[r[0] for r in refs], ["", "the gate is open"]], hyp_list=hyps)
        fastamfm.NLGEval()             # nlg-eval's defaults: SkipThought, SPICE, GloVe left out, quietly


def test_integrations_is_an_attribute_after_import_fastamfm():
    """The README's `fastamfm.integrations.evaluate_module_path()` after a plain `import
    fastamfm`, without importing torch or evaluate."""
    code = ("import sys, fastamfm; p = fastamfm.integrations.evaluate_module_path(); "
            "print(p.endswith('fastamfm'), 'torch' in sys.modules, 'evaluate' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "False", "False"]
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        fastamfm.nonexistent


def test_install_hints_work_from_a_checkout():
    from fastamfm.runtime import INSTALL_HINT

    assert 'pip install ".[deep]"' in INSTALL_HINT
    assert "pip install torch --index-url https://download.pytorch.org/whl/cpu" in INSTALL_HINT
    assert "fastamfm[" not in INSTALL_HINT
    # The README and every page of the documentation site (the install lines moved there, issue 43).
    for page in [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]:
        text = page.read_text()
        assert 'install "fastamfm[' not in text and "torch==2.13.0 first" not in text, page
    neural_guide = (REPO / "docs" / "guides" / "reference-free.md").read_text()
    assert "--index-url https://download.pytorch.org/whl/cpu" in neural_guide


def test_cli_warning_is_one_line_and_quiet_keeps_it(tmp_path):
    hyp_a, hyp_b, ref = tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "r.txt"
    hyp_a.write_text("the flight is late\nmy bag is lost\nthank you\n")
    hyp_b.write_text("the flight is on time\nyour bag is here\nthanks a lot\n")
    ref.write_text("the flight is late today\nwe found your bag\nthank you very much\n")
    for quiet in ([], ["-q"]):
        proc = subprocess.run([sys.executable, "-m", "fastamfm.cli", *quiet, "compare", "--hyp", str(hyp_a), "--hyp",
                               str(hyp_b), "--ref", str(ref), "--metrics", "rouge_l", "--resamples", "50"],
                              capture_output=True, text=True, env=_env(), timeout=300)
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr.splitlines() == [
            "fastamfm: warning: compare_systems: only 3 paired responses: the bootstrap of so few responses is too "
            "coarse for its intervals and p-values to be trusted; compare systems on at least 30 responses"]
        assert "note: only 3 paired responses" in proc.stdout


def test_cli_errors_print_no_progress_bar(tmp_path, capsys, monkeypatch):
    pytest.importorskip("tqdm")
    monkeypatch.setattr("fastamfm.cli.BAR_DELAY", 0.0)      # a bar would show at once
    hyp, ref, short = tmp_path / "h.txt", tmp_path / "r.txt", tmp_path / "s.txt"
    hyp.write_text("a b c\nd e f\ng h i\n")
    short.write_text("a b c\n")
    ref.write_text("a b c\nd e f\n")
    for argv in (["score", "--hyp", str(tmp_path / "missing.txt"), "--ref", str(ref)],
                 ["score", "--hyp", str(hyp), "--ref", str(ref)],
                 ["score", "--hyp", str(hyp), "--ref", str(ref), "--metrics", "nonsense"]):
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert err.startswith("fastamfm: error:") and err.count("\n") == 1, err
        assert "%|" not in err and "resp/s" not in err


def test_first_meteor_conversion_says_what_and_how_long(tmp_path, monkeypatch, caplog):
    """A made-up METEOR jar (the same members, tiny): the first load converts and says so,
    with the usual duration, the second reads the cache silently."""
    from fastamfm.metrics import meteor_resources

    jar = tmp_path / "meteor" / "meteor-1.5.jar"
    jar.parent.mkdir()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("function/english.words", "the\na\n")
        z.writestr("synonym/english.synsets", "car\n1 2\nauto\n2\n")
        z.writestr("synonym/english.exceptions", "big\nbigger\n")
        z.writestr("nonbreaking/english.prefixes", "Mr\n")
    jar.write_bytes(buffer.getvalue())
    (jar.parent / "data").mkdir()
    with gzip.open(jar.parent / "data" / "paraphrase-en.gz", "wb") as f:
        f.write(b"0.5\nthank you\nthanks\n")
    monkeypatch.setenv("FASTAMFM_CACHE_DIR", str(tmp_path / "cache"))
    with caplog.at_level("INFO", logger="fastamfm"):
        meteor_resources.load(jar.parent)
    messages = [r.getMessage() for r in caplog.records]
    assert messages[0].startswith("converting METEOR 1.5's WordNet synonyms and paraphrase table into ")
    assert messages[0].endswith(f"(once; {meteor_resources.BUILD_TIME})") and "converted in" in messages[1]
    caplog.clear()
    meteor_resources._loaded.clear()
    with caplog.at_level("INFO", logger="fastamfm"):
        meteor_resources.load(jar.parent)
    assert not caplog.records


@pytest.mark.slow
def test_a_model_load_is_one_fastamfm_line_and_q_silences_it(tmp_path, tiny_bert):
    """`fastamfm score --deep` with a GGUF LM converted on first use: stderr names what is
    loaded and converted (with how long the conversion usually takes), in fastamfm's lines,
    without transformers' "Loading weights" or the GGUF reader's bars; -q prints nothing."""
    pytest.importorskip("gguf", reason="needs the gguf package")
    from gguf_models import write_tiny_gguf

    gguf_file = write_tiny_gguf(tmp_path / "tiny.gguf")
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("i can check that flight\nyour bag is here\n")
    ref.write_text("let me check the flight\nwe found your bag\n")
    argv = [sys.executable, "-m", "fastamfm.cli", "score", "--hyp", str(hyp), "--ref", str(ref), "--deep",
            "--lm", str(gguf_file), "--encoder", str(tiny_bert)]
    env = _env(FASTAMFM_CACHE_DIR=str(tmp_path / "cache"), TQDM_DISABLE="")
    loud = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=900)
    assert loud.returncode == 0, loud.stderr
    lines = loud.stderr.splitlines()
    assert all(line.startswith("fastamfm: ") for line in lines), loud.stderr
    assert any(line.startswith("fastamfm: loading the language model") for line in lines)
    assert any(line.startswith("fastamfm: loading the sentence encoder") for line in lines)
    conversion = [line for line in lines if line.startswith("fastamfm: converting the GGUF file tiny.gguf")]
    assert len(conversion) == 2 and conversion[0].endswith("(once; about 1 min per model on two cores)")
    assert conversion[1].startswith("fastamfm: converting the GGUF file tiny.gguf to float32 done in ")
    for noise in ("Loading weights", "Converting and de-quantizing", "it/s]", "%|"):
        assert noise not in loud.stderr
    assert "deep_amfm: " in loud.stdout and "calibrated scale" in loud.stdout
    quiet = subprocess.run(argv[:3] + ["-q"] + argv[3:], capture_output=True, text=True, env=env, timeout=900)
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr
