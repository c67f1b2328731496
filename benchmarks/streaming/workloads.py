"""Streaming workloads shared by bench.py and compare.py: synthetic
hypothesis and reference files, and ``fastamfm score`` run as users run it (the real
command line in a child process) or ``score_files`` in this process.

The text: N responses with 4 references each, 4-25 words per sentence, words drawn
from a Zipf distribution over the scoring model's LSI vocabulary (so AM and FM see
known words, as on real data).
"""
from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path

import numpy as np

from benchmarks import measure
from benchmarks.shared_data import REPO

N_REFS = 4
METRICS = "am,fm,amfm,bleu,rouge_l"
CHUNK_SIZE = 20000


def model_vocabulary(model: str = "default", ascii_only: bool = False) -> list[str]:
    """The model's LSI vocabulary (sorted), or only its ASCII words: the default model's
    last words are non-ASCII and the generator's Zipf tail lands on the last word, so
    about half the sentences hold one; ASCII-only text skips the Unicode steps of the
    amfm tokenizer (see tokenize.prepare_texts) and shows what they cost."""
    from fastamfm.amfm.scorer import resolve_model

    words = resolve_model(model).lsi.vocabulary
    return [w for w in words if w.isascii()] if ascii_only else words


def synthetic_files(directory: Path, n: int, words: list, seed: int = 0) -> list[Path]:
    """hyp.txt and ref1..4.txt with n lines each (written in blocks, memory-light;
    kept between runs)."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = [directory / "hyp.txt"] + [directory / f"ref{k}.txt" for k in range(1, N_REFS + 1)]
    marker = directory / "n.txt"
    if all(p.exists() for p in paths) and marker.exists() and marker.read_text() == str(n):
        return paths
    rng = np.random.default_rng(seed)
    vocab = np.array(words)
    with contextlib.ExitStack() as stack:
        files = [stack.enter_context(open(p, "w", encoding="utf-8")) for p in paths]
        for start in range(0, n, 50000):
            m = min(50000, n - start)
            for f in files:
                lengths = rng.integers(4, 26, size=m)
                drawn = vocab[np.minimum(rng.zipf(1.3, size=int(lengths.sum())) - 1, len(vocab) - 1)]
                cuts = np.cumsum(lengths)[:-1]
                f.write("\n".join(" ".join(s) for s in np.split(drawn, cuts)) + "\n")
    marker.write_text(str(n))
    return paths


def cli_command(paths: list[Path], out: Path, metrics: str = METRICS, model: str = "default",
                chunk_size: int = CHUNK_SIZE) -> list[str]:
    """``fastamfm score`` as a user types it (``python -m fastamfm.cli``)."""
    command = [sys.executable, "-m", "fastamfm.cli", "-q", "score", "--hyp", str(paths[0])]
    for p in paths[1:]:
        command += ["--ref", str(p)]
    return command + ["--metrics", metrics, "--model", model, "--out", str(out), "--no-progress",
                      "--chunk-size", str(chunk_size)]


def run_cli(paths: list[Path], out: Path, python_dir: Path = REPO / "python", **options) -> tuple[measure.Timing, dict]:
    """The command line in a child process importing fastamfm from ``python_dir``:
    (its Timing: wall, CPU user+sys, peak RSS from its own rusage; the corpus summary
    it wrote)."""
    env = dict(os.environ, PYTHONPATH=str(python_dir))
    run = measure.run_child(cli_command(paths, out, **options), env=env)
    summary = json.loads(out.with_name(out.name + ".summary.json").read_text())
    return run.timing, summary


def score_in_process(paths: list[Path], out: Path | None, metrics: str = METRICS, model: str = "default",
                     chunk_size: int = CHUNK_SIZE) -> dict:
    """``fastamfm.score_files`` in this process (out=None: the corpus summary only)."""
    import fastamfm

    return fastamfm.score_files(out, hyp=paths[0], refs=paths[1:], metrics=metrics.split(","), model=model,
                                chunk_size=chunk_size)


def read_texts(paths: list[Path]) -> tuple[list[str], list[list[str]]]:
    """The files as (hyps, per-response reference lists), for scoring in memory."""
    from fastamfm.io import read_lines, read_parallel_files

    return read_lines(paths[0]), read_parallel_files(paths[1:])
