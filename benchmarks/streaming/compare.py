"""Streaming ``fastamfm score``: throughput and peak memory of the real command line,
this checkout beside other fastamfm trees (e.g. the code before a change), one run.

    python3 benchmarks/run.py streaming compare [--sizes 1000000]
        [--python-dir before=/work/baseline/python] [--metrics am,fm,amfm,bleu,rouge_l]
        [--model default|DIR] [--chunk-size 20000] [--repeats 3] [--workdir /tmp/fastamfm-stream] [--ascii-only]

Generates N synthetic responses with 4 references each (workloads.py:
words from the scoring model's LSI vocabulary), then runs ``python -m fastamfm.cli
score ... --out scores.jsonl`` in a child process per side and size, the sides
interleaved repeat after repeat. Each side is a fastamfm tree: ``this`` (this
checkout's python/) and every ``--python-dir LABEL=DIR`` (a tree with its _core built,
given as the child's PYTHONPATH). Reported per side: wall time, responses/s, CPU
time (user + sys of the child), peak RSS (the child's ru_maxrss), medians of the
repeats, and the load average meanwhile; the corpus scores of every side are
compared. Memory should stay flat as N grows: only a chunk or two is held.
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from benchmarks import measure
from benchmarks.shared_data import REPO
from benchmarks.streaming import workloads as w


def parse_side(text: str) -> tuple[str, Path]:
    label, sep, directory = text.partition("=")
    if not sep or not label:
        raise argparse.ArgumentTypeError(f"--python-dir takes LABEL=DIR, got {text!r}")
    path = Path(directory).resolve()
    if not (path / "fastamfm").is_dir() or not list((path / "fastamfm").glob("_core*.so")):
        raise argparse.ArgumentTypeError(f"{path} holds no built fastamfm (python/fastamfm/_core*.so)")
    return label, path


def corpus_differences(summaries: dict) -> str:
    """The largest |difference| of each corpus score between the sides."""
    sides = list(summaries.values())
    columns = [c for c in sides[0]["corpus"] if all(c in s["corpus"] for s in sides)]
    worst = {c: max(abs(s["corpus"][c] - sides[0]["corpus"][c]) for s in sides) for c in columns}
    return ", ".join(f"{c} {d:.1e}" for c, d in worst.items())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000000", help="comma-separated numbers of responses")
    parser.add_argument("--python-dir", type=parse_side, action="append", default=[], metavar="LABEL=DIR",
                        help="another fastamfm tree to run beside this checkout (repeatable)")
    parser.add_argument("--metrics", default=w.METRICS)
    parser.add_argument("--model", default="default")
    parser.add_argument("--chunk-size", type=int, default=w.CHUNK_SIZE)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/fastamfm-stream"))
    parser.add_argument("--ascii-only", action="store_true",
                        help="draw words from the model's ASCII words only (no Unicode steps in the tokenizer)")
    args = parser.parse_args(argv)
    sides = dict(args.python_dir)
    sides["this"] = REPO / "python"
    words = w.model_vocabulary(args.model, args.ascii_only)
    options = {"metrics": args.metrics, "model": args.model, "chunk_size": args.chunk_size}
    print(f"metrics {args.metrics}, model {args.model}{' (ASCII words only)' if args.ascii_only else ''}, "
          f"{w.N_REFS} references, chunk {args.chunk_size}, "
          f"{os.cpu_count()} cores; sides: " + ", ".join(f"{k}={v}" for k, v in sides.items()))
    for n in (int(s) for s in args.sizes.split(",")):
        start = time.perf_counter()
        paths = w.synthetic_files(args.workdir / (f"n{n}" + ("-ascii" if args.ascii_only else "")), n, words)
        generated = time.perf_counter() - start

        def side(label: str, directory: Path, paths=paths):
            return lambda: w.run_cli(paths, paths[0].parent / f"{label}.jsonl", directory, **options)

        with measure.LoadMonitor() as load:
            results = measure.interleaved({label: side(label, d) for label, d in sides.items()}, args.repeats)
        base = next(iter(results.values()))[0]
        rows = [[label, f"{t.wall:.1f}", f"{n / t.wall:,.0f}", measure.ratio(base.wall / t.wall), f"{t.cpu:.1f}",
                 f"{n / t.cpu:,.0f}", measure.ratio(base.cpu / t.cpu), f"{t.peak_mib:.0f}"]
                for label, (t, _) in results.items()]
        measure.print_table(f"fastamfm score, {n:,} responses x {w.N_REFS} references",
                            ["side", "wall s", "resp/s", "speed-up", "CPU s", "resp/CPU-s", "CPU speed-up",
                             "peak RSS MiB"], rows,
                            [f"median of {args.repeats} interleaved repeats; speed-ups against the first side; {load}",
                             (f"input generated in {generated:.0f} s (or reused); corpus scores, largest "
                              f"|difference| between sides: {corpus_differences({k: r[1] for k, r in results.items()})}")])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
