"""fastamfm compare (table and --json) and the report's significance panels."""
from __future__ import annotations

import json
import random

import fastamfm
import pytest
from amfm_helpers import train_tiny
from fastamfm.cli import main
from test_compare_systems import _corpus


@pytest.fixture()
def files(tmp_path):
    systems, refs = _corpus(n=50, n_systems=3, seed=8)
    paths = {}
    for name, hyps in systems.items():
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_text("\n".join(hyps) + "\n")
    ref_paths = []
    for k in range(2):
        ref_paths.append(tmp_path / f"ref{k}.txt")
        ref_paths[-1].write_text("\n".join(r[k] for r in refs) + "\n")
    return systems, refs, paths, [a for p in ref_paths for a in ("--ref", str(p))]


def test_table_equals_the_api(files, capsys):
    systems, refs, paths, ref_args = files
    rc = main(["compare", "--hyp", str(paths["sys0"]), "--hyp", f"B={paths['sys1']}", "--hyp", str(paths["sys2"]),
               *ref_args, "--metrics", "bleu,rouge_l", "--resamples", "200", "--seed", "3"])
    assert rc == 0
    out = capsys.readouterr().out
    expected = fastamfm.compare_systems({"sys0": systems["sys0"], "B": systems["sys1"], "sys2": systems["sys2"]},
                                        refs, metrics=["bleu", "rouge_l"], resamples=200, seed=3)
    assert str(expected) in out
    assert "signature bleu: bleu|" in out and "|bootstrap:200|seed:3|" in out


def test_json_and_randomization(files, capsys):
    systems, refs, paths, ref_args = files
    rc = main(["compare", "--hyp", str(paths["sys0"]), "--hyp", str(paths["sys1"]), *ref_args, "--metrics",
               "rouge_l", "--method", "randomization", "--resamples", "150", "--baseline", "sys1", "--json"])
    assert rc == 0
    data = json.loads(capsys.readouterr().out)
    expected = fastamfm.compare_systems({"sys0": systems["sys0"], "sys1": systems["sys1"]}, refs,
                                        metrics=["rouge_l"], method="randomization", resamples=150, baseline="sys1")
    assert data == json.loads(expected.to_json())


def test_bad_input_exits_with_one_line(files, tmp_path, capsys):
    systems, refs, paths, ref_args = files
    short = tmp_path / "short.txt"
    short.write_text("\n".join(systems["sys1"][:40]) + "\n")
    cases = [
        (["--hyp", str(paths["sys0"]), "--hyp", str(short)], "short.txt: 40 lines but"),
        (["--hyp", str(paths["sys0"])], "needs at least two systems"),
        (["--hyp", str(paths["sys0"]), "--hyp", str(paths["sys1"]), "--resamples", "0"],
         "resamples must be a positive integer, got 0"),
        (["--hyp", str(paths["sys0"]), "--hyp", f"sys0={paths['sys1']}"], "system 'sys0' given twice"),
    ]
    for args, message in cases:
        assert main(["compare", *args, *ref_args, "--metrics", "rouge_l"]) == 1
        err = capsys.readouterr().err
        assert err.startswith("fastamfm: error:") and message in err


def test_report_has_forest_plot_and_significance_matrix(tmp_path):
    pytest.importorskip("matplotlib")
    rng = random.Random(3)
    systems, refs = _corpus(n=40, n_systems=5, seed=6)
    ref_paths = []
    for k in range(2):
        ref_paths.append(tmp_path / f"ref{k}.txt")
        ref_paths[-1].write_text("\n".join(r[k] for r in refs) + "\n")
    hyp_dir = tmp_path / "hyps"
    hyp_dir.mkdir()
    for name, hyps in systems.items():
        (hyp_dir / f"{name}.txt").write_text("\n".join(hyps) + "\n")
    human = tmp_path / "human.tsv"
    human.write_text("system\trating\n" + "".join(f"{s}\t{rng.uniform(1, 5):.3f}\n" for s in systems))
    model = tmp_path / "model"
    train_tiny().save(model)
    out = tmp_path / "report.html"
    rc = main(["report", "--human", str(human), *[a for p in ref_paths for a in ("--ref", str(p))], "--hyp-dir",
               str(hyp_dir), "--model", str(model), "--metrics", "bleu,rouge_l,am,fm", "--lams", "0,1",
               "--dims", "2,4", "--resamples", "100", "--out", str(out)])
    assert rc == 0
    text = out.read_text()
    assert "<h2>System differences</h2>" in text and "<h2>Which metrics are really closer to people</h2>" in text
    assert "significantly closer to people" in text
    without = tmp_path / "plain.html"
    assert main(["report", "--human", str(human), *[a for p in ref_paths for a in ("--ref", str(p))], "--hyp-dir",
                 str(hyp_dir), "--model", str(model), "--metrics", "bleu,am", "--lams", "0,1", "--dims", "2,4",
                 "--resamples", "0", "--out", str(without)]) == 0
    assert "System differences" not in without.read_text()
