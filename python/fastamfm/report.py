"""Self-contained reports: metric-vs-human scatter plots per system, the λ curve, the AM
dimension curve and the metric x metric correlation matrix.

``write_report(path, ...)`` writes one HTML file (figures embedded as base64 PNG, no
external files) or, for a ``.png`` path, one image with every panel. matplotlib is an
optional extra: ``pip install 'fastamfm[report]'``.
"""
from __future__ import annotations

import base64
import html
import io
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from .correlation import correlate, metric_correlations
from .io import write_text_atomic

FORMATS = (".html", ".htm", ".png")


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise ImportError("fastamfm reports need matplotlib: pip install 'fastamfm[report]'") from None
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def _check_inputs(scores: Mapping, human: Mapping) -> list[str]:
    if not isinstance(scores, Mapping) or not scores:
        raise TypeError("scores must be a non-empty mapping {metric: {system: score}}")
    if not isinstance(human, Mapping) or not human:
        raise TypeError("human must be a non-empty mapping {system: rating}")
    systems = None
    for metric, table in scores.items():
        if not isinstance(table, Mapping):
            raise TypeError(f"scores[{metric!r}] must be a mapping {{system: score}}")
        if systems is None:
            systems = list(table)
        elif set(table) != set(systems):
            raise ValueError(f"scores[{metric!r}] covers other systems than scores[{next(iter(scores))!r}]")
    missing = [s for s in systems if s not in human]
    if missing:
        raise ValueError(f"no human rating for systems {missing}")
    if len(systems) < 3:
        raise ValueError(f"a report needs at least 3 systems, got {len(systems)}")
    return systems


def _scatter_panels(plt, fig, axes, scores, human, systems, table):
    y = np.array([human[s] for s in systems])
    for ax, metric in zip(axes, scores):
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


def _curve_panel(ax, tuning, vary: str, title: str):
    for by, style in (("pearson", "-o"), ("spearman", "--s")):
        x, y = tuning.curve(vary, by=by)
        ax.plot(x, y, style, markersize=3, label=by)
    ax.set_title(title, fontsize=8)
    ax.set_xlabel({"lam": "λ", "dims": "LSI dimensions"}[vary], fontsize=7)
    ax.set_ylabel("correlation with human", fontsize=7)
    ax.tick_params(labelsize=6)
    ax.legend(fontsize=6)


def _matrix_panel(fig, ax, matrix):
    im = ax.imshow(matrix.values, vmin=-1, vmax=1, cmap="coolwarm")
    ax.set_xticks(range(len(matrix.names)), matrix.names, rotation=60, ha="right", fontsize=6)
    ax.set_yticks(range(len(matrix.names)), matrix.names, fontsize=6)
    for i in range(len(matrix.names)):
        for j in range(len(matrix.names)):
            ax.text(j, i, f"{matrix.values[i, j]:.2f}", ha="center", va="center", fontsize=5)
    ax.set_title(f"metric x metric ({matrix.method}, {matrix.level} level)", fontsize=8)
    fig.colorbar(im, ax=ax, fraction=0.046)


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=130, bbox_inches="tight")
    return buf.getvalue()


def _figures(scores, human, systems, table, matrix, tuning, plt) -> list[tuple[str, bytes]]:
    figures = []
    cols = min(4, len(scores))
    rows = -(-len(scores) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.8 * rows), squeeze=False)
    _scatter_panels(plt, fig, axes.ravel(), scores, human, systems, table)
    for ax in axes.ravel()[len(scores):]:
        ax.axis("off")
    fig.tight_layout()
    figures.append(("Metric vs human rating, one point per system", _png(fig)))
    plt.close(fig)
    if tuning is not None:
        fig, axes = plt.subplots(1, 2, figsize=(8, 3))
        best = tuning.best()
        _curve_panel(axes[0], tuning, "lam", f"λ curve (dims={best.dims}, order={best.order})")
        _curve_panel(axes[1], tuning, "dims", f"AM dimension curve (λ={best.lam:g})")
        fig.tight_layout()
        figures.append(("λ and LSI dimension curves (tuned on this data)", _png(fig)))
        plt.close(fig)
    if matrix is not None:
        size = 2.5 + 0.45 * len(matrix.names)
        fig, ax = plt.subplots(figsize=(size, size))
        _matrix_panel(fig, ax, matrix)
        fig.tight_layout()
        figures.append(("Metric x metric correlation", _png(fig)))
        plt.close(fig)
    return figures


def _html(title, scores, human, systems, table, tuning, figures) -> str:
    esc = html.escape
    metrics = list(scores)
    head = "".join(f"<th>{esc(m)}</th>" for m in metrics)
    body = "".join(
        f"<tr><td>{esc(str(s))}</td>" + "".join(f"<td>{scores[m][s]:.4f}</td>" for m in metrics)
        + f"<td>{human[s]:.4f}</td></tr>" for s in systems)
    corr_rows = "".join(
        f"<tr><td>{esc(r.metric)}</td><td>{r.method}</td><td>{r.coefficient:.4f}</td><td>{r.p_value:.3g}</td></tr>"
        for r in table)
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{esc(title)}</title>",
             "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;font-size:12px}"
             "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}.note{color:#a00}</style></head><body>",
             f"<h1>{esc(title)}</h1>",
             f"<h2>System scores ({len(systems)} systems)</h2><table><tr><th>system</th>{head}<th>human</th></tr>"
             f"{body}</table>",
             f"<h2>Correlation with human ratings (system level)</h2><table><tr><th>metric</th><th>method</th>"
             f"<th>coefficient</th><th>p-value</th></tr>{corr_rows}</table>"]
    if tuning is not None:
        best = tuning.best()
        parts.append(f"<p class='note'>{esc(tuning.note)}</p><p>Best (tuned): λ={best.lam:g}, dims={best.dims}, "
                     f"order={best.order}, AM {best.am_combine}, FM {best.fm_combine}, {best.mean} mean: "
                     f"Pearson {best.pearson:.4f}, Spearman {best.spearman:.4f}</p>")
    for caption, png in figures:
        data = base64.b64encode(png).decode("ascii")
        parts.append(f"<figure><img src='data:image/png;base64,{data}' alt='{esc(caption)}'>"
                     f"<figcaption>{esc(caption)}</figcaption></figure>")
    parts.append("</body></html>\n")
    return "".join(parts)


def write_report(path, scores: Mapping, human: Mapping, *, tuning=None, title: str = "fastamfm report") -> Path:
    """Write the report for ``scores`` (``{metric: {system: score}}``) against ``human``
    (``{system: rating}``); ``tuning`` (a ``TuningResult``) adds the λ and dimension curves.
    The format follows the extension of ``path``: .html (self-contained) or .png."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"report path must end in one of {FORMATS}, got {path.name!r}")
    systems = _check_inputs(scores, human)
    plt = _pyplot()
    table = correlate(scores, human, methods=("pearson", "spearman"))
    matrix = metric_correlations(scores, level="system") if len(scores) >= 2 else None
    figures = _figures(scores, human, systems, table, matrix, tuning, plt)
    if suffix == ".png":
        _write_png_sheet(path, figures, plt)
    else:
        write_text_atomic(path, _html(title, scores, human, systems, table, tuning, figures))
    return path


def _write_png_sheet(path: Path, figures, plt) -> None:
    """Stack the figures into one PNG."""
    images = [plt.imread(io.BytesIO(png), format="png") for _, png in figures]
    width = max(im.shape[1] for im in images)
    padded = [np.pad(im, ((0, 0), (0, width - im.shape[1]), (0, 0)), constant_values=1.0) for im in images]
    sheet = np.concatenate(padded, axis=0)
    buf = io.BytesIO()
    plt.imsave(buf, sheet, format="png")
    write_text_atomic(path, buf.getvalue())
