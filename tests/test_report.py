"""HTML/PNG reports: self-contained, every panel present, clear errors."""
from __future__ import annotations

import base64
import re
import sys

import numpy as np
import pytest
from amfm_helpers import tiny_pairs, train_tiny
from fastamfm import tune
from fastamfm.analysis.report import write_report

pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def inputs():
    rng = np.random.default_rng(0)
    systems = [f"S_{i}" for i in range(6)]
    human = {s: 3 + 0.1 * i + 0.05 * rng.random() for i, s in enumerate(systems)}
    scores = {m: {s: float(rng.random() + 0.1 * i) for i, s in enumerate(systems)} for m in ("AM", "FM", "BLEU")}
    return scores, human


@pytest.fixture(scope="module")
def tuning():
    scorer = train_tiny()
    hyps, refs = tiny_pairs(30)
    systems = {f"S_{i}": hyps[i:] + hyps[:i] for i in range(5)}
    human = {s: float(i) for i, s in enumerate(systems)}
    return tune(systems, refs, human, model=scorer, dims=(2, 4, 8), lams=(0.0, 0.5, 1.0))


def test_html_is_self_contained(inputs, tuning, tmp_path):
    scores, human = inputs
    path = write_report(tmp_path / "r.html", scores, human, tuning=tuning, title="DSTC <test>")
    text = path.read_text()
    images = re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)", text)
    # scatter grid, clustered correlation heatmap, metric significance matrix, λ/dims curves
    assert len(images) == 4
    for data in images:
        assert base64.b64decode(data).startswith(b"\x89PNG\r\n\x1a\n")
    assert "http://" not in text and "https://" not in text and "<script" not in text
    assert "DSTC &lt;test&gt;" in text
    assert "TUNED ON THE EVALUATION DATA" in text
    for system in human:
        assert f"<td>{system}</td>" in text


def _matrix_order(text: str) -> list:
    """The metric order of the first metric x metric table of the report."""
    table = text[text.index("<details>"):text.index("</details>")]
    return re.findall(r"<tr><th>([^<]+)</th>", table)


def test_heatmap_is_ordered_by_the_clustering(tmp_path):
    from fastamfm import cluster_metrics, metric_correlations

    rng = np.random.default_rng(3)
    systems = [f"S_{i}" for i in range(12)]
    quality = rng.normal(size=12)
    other = rng.normal(size=12)
    # Given in an interleaved order; the two families must come out grouped.
    scores = {name: {s: float(base[i] + 0.2 * rng.normal()) for i, s in enumerate(systems)}
              for name, base in (("q1", quality), ("o1", other), ("q2", quality), ("o2", other), ("q3", quality))}
    human = {s: float(q) for s, q in zip(systems, quality)}
    text = write_report(tmp_path / "r.html", scores, human).read_text()
    expected = cluster_metrics(metric_correlations(scores, level="system", systems=None)).order
    assert _matrix_order(text) == expected
    assert "".join(m[0] for m in expected) in ("qqqoo", "ooqqq")
    for method in ("pearson", "spearman", "kendall"):
        assert f"metric x metric {method} correlation with p-values" in text
    assert "Groups of metrics" in text


def test_distinct_panel_and_single_point_curves_left_out(inputs, tmp_path):
    from amfm_helpers import tiny_pairs, train_tiny

    scores, human = inputs
    distinct = {"Distinct-1": {s: 0.1 * i for i, s in enumerate(human)},
                "Distinct-1 (utterance)": {s: 0.9 - 0.01 * i for i, s in enumerate(human)}}
    hyps, refs = tiny_pairs(20)
    one_dims = tune({f"S_{i}": hyps[i:] + hyps[:i] for i in range(4)}, refs, {f"S_{i}": float(i) for i in range(4)},
                    model=train_tiny(), lams=(0.5,))
    text = write_report(tmp_path / "r.html", scores, human, distinct=distinct, tuning=one_dims).read_text()
    assert "Distinct-n per system" in text and "<th>Distinct-1 (utterance)</th>" in text
    assert "AM-FM settings" not in text  # one λ and one dims: no curve to draw
    assert text.count("data:image/png;base64,") == 4  # scatter, heatmap, significance matrix, distinct
    with pytest.raises(ValueError, match=r"\['AM'\] are in both scores and distinct"):
        write_report(tmp_path / "r.html", scores, human, distinct={"AM": scores["AM"]})


def test_png_sheet_without_tuning(inputs, tmp_path):
    scores, human = inputs
    path = write_report(tmp_path / "r.png", scores, human)
    assert path.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_missing_matplotlib_is_a_clear_error(inputs, tmp_path, monkeypatch):
    scores, human = inputs
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"pip install 'fastamfm\[report\]'"):
        write_report(tmp_path / "r.html", scores, human)
    assert not (tmp_path / "r.html").exists()


def test_bad_input(inputs, tmp_path):
    scores, human = inputs
    with pytest.raises(ValueError, match="must end in one of"):
        write_report(tmp_path / "r.pdf", scores, human)
    with pytest.raises(ValueError, match=r"no human rating for systems \['S_5'\]"):
        write_report(tmp_path / "r.html", scores, {k: v for k, v in human.items() if k != "S_5"})
    with pytest.raises(ValueError, match="at least 3 systems"):
        write_report(tmp_path / "r.html", {"AM": {"a": 1, "b": 2}}, {"a": 1, "b": 2})
    with pytest.raises(TypeError, match="non-empty mapping"):
        write_report(tmp_path / "r.html", {}, human)
    with pytest.raises(ValueError, match="covers other systems"):
        write_report(tmp_path / "r.html", {"AM": scores["AM"], "FM": {"S_0": 1.0}}, human)
