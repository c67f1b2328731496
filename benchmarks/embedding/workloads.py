"""Embedding-metric and word-vector workloads shared by bench.py and
compare.py.

Peers: the numpy port of nlg-eval's formulas in tests/oracles/embedding.py
(nlg-eval's own code needs GloVe and gensim, neither available here; the port
follows its formulas one sentence at a time, as nlg-eval does), and
``pandas.read_csv`` for reading a GloVe text file into numpy.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import fastamfm
import numpy as np
from oracles.embedding import Lookup, sentence_scores
from vector_files import write_glove

# Registry names -> the peer's keys (tests/oracles/embedding.py).
METRICS = {"embedding_average": "average", "vector_extrema": "extrema", "greedy_matching": "greedy"}
COLUMNS = {"embedding_average": "EmbeddingAverageCosineSimilarity",
           "vector_extrema": "VectorExtremaCosineSimilarity", "greedy_matching": "GreedyMatchingScore"}


def fastamfm_scores(hyps, refs, vectors, metrics=tuple(METRICS), workers: int = -1) -> dict:
    """{peer key: per-response scores} of ``metrics`` in one ``evaluate`` call (the
    three share one pass over the tokens)."""
    res = fastamfm.evaluate(hyps, refs, metrics=list(metrics), vectors=vectors, workers=workers)
    return {METRICS[m]: res.sentences[COLUMNS[m]] for m in metrics}


def numpy_port_scores(hyps, refs, lookup: Lookup) -> dict:
    """{"average"|"extrema"|"greedy": per-response scores} from the numpy port of nlg-eval."""
    return sentence_scores(hyps, refs, lookup)


def check_scores(ours: dict, theirs: dict, tolerance: float = 1e-6) -> float:
    """The largest |difference| over the metrics both computed (asserted <= tolerance)."""
    worst = 0.0
    for key, values in ours.items():
        diff = float(np.abs(np.asarray(values) - theirs[key]).max())
        assert diff <= tolerance, (key, diff)
        worst = max(worst, diff)
    return worst


def random_vectors(words, dim: int = 300, seed: int = 0) -> np.ndarray:
    """Random float32 vectors (speed does not depend on the values)."""
    return np.random.default_rng(seed).normal(0, 0.4, size=(len(words), dim)).astype(np.float32)


def small_problem(hyps, refs):
    """Vectors for 90% of the words of ``hyps`` and ``refs`` (about a tenth unknown, as
    with GloVe): (WordVectors, the peer's Lookup over the same matrix)."""
    words = sorted({w for text in hyps + [r for g in refs for r in g] for w in text.split()})
    words = words[: int(len(words) * 0.9)]
    matrix = random_vectors(words)
    return fastamfm.WordVectors.from_arrays(words, matrix), Lookup(words, matrix)


def twcs_vector_file(twcs_dir: Path, workdir: Path) -> tuple[Lookup, Path]:
    """300-d random vectors over the vocabulary of the twcs_airlines agent turns,
    written as a GloVe text file: (the peer's Lookup, the file)."""
    import pandas as pd

    frame = pd.read_csv(Path(twcs_dir) / "airlines_processed.csv.bz2")
    turns = (t for c in frame["context"].dropna() for t in re.findall(r"<rep__(.*?)__rep>", c))
    words = sorted({w for t in turns for w in t.split()})
    matrix = random_vectors(words)
    path = Path(workdir) / "twcs_random_300d.txt"
    write_glove(path, words, matrix)
    return Lookup(words, matrix), path


# --- word-vector files ----------------------------------------------------------------------
def write_big_glove(path, n_words: int = 400_000, dim: int = 300, seed: int = 0, block: int = 20_000) -> Path:
    """A GloVe-sized text vector file (400k words x 300 dims, ~1.1 GB) for load benchmarks.

    Formatting 120M floats one by one in Python takes minutes, so rows are assembled
    from a table of pre-formatted fixed-width values: numpy fancy indexing on byte
    strings writes the file in seconds. Values are random in (-1, 1) with 5 decimals,
    like GloVe's text files. Kept between runs.
    """
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


def pandas_read_glove(path) -> np.ndarray:
    """The usual fast way to read a GloVe text file into a float32 matrix."""
    import pandas as pd

    frame = pd.read_csv(path, sep=" ", header=None, quoting=3, index_col=0, engine="c", dtype={0: str},
                        na_filter=False)
    return frame.to_numpy(dtype=np.float32)
