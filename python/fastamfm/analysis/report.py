"""Self-contained reports: how system-level metric scores agree with human ratings and with
each other.

``write_report(path, scores, human, ...)`` writes one HTML file (figures embedded as
base64 PNG, no external files) or, for a ``.png`` path, one image with every panel and
the tables. Panels:

- metric vs human rating, one scatter point per system, with Pearson and Spearman;
- metric consistency (Feng & Rong): the metric x metric correlation heatmap ordered by a
  hierarchical clustering of the metrics (average linkage on 1 − correlation) with its
  dendrogram beside it; the three coefficients with p-values as tables;
- which metrics correlate significantly better with people than which (Williams test,
  system level), and, given a ``SystemComparison``, a forest plot of every system's
  difference from the baseline with its interval and significance;
- Distinct-n per system (corpus and utterance level), when given;
- the λ and AM dimension curves of a ``tune`` result — each only when it has at least
  two points (a single point is not a curve).

matplotlib is an optional extra (``pip install '.[report]' in the fastamfm checkout``), scipy too
(``fastamfm[analysis]``).
"""
from __future__ import annotations

import base64
import html
import io
import logging
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ..io.atomic import write_text_atomic
from .comparison_figures import forest_figure, significance_figure, significance_html
from .correlation import METHODS, SYSTEM_SCORE_RULES, cluster_metrics, correlate, metric_correlations
from .metric_comparison import compare_metrics

FORMATS = (".html", ".htm", ".png")
log = logging.getLogger(__name__)


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise ImportError("fastamfm reports need matplotlib: pip install '.[report]' in the fastamfm "
                          "checkout") from None
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def _check_table(table: Mapping, what: str, systems: list | None) -> list:
    for metric, values in table.items():
        if not isinstance(values, Mapping):
            raise TypeError(f"{what}[{metric!r}] must be a mapping {{system: score}}")
        if systems is None:
            systems = list(values)
        elif set(values) != set(systems):
            raise ValueError(f"{what}[{metric!r}] covers other systems than the first metric")
    return systems if systems is not None else []   # None: an empty table and no systems given


def _check_inputs(scores: Mapping, human: Mapping, distinct) -> list[str]:
    if not isinstance(scores, Mapping) or not scores:
        raise TypeError("scores must be a non-empty mapping {metric: {system: score}}")
    if not isinstance(human, Mapping) or not human:
        raise TypeError("human must be a non-empty mapping {system: rating}")
    systems = _check_table(scores, "scores", None)
    if distinct is not None:
        if not isinstance(distinct, Mapping):
            raise TypeError("distinct must be a mapping {column: {system: value}}")
        _check_table(distinct, "distinct", systems)
        clash = set(distinct) & set(scores)
        if clash:
            raise ValueError(f"columns {sorted(clash)} are in both scores and distinct")
    missing = [s for s in systems if s not in human]
    if missing:
        raise ValueError(f"no human rating for systems {missing}")
    if len(systems) < 3:
        raise ValueError(f"a report needs at least 3 systems, got {len(systems)}")
    return systems


# --- figures ---------------------------------------------------------------------------------

def _png(plt, fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=130, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def _scatter_figure(plt, scores, human, systems, table) -> bytes:
    cols = min(4, len(scores))
    rows = -(-len(scores) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.8 * rows), squeeze=False)
    y = np.array([human[s] for s in systems])
    for ax, metric in zip(axes.ravel(), scores):
        x = np.array([scores[metric][s] for s in systems])
        ax.scatter(x, y, s=18, color="tab:blue")
        for s, xi, yi in zip(systems, x, y):
            ax.annotate(str(s), (xi, yi), fontsize=6, xytext=(2, 2), textcoords="offset points")
        if np.ptp(x) > 0:
            slope, intercept = np.polyfit(x, y, 1)
            xs = np.linspace(x.min(), x.max(), 2)
            ax.plot(xs, slope * xs + intercept, color="tab:red", linewidth=0.8)
        r = table[metric, "pearson"].coefficient
        rho = table[metric, "spearman"].coefficient
        ax.set_title(f"{metric}: r={r:.3f}, ρ={rho:.3f}", fontsize=8)
        ax.set_xlabel(metric, fontsize=7)
        ax.set_ylabel("human", fontsize=7)
        ax.tick_params(labelsize=6)
    for ax in axes.ravel()[len(scores):]:
        ax.axis("off")
    fig.tight_layout()
    return _png(plt, fig)


def _consistency_figure(plt, matrix, clustering) -> bytes:
    """Dendrogram (left) sharing its rows with the heatmap ordered by it (right)."""
    from scipy.cluster.hierarchy import dendrogram

    ordered = matrix.reordered(clustering.order)
    m = len(ordered.names)
    size = 3.0 + 0.42 * m
    fig, (tree_ax, heat_ax) = plt.subplots(1, 2, figsize=(size + 2.2, size), sharey=True,
                                           gridspec_kw={"width_ratios": [1, 3.2], "wspace": 0.02})
    # scipy puts leaf k of the order at y = 10k + 5; the heatmap rows follow.
    dendrogram(clustering.linkage, orientation="left", ax=tree_ax, no_labels=True, color_threshold=0,
               above_threshold_color="0.3")
    tree_ax.set_xlabel("1 − correlation", fontsize=7)
    tree_ax.tick_params(labelsize=6)
    for side in ("top", "right", "left"):
        tree_ax.spines[side].set_visible(False)
    mesh = heat_ax.pcolormesh(np.arange(m + 1), 10 * np.arange(m + 1), ordered.values, vmin=-1, vmax=1,
                              cmap="coolwarm")
    heat_ax.set_xticks(np.arange(m) + 0.5, ordered.names, rotation=60, ha="right", fontsize=7)
    # The shared y axis shows the metric names left of the dendrogram.
    heat_ax.set_yticks(10 * np.arange(m) + 5, ordered.names, fontsize=7)
    heat_ax.tick_params(axis="y", left=False, labelleft=False)
    for i in range(m):
        for j in range(m):
            value = ordered.values[i, j]
            heat_ax.text(j + 0.5, 10 * i + 5, "–" if not np.isfinite(value) else f"{value:.2f}", ha="center",
                         va="center", fontsize=5.5, color="white" if abs(value) > 0.75 else "black")
    heat_ax.set_xlim(0, m)
    heat_ax.set_ylim(10 * m, 0)  # first leaf on top: the diagonal runs top-left to bottom-right
    bar = fig.colorbar(mesh, ax=heat_ax, location="top", fraction=0.03, pad=0.01, shrink=0.5, aspect=40)
    bar.ax.tick_params(labelsize=6)
    fig.suptitle(f"Metric x metric {matrix.method} correlation ({matrix.level} level), ordered by "
                 f"{clustering.method}-linkage clustering on 1 − correlation", fontsize=8)
    return _png(plt, fig)


def _distinct_figure(plt, distinct, systems) -> bytes:
    """One bar panel per level: corpus-level ratios are far below utterance-level ones."""
    levels = {"corpus: distinct n-grams over all responses / all n-grams":
              [c for c in distinct if "utterance" not in c],
              "utterance: the same ratio within each response, averaged": [c for c in distinct if "utterance" in c]}
    levels = {title: columns for title, columns in levels.items() if columns}
    fig, axes = plt.subplots(len(levels), 1, figsize=(max(6.0, 0.42 * len(systems) + 1), 2.4 * len(levels)),
                             squeeze=False)
    x = np.arange(len(systems))
    for ax, (title, columns) in zip(axes.ravel(), levels.items()):
        width = 0.8 / len(columns)
        for k, column in enumerate(columns):
            ax.bar(x + (k - (len(columns) - 1) / 2) * width, [distinct[column][s] for s in systems], width,
                   label=column)
        ax.set_xticks(x, [str(s) for s in systems], rotation=60, ha="right", fontsize=7)
        ax.set_title(f"Distinct-n per system — {title}", fontsize=8)
        ax.tick_params(labelsize=6)
        ax.legend(fontsize=6, ncol=len(columns))
    fig.tight_layout()
    return _png(plt, fig)


def _curve_axes(tuning) -> list[tuple[str, str]]:
    """The tuning curves worth drawing: those with at least two points."""
    out = []
    for vary, label in (("lam", "λ"), ("dims", "LSI dimensions")):
        if len(tuning.curve(vary)[0]) >= 2:
            out.append((vary, label))
    return out


def _curves_figure(plt, tuning, curves) -> bytes:
    """The λ curve at the model's LSI dimensions and the dimension curve at the model's λ
    (``TuningResult.model_curve``: at the best tuned row, said in the title, when the grid
    lacks the model's setting)."""
    fig, axes = plt.subplots(1, len(curves), figsize=(4.6 * len(curves), 3.1), squeeze=False)
    titles = {"lam": "λ curve", "dims": "AM dimension curve (one SVD truncated)"}
    for ax, (vary, label) in zip(axes.ravel(), curves):
        for by, style in (("pearson", "-o"), ("spearman", "--s")):
            x, y, where = tuning.model_curve(vary, by=by)
            ax.plot(x, y, style, markersize=3, label=by)
        if vary == "dims":
            ax.set_xscale("log")
        ax.set_title(f"{titles[vary]}\nat {where}", fontsize=7)
        ax.set_xlabel(label, fontsize=7)
        ax.set_ylabel("correlation with human", fontsize=7)
        ax.tick_params(labelsize=6)
        ax.legend(fontsize=6)
    fig.tight_layout()
    return _png(plt, fig)


def _tables_figure(plt, analysed, human, systems, table) -> bytes:
    """The HTML tables as one image (for the .png report)."""
    metrics = list(analysed)
    cells = [[str(s)] + [f"{analysed[m][s]:.4f}" for m in metrics] + [f"{human[s]:.3f}"] for s in systems]
    for method in ("pearson", "spearman", "kendall"):
        cells.append([method] + [f"{table[m, method].coefficient:.3f} (p={table[m, method].p_value:.2g})"
                                 for m in metrics] + [""])
    fig, ax = plt.subplots(figsize=(1.2 + 1.05 * (len(metrics) + 1), 0.22 * (len(cells) + 1) + 0.4))
    ax.axis("off")
    labels = ["system"] + [m.replace(" (", "\n(") for m in metrics] + ["human"]
    grid = ax.table(cellText=cells, colLabels=labels, loc="center", cellLoc="right")
    for k in range(len(labels)):
        grid[0, k].set_height(grid[0, k].get_height() * 2)
    grid.auto_set_font_size(False)
    grid.set_fontsize(6)
    grid.scale(1.0, 1.15)
    ax.set_title("System scores, and correlation with human ratings (system level)", fontsize=8, pad=22)
    return _png(plt, fig)


# --- HTML -----------------------------------------------------------------------------------------

def _matrix_html(matrix) -> str:
    esc = html.escape
    head = "".join(f"<th>{esc(n)}</th>" for n in matrix.names)
    rows = "".join(
        f"<tr><th>{esc(a)}</th>" + "".join(
            f"<td title='p={matrix.p_values[i, j]:.3g}'>{matrix.values[i, j]:.3f}"
            f"<br><small>p={matrix.p_values[i, j]:.2g}</small></td>" for j in range(len(matrix.names))) + "</tr>"
        for i, a in enumerate(matrix.names))
    return f"<table><tr><th></th>{head}</tr>{rows}</table>"


def _clusters_html(clustering, cut: float = 0.2) -> str:
    """The groups of metrics closer than ``cut`` (1 − correlation), from the linkage."""
    from scipy.cluster.hierarchy import fcluster

    labels = fcluster(clustering.linkage, t=cut, criterion="distance")
    groups: dict = {}
    for name, label in zip(clustering.names, labels):
        groups.setdefault(label, []).append(name)
    ordered = sorted(groups.values(), key=lambda g: min(clustering.order.index(n) for n in g))
    items = "".join(f"<li>{html.escape(', '.join(sorted(g, key=clustering.order.index)))}</li>" for g in ordered)
    return (f"<p>Groups of metrics whose {clustering.method}-linkage distance is below {cut} "
            f"(correlation above {1 - cut:.1f}):</p><ul>{items}</ul>")


def _html(title, analysed, human, systems, table, matrices, clustering, tuning, figures, metric_tests,
          rule: str) -> str:
    esc = html.escape
    metrics = list(analysed)
    head = "".join(f"<th>{esc(m)}</th>" for m in metrics)
    body = "".join(
        f"<tr><td>{esc(str(s))}</td>" + "".join(f"<td>{analysed[m][s]:.4f}</td>" for m in metrics)
        + f"<td>{human[s]:.4f}</td></tr>" for s in systems)
    corr_head = "".join(f"<th>{m}</th><th>p</th>" for m in METHODS)
    corr_rows = "".join(
        f"<tr><td>{esc(m)}</td>" + "".join(f"<td>{table[m, meth].coefficient:.4f}</td><td>{table[m, meth].p_value:.3g}"
                                            f"</td>" for meth in METHODS) + "</tr>"
        for m in metrics)
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{esc(title)}</title>",
             "<style>body{font-family:sans-serif;margin:2em;max-width:1400px}table{border-collapse:collapse;"
             "font-size:12px;margin-bottom:1em}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
             "small{color:#777}.note{color:#a00}img{max-width:100%}</style></head><body>",
             f"<h1>{esc(title)}</h1>",
             f"<h2>System scores ({len(systems)} systems)</h2><table><tr><th>system</th>{head}<th>human</th></tr>"
             f"{body}</table>",
             f"<p>System scores: {esc(rule)}.</p>",
             f"<h2>Correlation with human ratings (system level, n={len(systems)})</h2>"
             f"<table><tr><th>metric</th>{corr_head}</tr>{corr_rows}</table>"]
    captions = dict(figures)
    parts.append(_figure_html("scatter", captions))
    if clustering is not None:
        parts.append("<h2>Metric consistency</h2>")
        parts.append(_figure_html("consistency", captions))
        parts.append(_clusters_html(clustering))
        for method, matrix in matrices.items():
            parts.append(f"<details><summary>metric x metric {method} correlation with p-values</summary>"
                         f"{_matrix_html(matrix)}</details>")
    if "significance" in captions:
        parts.append("<h2>Which metrics are really closer to people</h2>")
        parts.append(_figure_html("significance", captions))
        parts.append(significance_html(metric_tests))
    if "forest" in captions:
        parts.append("<h2>System differences</h2>")
        parts.append(_figure_html("forest", captions))
    if "distinct" in captions:
        parts.append("<h2>Diversity</h2>")
        parts.append(_figure_html("distinct", captions))
    if "curves" in captions:
        best = tuning.best()
        parts.append(f"<h2>AM-FM settings</h2><p class='note'>{esc(tuning.note)}</p><p>Best (tuned): λ={best.lam:g}, "
                     f"dims={best.dims}, order={best.order}, AM {best.am_combine}, FM {best.fm_combine}, {best.mean} "
                     f"mean: Pearson {best.pearson:.4f}, Spearman {best.spearman:.4f}</p>")
        parts.append(_figure_html("curves", captions))
    parts.append("</body></html>\n")
    return "".join(parts)


_CAPTIONS = {"scatter": "Metric vs human rating, one point per system",
             "consistency": "Metric x metric correlation, ordered by hierarchical clustering (dendrogram left)",
             "significance": "Metric x metric significance of the difference in correlation with people",
             "forest": "Each system's difference from the baseline (systems by human rating, best on top)",
             "distinct": "Distinct-n per system",
             "curves": "λ and LSI dimension curves (tuned on this data)"}


def _figure_html(key: str, figures: dict) -> str:
    data = base64.b64encode(figures[key]).decode("ascii")
    caption = html.escape(_CAPTIONS[key])
    return (f"<figure><img src='data:image/png;base64,{data}' alt='{caption}'>"
            f"<figcaption>{caption}</figcaption></figure>")


# --- entry point ---------------------------------------------------------------------------------

def write_report(path, scores: Mapping, human: Mapping, *, distinct: Mapping | None = None, tuning=None,
                 comparison=None, cluster_method: str = "pearson", title: str = "fastamfm report",
                 system_score: str = "corpus") -> Path:
    """Write the report for ``scores`` (``{metric: {system: score}}``) against ``human``
    (``{system: rating}``). ``distinct``: Distinct-n columns (``{column: {system: value}}``),
    drawn per system and analysed beside the metrics; ``tuning`` (a ``TuningResult``)
    adds its λ and dimension curves (each drawn only with two or more points);
    ``comparison`` (a ``SystemComparison`` of these systems) adds the forest plot;
    ``cluster_method``: the coefficient the heatmap and clustering use. The format
    follows the extension of ``path``: .html (self-contained) or .png. ``system_score``
    names the rule that made ``scores`` ("corpus": each system's corpus score, "mean": its
    mean sentence score; ``fastamfm.correlate``'s rule), stated in the report."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"report path must end in one of {FORMATS}, got {path.name!r}")
    if cluster_method not in METHODS:
        raise ValueError(f"cluster_method must be one of {METHODS}, got {cluster_method!r}")
    systems = _check_inputs(scores, human, distinct)
    if system_score not in SYSTEM_SCORE_RULES:
        raise ValueError(f"system_score must be one of {tuple(SYSTEM_SCORE_RULES)}, got {system_score!r}")
    plt = _pyplot()
    log.info("drawing the report (%d systems, %d metrics; 10-30 s)", len(systems), len(scores))
    analysed = {**scores, **(distinct or {})}
    table = correlate(analysed, human, methods=METHODS)
    figures = [("scatter", _scatter_figure(plt, analysed, human, systems, table))]
    matrices, clustering = {}, None
    varying = {m: v for m, v in analysed.items() if np.ptp(list(v.values())) > 0}
    if len(varying) >= 2:
        matrices = {m: metric_correlations(varying, method=m, level="system") for m in METHODS}
        clustering = cluster_metrics(matrices[cluster_method])
        matrices = {m: mat.reordered(clustering.order) for m, mat in matrices.items()}
        figures.append(("consistency", _consistency_figure(plt, matrices[cluster_method], clustering)))
    metric_tests = None
    if len(varying) >= 2 and len(systems) >= 4:
        metric_tests = compare_metrics(varying, human, method="williams", level="system")
        figures.append(("significance", _png(plt, significance_figure(plt, metric_tests))))
    if comparison is not None:
        by_rating = sorted(systems, key=lambda s: -human[s])
        figures.append(("forest", _png(plt, forest_figure(plt, comparison, order=by_rating))))
    if distinct:
        figures.append(("distinct", _distinct_figure(plt, distinct, systems)))
    curves = _curve_axes(tuning) if tuning is not None else []
    if curves:
        figures.append(("curves", _curves_figure(plt, tuning, curves)))
    if suffix == ".png":
        images = [_tables_figure(plt, analysed, human, systems, table)] + [png for _, png in figures]
        _write_png_sheet(path, images, plt)
    else:
        write_text_atomic(path, _html(title, analysed, human, systems, table, matrices, clustering, tuning, figures,
                                       metric_tests, SYSTEM_SCORE_RULES[system_score]))
    return path


def _write_png_sheet(path: Path, images: list, plt) -> None:
    """Stack the images into one PNG."""
    arrays = [plt.imread(io.BytesIO(png), format="png") for png in images]
    width = max(im.shape[1] for im in arrays)
    padded = [np.pad(im, ((0, 0), (0, width - im.shape[1]), (0, 0)), constant_values=1.0) for im in arrays]
    sheet = np.concatenate(padded, axis=0)
    buf = io.BytesIO()
    plt.imsave(buf, sheet, format="png")
    write_text_atomic(path, buf.getvalue())
