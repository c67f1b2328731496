"""A GloVe-sized text vector file (400k words x 300 dims, ~1.1 GB) for load benchmarks.

Formatting 120M floats one by one in Python takes minutes, so rows are assembled
from a table of pre-formatted fixed-width values: numpy fancy indexing on byte
strings writes the file in seconds. Values are random in (-1, 1) with 5 decimals,
like GloVe's text files.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np


def write_big_glove(path, n_words: int = 400_000, dim: int = 300, seed: int = 0, block: int = 20_000) -> Path:
    path = Path(path)
    if path.exists() and path.stat().st_size > 0:
        return path
    rng = np.random.default_rng(seed)
    # Fixed 9-byte fields " 0.123456" / " -0.12345", so rows are plain byte arrays.
    table = np.array([f" {v:.6f}" if v >= 0 else f" {v:.5f}" for v in rng.uniform(-1, 1, size=4096)], dtype="S9")
    table_bytes = table.view(np.uint8).reshape(len(table), 9)
    width = 8 + 9 * dim + 1
    tmp = path.with_suffix(path.suffix + ".partial")
    with open(tmp, "wb") as f:
        for start in range(0, n_words, block):
            rows = min(block, n_words - start)
            out = np.empty((rows, width), dtype=np.uint8)
            words = np.array([f"w{i:07d}" for i in range(start, start + rows)], dtype="S8")
            out[:, :8] = words.view(np.uint8).reshape(rows, 8)
            picks = rng.integers(0, len(table), size=(rows, dim))
            out[:, 8:-1] = table_bytes[picks].reshape(rows, 9 * dim)
            out[:, -1] = ord("\n")
            f.write(out.tobytes())
    os.replace(tmp, path)
    return path
