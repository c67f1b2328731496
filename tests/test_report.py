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
    with pytest.raises(ImportError, match=r"pip install '\.\[report\]' in the fastamfm checkout"):
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


# --- legend and curves that say what they show (issue 37) ------------------------------------

def _figures(monkeypatch):
    """The matplotlib figures the report draws, kept open for inspection."""
    from fastamfm.analysis import report

    drawn = []

    def keep(plt, fig):
        drawn.append(fig)
        return b"png"

    monkeypatch.setattr(report, "_png", keep)
    return drawn


def test_lambda_curve_is_drawn_at_the_models_dimensions(tuning, monkeypatch, caplog):
    from fastamfm.analysis.report import _curves_figure

    x, y, where = tuning.model_curve("lam")
    assert where == "the model's dims=8" and list(x) == [0.0, 0.5, 1.0]
    assert list(y) == [r.pearson for r in sorted((r for r in tuning.rows if r.dims == 8), key=lambda r: r.lam)]
    _, _, where = tuning.model_curve("dims")
    assert where == "the model's λ=0.5"
    drawn = _figures(monkeypatch)
    import matplotlib.pyplot as plt

    _curves_figure(plt, tuning, [("lam", "λ"), ("dims", "LSI dimensions")])
    titles = [ax.get_title() for ax in drawn[0].axes]
    assert titles == ["λ curve\nat the model's dims=8",
                      "AM dimension curve (one SVD truncated)\nat the model's λ=0.5"]
    plt.close(drawn[0])


def test_curves_say_why_when_the_grid_lacks_the_models_setting():
    scorer = train_tiny()
    hyps, refs = tiny_pairs(30)
    systems = {f"S_{i}": hyps[i:] + hyps[:i] for i in range(5)}
    human = {s: float(i) for i, s in enumerate(systems)}
    result = tune(systems, refs, human, model=scorer, dims=(2, 4), lams=(0.0, 0.5, 1.0))   # the model has 8
    x, _, where = result.model_curve("lam")
    best = result.best()
    assert where == f"dims={best.dims}, the best tuned: the model's dims=8 is not in the grid"
    assert list(x) == [0.0, 0.5, 1.0]


def test_forest_legend_lists_better_worse_and_not_significant(monkeypatch):
    import fastamfm
    import matplotlib.pyplot as plt
    from fastamfm.analysis.comparison_figures import forest_figure
    from test_compare_systems import _corpus

    systems, refs = _corpus(n=60, n_systems=3)
    comparison = fastamfm.compare_systems(systems, refs, metrics=["rouge_l"], baseline="sys1", resamples=200)
    diffs = {r.system: (r.difference, r.significant) for r in comparison.rows if r.system != "sys1"}
    assert any(d < 0 and s for d, s in diffs.values()), diffs        # a significantly worse system (blue)
    fig = forest_figure(plt, comparison)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels == ["significantly better than sys1", "significantly worse than sys1", "not significant"]
    colours = [h.get_markerfacecolor() for h in fig.legends[0].legend_handles]
    assert colours[:2] == ["tab:red", "tab:blue"]
    axis = fig.axes[0]
    blue = [c for c in axis.collections if len(c.get_offsets()) and len(c.get_facecolor()) and
            tuple(c.get_facecolor()[0][:3]) == tuple(plt.matplotlib.colors.to_rgb("tab:blue"))]
    assert blue, "the significantly worse systems are drawn in blue"
    plt.close(fig)


def test_report_says_what_it_draws_and_its_system_score_rule(inputs, tuning, tmp_path, caplog):
    scores, human = inputs
    with caplog.at_level("INFO", logger="fastamfm"):
        path = write_report(tmp_path / "r.html", scores, human, tuning=tuning)
    assert any(r.getMessage().startswith("drawing the report (6 systems, 3 metrics;") for r in caplog.records)
    assert "System scores: each system&#x27;s corpus score" in path.read_text()
    path = write_report(tmp_path / "m.html", scores, human, system_score="mean")
    assert "mean sentence score" in path.read_text()
