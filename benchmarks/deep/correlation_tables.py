"""The turn-level correlation tables the human-correlation scripts print (markdown)."""
from __future__ import annotations

import numpy as np
from scipy.stats import pearsonr, spearmanr


def correlations(scores, ratings) -> tuple:
    """(Spearman, Pearson) x100."""
    return 100 * spearmanr(scores, ratings)[0], 100 * pearsonr(scores, ratings)[0]


def print_table(table: dict, names: list, title: str) -> None:
    """``table``: {row: {set name: (spearman, pearson)}}; a set a row lacks shows "-", the
    mean is over the sets the row has."""
    print(f"\n{title}\n")
    print("| metric | " + " | ".join(names) + " | mean |")
    print("|---" * (len(names) + 2) + "|")
    for row, cells in table.items():
        text = [f"{cells[n][0]:.1f} / {cells[n][1]:.1f}" if n in cells else "-" for n in names]
        mean = np.mean([list(v) for v in cells.values()], axis=0)
        print(f"| {row} | " + " | ".join(text) + f" | {mean[0]:.1f} / {mean[1]:.1f} |")
