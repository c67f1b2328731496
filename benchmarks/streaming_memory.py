"""Streaming `fastamfm score`: peak memory and throughput at two input sizes.

    python benchmarks/streaming_memory.py [--sizes 250000,1000000] [--metrics am,fm,amfm,bleu,rouge_l]
                                          [--model default|DIR] [--workdir /tmp/fastamfm-stream]

Generates N synthetic responses with 4 references each (words drawn from a Zipf
distribution over the scoring model's LSI vocabulary, 4-25 words per sentence), runs the real
command line (`python -m fastamfm.cli score ... --out scores.jsonl`) in a child
process per size, and reports its peak resident memory (ru_maxrss of the child) and
responses per second. Memory should stay flat as N grows: only one chunk is held.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
N_REFS = 4


def synthetic_files(directory: Path, n: int, words: list, seed: int = 0) -> list[Path]:
    """hyp.txt and ref1..4.txt with n lines each (written in blocks, memory-light)."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = [directory / "hyp.txt"] + [directory / f"ref{k}.txt" for k in range(1, N_REFS + 1)]
    if all(p.exists() for p in paths) and (directory / "n.txt").exists() and \
            (directory / "n.txt").read_text() == str(n):
        return paths
    rng = np.random.default_rng(seed)
    vocab = np.array(words)
    files = [open(p, "w", encoding="utf-8") for p in paths]
    try:
        for start in range(0, n, 50000):
            m = min(50000, n - start)
            for f in files:
                lengths = rng.integers(4, 26, size=m)
                words = vocab[np.minimum(rng.zipf(1.3, size=int(lengths.sum())) - 1, len(vocab) - 1)]
                cuts = np.cumsum(lengths)[:-1]
                f.write("\n".join(" ".join(s) for s in np.split(words, cuts)) + "\n")
    finally:
        for f in files:
            f.close()
    (directory / "n.txt").write_text(str(n))
    return paths


def run_score(paths: list[Path], out: Path, metrics: str, model: str, chunk_size: int) -> tuple[float, float, str]:
    cmd = [sys.executable, "-m", "fastamfm.cli", "-q", "score", "--hyp", str(paths[0])]
    for p in paths[1:]:
        cmd += ["--ref", str(p)]
    cmd += ["--metrics", metrics, "--model", model, "--out", str(out), "--no-progress",
            "--chunk-size", str(chunk_size)]
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    # A wrapper process per run reports the peak RSS of its only child, so every size
    # gets its own figure (ru_maxrss of children is a maximum over all of them).
    wrapper = [sys.executable, "-c", _WRAPPER]
    start = time.perf_counter()
    proc = subprocess.run(wrapper + cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr)
    peak_kib = int(proc.stderr.strip().splitlines()[-1].split()[-1])
    return wall, peak_kib / 1024, proc.stdout


_WRAPPER = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:]); "
            "print('peak_kib', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); "
            "sys.exit(r.returncode)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="250000,1000000")
    parser.add_argument("--metrics", default="am,fm,amfm,bleu,rouge_l")
    parser.add_argument("--model", default="default")
    parser.add_argument("--chunk-size", type=int, default=20000)
    parser.add_argument("--workdir", default="/tmp/fastamfm-stream")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    sys.path.insert(0, str(REPO / "python"))
    from fastamfm.amfm import resolve_model

    words = resolve_model(args.model).lsi.vocabulary
    print(f"metrics {args.metrics}, model {args.model}, {N_REFS} references, chunk {args.chunk_size}, "
          f"{os.cpu_count()} cores")
    print(f"{'responses':>10} {'wall s':>8} {'resp/s':>9} {'peak RSS MiB':>13}")
    for n in sizes:
        t0 = time.perf_counter()
        paths = synthetic_files(Path(args.workdir) / f"n{n}", n, words)
        gen = time.perf_counter() - t0
        out = Path(args.workdir) / f"n{n}" / "scores.jsonl"
        wall, peak, stdout = run_score(paths, out, args.metrics, args.model, args.chunk_size)
        print(f"{n:>10} {wall:>8.1f} {n / wall:>9.0f} {peak:>13.0f}   (input generated in {gen:.0f} s)")
        print("   " + " | ".join(stdout.strip().splitlines()[:7]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
