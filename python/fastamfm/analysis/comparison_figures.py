"""The report's panels for significance: a forest plot of every system's difference from
the baseline (``SystemComparison``) and the metric x metric significance matrix
(``MetricComparison``), drawn with matplotlib (the report's ``plt``)."""
from __future__ import annotations

import html

import numpy as np


def forest_figure(plt, comparison, order=None):
    """One panel per metric column: each system's difference from the baseline with its
    bootstrap interval, filled where significant; systems top to bottom in ``order``
    (default: the comparison's)."""
    systems = [s for s in (order or comparison.systems) if s != comparison.baseline]
    metrics = comparison.metrics
    cols = min(5, len(metrics))
    rows = -(-len(metrics) // cols)
    height = max(2.4, 0.16 * len(systems) + 1.0)
    fig, axes = plt.subplots(rows, cols, figsize=(2.7 * cols, height * rows), squeeze=False, sharey=True)
    y = np.arange(len(systems))
    for ax, metric in zip(axes.ravel(), metrics):
        cells = [comparison[s, metric] for s in systems]
        diff = np.array([c.difference for c in cells])
        errors = np.array([[c.difference - c.ci_low for c in cells], [c.ci_high - c.difference for c in cells]])
        significant = np.array([c.significant for c in cells])
        ax.axvline(0.0, color="0.5", linewidth=0.8)
        ax.errorbar(diff, y, xerr=errors, fmt="none", ecolor="0.35", elinewidth=0.8, capsize=1.5)
        better, worse = significant & (diff > 0), significant & (diff < 0)
        ax.scatter(diff[better], y[better], s=14, c="tab:red", zorder=3)
        ax.scatter(diff[worse], y[worse], s=14, c="tab:blue", zorder=3)
        ax.scatter(diff[~significant], y[~significant], s=14, facecolors="white", edgecolors="0.3", zorder=3)
        ax.set_title(f"{metric} − {comparison.baseline}", fontsize=8)
        ax.tick_params(labelsize=6)
        ax.locator_params(axis="x", nbins=4)
    for ax in axes.ravel()[len(metrics):]:
        ax.axis("off")
    axes[0, 0].set_yticks(y, systems)
    axes[0, 0].set_ylim(len(systems) - 0.5, -0.5)
    # One legend for the figure, every marker listed whether or not a panel shows it.
    fig.legend(handles=legend_handles(comparison.baseline), fontsize=6, loc="lower center", ncol=3,
               bbox_to_anchor=(0.5, -0.02), frameon=False)
    correction = "" if comparison.correction == "none" else f", {comparison.correction}-adjusted"
    fig.suptitle(f"Difference from {comparison.baseline} with {comparison.confidence * 100:g}% paired bootstrap "
                 f"intervals ({comparison.method}, {comparison.resamples} resamples; filled: p{correction} < "
                 f"{comparison.alpha:g})", fontsize=8)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return fig


def legend_handles(baseline: str) -> list:
    """The forest plot's three markers: significantly better (red), significantly worse
    (blue) than the baseline, and not significant (open)."""
    from matplotlib.lines import Line2D

    def marker(label, face, edge):
        return Line2D([], [], linestyle="none", marker="o", markersize=4, markerfacecolor=face, markeredgecolor=edge,
                      label=label)

    return [marker(f"significantly better than {baseline}", "tab:red", "tab:red"),
            marker(f"significantly worse than {baseline}", "tab:blue", "tab:blue"),
            marker("not significant", "white", "0.3")]


def significance_figure(plt, tests):
    """Heatmap of the one-sided (adjusted) p-values that the row metric correlates better
    with people than the column metric; significant cells outlined."""
    m = len(tests.names)
    fig, ax = plt.subplots(figsize=(2.2 + 0.55 * m, 1.6 + 0.5 * m))
    values = np.where(np.isfinite(tests.p_adjusted), tests.p_adjusted, np.nan)
    mesh = ax.pcolormesh(np.arange(m + 1), np.arange(m + 1), values, vmin=0, vmax=0.2, cmap="Greens_r")
    labels = [f"{n} ({c:+.2f})" for n, c in zip(tests.names, tests.correlations)]
    ax.set_xticks(np.arange(m) + 0.5, tests.names, rotation=60, ha="right", fontsize=7)
    ax.set_yticks(np.arange(m) + 0.5, labels, fontsize=7)
    ax.set_ylim(m, 0)
    for i in range(m):
        for j in range(m):
            if i == j:
                continue
            p = tests.p_adjusted[i, j]
            ax.text(j + 0.5, i + 0.5, f"{p:.2g}", ha="center", va="center", fontsize=5.5,
                    color="white" if p < 0.05 else "black", fontweight="bold" if tests.significant[i, j] else None)
    bar = fig.colorbar(mesh, ax=ax, fraction=0.04, pad=0.02)
    bar.ax.tick_params(labelsize=6)
    test = "Williams test" if tests.method == "williams" else f"paired bootstrap ({tests.correlation})"
    ax.set_title(f"Is the row metric closer to people than the column metric? {test}, {tests.level} level, "
                 f"n={tests.n}: one-sided p ({tests.correction})", fontsize=7)
    fig.tight_layout()
    return fig


def significance_html(tests) -> str:
    """For each metric, the metrics that correlate significantly better than it."""
    items = []
    for name in tests.names:
        better = tests.better_than(name)
        items.append(f"<li>{html.escape(name)}: {html.escape(', '.join(better)) if better else 'none'}</li>")
    return (f"<p>Metrics significantly closer to people (p &lt; {tests.alpha:g}, {html.escape(tests.correction)}"
            f") than each metric:</p><ul>{''.join(items)}</ul>")
