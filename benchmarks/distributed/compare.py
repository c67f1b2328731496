"""Distributed scoring beside the single-process command, same cores, same run.

    python3 benchmarks/run.py distributed compare [--n 200000] [--repeats 3]
        [--metrics am,fm,amfm --metrics bleu,rouge_l,cider,am,fm,amfm] [--partition-size 20000]
        [--workdir /tmp/fastamfm-dist]

N synthetic responses with 4 references each (``streaming_memory.synthetic_files``:
Zipf words from the default model's vocabulary) are scored, per metric set and round,
three ways on this machine's cores:

- single: the real command ``fastamfm score --hyp --ref ... --out`` in a child process
  (C++ threads on every core: the baseline);
- warm: ``fastamfm.distributed.score`` on a LocalCluster of 2 worker processes x 1
  thread started once beforehand, configured as ``--local-workers`` configures it
  (``command.connect``): what a run on an existing cluster costs;
- cold: ``fastamfm score --local-workers 2 ...`` (the cluster's start included).

With ``--train-lines N``: ``AMFM.train`` on N synthetic lines beside
``fastamfm.distributed.train`` on the same lines split into 4 files (the counting on the
2 workers, the SVD and the estimation in this process), after the scoring tables.

Per run: wall time, CPU time (user + sys of every process involved: the child and its
children for the commands; this process, which hosts the scheduler, plus the workers
for warm) and the 1-minute load average when it started. Rounds interleave the three
ways so they share the machine's noise; the table gives medians and the ratio to
single. Every output file must equal the single-process one byte for byte.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks import REPO
from benchmarks.streaming.workloads import synthetic_files

_WRAPPER = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL); "
            "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
            "print('cpu', u.ru_utime + u.ru_stime, file=sys.stderr); sys.exit(r.returncode)")


def _cpu_now() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_command(args: list) -> dict:
    """Wall and CPU seconds of ``fastamfm <args>`` in a child process."""
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    load = os.getloadavg()[0]
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _WRAPPER, sys.executable, "-m", "fastamfm.cli", "-q", *args],
                          env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr)
    cpu = float(proc.stderr.strip().splitlines()[-1].split()[-1])
    return {"wall": wall, "cpu": cpu, "load": load}


def run_warm(client, paths: list, metrics: list, out: Path, partition_size: int, model: str) -> dict:
    """Wall and CPU seconds of ``fastamfm.distributed.score`` on the running cluster."""
    import fastamfm.distributed

    workers_before = client.run(_cpu_now)
    cpu_before = _cpu_now()
    load = os.getloadavg()[0]
    start = time.perf_counter()
    fastamfm.distributed.score(client, [(paths[0], paths[1:])], metrics, out=out, partition_size=partition_size,
                               model=model)
    wall = time.perf_counter() - start
    cpu = _cpu_now() - cpu_before
    workers_after = client.run(_cpu_now)
    cpu += sum(workers_after[w] - workers_before.get(w, 0.0) for w in workers_after)
    return {"wall": wall, "cpu": cpu, "load": load}


def compare_training(client, workdir: Path, lines: int, repeats: int) -> None:
    import fastamfm
    import fastamfm.distributed
    import numpy as np

    rng = np.random.default_rng(0)
    vocab = np.array([f"w{i}" for i in range(20_000)])
    corpus = [" ".join(vocab[np.minimum(rng.zipf(1.3, size=n) - 1, len(vocab) - 1)])
              for n in rng.integers(4, 26, size=lines)]
    paths = []
    for k, part in enumerate(np.array_split(np.arange(lines), 4)):
        paths.append(workdir / f"train{k}.txt")
        paths[-1].write_text("".join(corpus[i] + "\n" for i in part))
    runs = {"AMFM.train": [], "distributed.train": []}
    for _ in range(repeats):
        load, start, cpu = os.getloadavg()[0], time.perf_counter(), _cpu_now()
        whole = fastamfm.AMFM.train(corpus, dims=50, workers=2)
        runs["AMFM.train"].append({"wall": time.perf_counter() - start, "cpu": _cpu_now() - cpu, "load": load})
        workers_before = client.run(_cpu_now)
        load, start, cpu = os.getloadavg()[0], time.perf_counter(), _cpu_now()
        spread = fastamfm.distributed.train(client, paths, dims=50, workers=2, partition_size=lines // 8)
        wall, cpu = time.perf_counter() - start, _cpu_now() - cpu
        workers_after = client.run(_cpu_now)
        cpu += sum(workers_after[w] - workers_before.get(w, 0.0) for w in workers_after)
        runs["distributed.train"].append({"wall": wall, "cpu": cpu, "load": load})
        assert spread.signature == whole.signature, "the models differ"
    print(f"\ntraining on {lines} lines (dims 50, order 3)")
    print_runs(runs, "AMFM.train", width=18)


def print_runs(runs: dict, baseline: str, *, width: int, every_wall: bool = False) -> None:
    """One row per way: median wall seconds, its ratio to ``baseline``'s, median CPU seconds
    and load (and, with ``every_wall``, each repeat's wall time)."""
    base = statistics.median(r["wall"] for r in runs[baseline])
    header = f"{'way':<{width}}{'wall s (median)':>16}{'ratio':>8}{'cpu s':>8}{'load':>7}"
    print(header + ("   walls" if every_wall else ""))
    for way, measured in runs.items():
        wall = statistics.median(r["wall"] for r in measured)
        row = (f"{way:<{width}}{wall:>16.2f}{wall / base:>8.2f}{statistics.median(r['cpu'] for r in measured):>8.1f}"
               f"{statistics.median(r['load'] for r in measured):>7.1f}")
        print(row + ("   " + " ".join(f"{r['wall']:.2f}" for r in measured) if every_wall else ""))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--metrics", action="append", help="comma-separated metric set (repeatable)")
    parser.add_argument("--partition-size", type=int, default=20_000)
    parser.add_argument("--model", default="default")
    parser.add_argument("--workdir", default="/tmp/fastamfm-dist")
    parser.add_argument("--train-lines", type=int, default=0, help="also compare training on this many lines")
    args = parser.parse_args(argv)
    metric_sets = args.metrics or ["am,fm,amfm", "bleu,rouge_l,cider,am,fm,amfm"]
    from fastamfm.amfm.scorer import resolve_model
    from fastamfm.distributed.command import connect

    workdir = Path(args.workdir)
    paths = synthetic_files(workdir / f"n{args.n}", args.n, resolve_model(args.model).lsi.vocabulary)
    ref_args = [a for p in paths[1:] for a in ("--ref", str(p))]
    print(f"{args.n} responses x {len(paths) - 1} references, {os.cpu_count()} cores, partitions of "
          f"{args.partition_size}, {args.repeats} rounds; the machine may be shared: load averages below")
    with connect(None, 2) as client:
        for metrics in metric_sets:
            runs = {"single": [], "warm": [], "cold": []}
            for _ in range(args.repeats):
                single_out = workdir / "single.jsonl"
                runs["single"].append(run_command(["score", "--hyp", str(paths[0]), *ref_args, "--metrics", metrics,
                                                   "--model", args.model, "--out", str(single_out),
                                                   "--no-progress"]))
                warm_dir = workdir / "warm"
                shutil.rmtree(warm_dir, ignore_errors=True)
                runs["warm"].append(run_warm(client, [str(p) for p in paths], metrics.split(","), warm_dir,
                                             args.partition_size, args.model))
                cold_out = workdir / "cold.jsonl"
                runs["cold"].append(run_command(["score", "--hyp", str(paths[0]), *ref_args, "--metrics", metrics,
                                                 "--model", args.model, "--out", str(cold_out), "--no-progress",
                                                 "--local-workers", "2", "--partition-size",
                                                 str(args.partition_size)]))
                expected = single_out.read_bytes()
                assert (warm_dir / "scores.jsonl").read_bytes() == expected, "warm output differs"
                assert cold_out.read_bytes() == expected, "cold output differs"
            print(f"\nmetrics {metrics}")
            print_runs(runs, "single", width=8, every_wall=True)
        if args.train_lines:
            compare_training(client, workdir, args.train_lines, args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
