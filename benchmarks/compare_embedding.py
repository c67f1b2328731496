"""fastamfm's embedding metrics and word-vector loading side by side with their peers, in one run.

1. Embedding Average, Vector Extrema and Greedy Matching on the 20 DSTC-6 systems
   (2000 responses x 11 references each) against the numpy port of nlg-eval's
   formulas in tests/oracles/embedding.py (nlg-eval's own code needs GloVe and
   gensim, neither of which is available here; the port follows its formulas one
   sentence at a time, as nlg-eval does). Every system's scores are checked equal
   within 1e-6 before any time is reported.
   Vectors: 300-d (GloVe's size) over the vocabulary of the twcs_airlines agent
   turns, random values (speed does not depend on them), written as a GloVe text
   file and loaded through WordVectors.load.
2. Loading a 400k x 300 GloVe text file (~1.1 GB, generated once in /tmp): first
   load (parse + write the cache), cached load (map the cache), load without cache,
   and pandas.read_csv, the usual fast way to read such a file into numpy.

Usage:  PYTHONPATH=python python3 benchmarks/compare_embedding.py [--data DIR] [--repeats N] [--skip-load]
Times are wall-clock seconds; fastamfm uses every core (workers=-1), numpy one.
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE))

import fastamfm  # noqa: E402
from fastamfm.io import read_lines, read_parallel_files  # noqa: E402
from fastamfm.metrics.embedding import embedding_metrics  # noqa: E402
from big_vector_file import write_big_glove  # noqa: E402
from oracles.embedding import Lookup, sentence_scores  # noqa: E402
from vector_files import write_glove  # noqa: E402

REFERENCE_FILES = ["original_refs.txt"] + [f"refgen_result{i}.txt" for i in range(1, 11)]
SYSTEMS = [f"S_{i}" for i in range(1, 21)]
METRICS = {"average": fastamfm.embedding_average, "extrema": fastamfm.vector_extrema,
           "greedy": fastamfm.greedy_matching}


def median_time(fn, repeats: int) -> tuple[float, float]:
    """Median wall-clock and CPU seconds (CPU: all threads of the process) of `repeats` runs."""
    walls, cpus = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - start_cpu)
    return statistics.median(walls), statistics.median(cpus)


def twcs_vectors(data: Path, workdir: Path) -> tuple[list[str], np.ndarray, Path]:
    import pandas as pd

    frame = pd.read_csv(data / "twcs_airlines" / "airlines_processed.csv.bz2")
    turns = (t for c in frame["context"].dropna() for t in re.findall(r"<rep__(.*?)__rep>", c))
    words = sorted({w for t in turns for w in t.split()})
    matrix = np.random.default_rng(0).normal(0, 0.4, size=(len(words), 300)).astype(np.float32)
    path = workdir / "twcs_random_300d.txt"
    write_glove(path, words, matrix)
    return words, matrix, path


def compare_metrics(data: Path, repeats: int, workdir: Path) -> None:
    dstc6 = data / "dstc6_t2_evaluation"
    refs = read_parallel_files([dstc6 / "references" / f for f in REFERENCE_FILES])
    systems = {s: read_lines(dstc6 / "hypotheses" / f"{s}.txt") for s in SYSTEMS}
    words, matrix, path = twcs_vectors(data, workdir)
    vectors = fastamfm.WordVectors.load(path)
    lookup = Lookup(words, matrix)
    print(f"vectors: {len(vectors)} words x {vectors.dim} (twcs_airlines vocabulary), "
          f"DSTC-6: {len(systems)} systems x {len(refs)} responses x 11 references")

    encoded = fastamfm.References(refs)
    numpy_times, numpy_cpu, worst = [], 0.0, 0.0
    for name, hyps in systems.items():
        start, start_cpu = time.perf_counter(), time.process_time()
        slow = sentence_scores(hyps, refs, lookup)
        numpy_times.append(time.perf_counter() - start)
        numpy_cpu += time.process_time() - start_cpu
        for metric, fn in METRICS.items():
            fast = fn(hyps, encoded, vectors=vectors).sentences
            diff = float(np.abs(fast - slow[metric]).max())
            assert diff <= 1e-6, (name, metric, diff)
            worst = max(worst, diff)
    numpy_total = sum(numpy_times)
    print(f"checked: all 20 systems x 3 metrics equal to the numpy port, max |difference| = {worst:.2e}")

    def each_metric_separately():
        for hyps in systems.values():
            for fn in METRICS.values():
                fn(hyps, encoded, vectors=vectors)

    def all_in_one_pass():
        for hyps in systems.values():
            embedding_metrics(hyps, encoded, vectors=vectors)

    def per_metric(fn):
        return lambda: [fn(hyps, encoded, vectors=vectors) for hyps in systems.values()]

    def raw_references_one_pass():
        for hyps in systems.values():
            embedding_metrics(hyps, refs, vectors=vectors)

    rows = [
        ("3 metrics, one pass (embedding_metrics)", median_time(all_in_one_pass, repeats)),
        ("3 metrics, three calls", median_time(each_metric_separately, repeats)),
        ("3 metrics, one pass, raw ref lists", median_time(raw_references_one_pass, max(1, repeats // 2))),
    ]
    print(f"\n{'20 DSTC-6 systems (wall s | CPU s)':44s} {'numpy port':>16s} {'fastamfm':>16s} {'speed-up':>15s}")
    for label, (wall, cpu) in rows:
        print(f"{label:44s} {numpy_total:7.2f} | {numpy_cpu:6.2f} {wall:7.3f} | {cpu:6.3f} "
              f"{numpy_total / wall:6.1f}x | {numpy_cpu / cpu:5.1f}x")
    for metric, fn in METRICS.items():
        wall, cpu = median_time(per_metric(fn), repeats)
        print(f"{'  ' + fn.__name__ + ' alone':44s} {'':16s} {wall:7.3f} | {cpu:6.3f}")
    print(f"(numpy port: {statistics.median(numpy_times):.2f}s per system, median; one pass computes all three; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")


def compare_loading(repeats: int) -> None:
    big = write_big_glove(Path(tempfile.gettempdir()) / "fastamfm_bench_400k_300d.txt")
    cache = fastamfm.vectors.cache_path_for(big)
    if cache.exists():
        cache.unlink()
    os.system(f"cat {big} > /dev/null")  # the source in the page cache, as for every later load
    start = time.perf_counter()
    first = fastamfm.WordVectors.load(big)
    first_load = time.perf_counter() - start
    cached = median_time(lambda: fastamfm.WordVectors.load(big), repeats)[0]
    uncached = median_time(lambda: fastamfm.WordVectors.load(big, cache=False), 1)[0]
    print(f"\n{'load 400k x 300 GloVe text (' + str(big.stat().st_size >> 20) + ' MiB)':44s} {'seconds':>10s}")
    print(f"{'fastamfm first load (parse + write cache)':44s} {first_load:10.3f}")
    print(f"{'fastamfm cached load (map the cache)':44s} {cached:10.4f}")
    print(f"{'fastamfm cache=False (parse only)':44s} {uncached:10.3f}")
    try:
        import pandas as pd
    except ImportError:
        return
    start = time.perf_counter()
    frame = pd.read_csv(big, sep=" ", header=None, quoting=3, index_col=0, engine="c", dtype={0: str},
                        na_filter=False)
    peer = frame.to_numpy(dtype=np.float32)
    pandas_time = time.perf_counter() - start
    assert np.array_equal(peer, first.vectors)
    print(f"{'pandas.read_csv -> float32 array':44s} {pandas_time:10.3f}")
    print(f"first load {pandas_time / first_load:.1f}x, cached load {pandas_time / cached:.0f}x faster than pandas")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=Path(os.environ.get(
        "FASTAMFM_SHARED_DATA", HERE.parents[1] / "shared" / "data")))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--skip-load", action="store_true")
    args = parser.parse_args()
    print(f"fastamfm {fastamfm.__version__}, {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as workdir:
        compare_metrics(args.data, args.repeats, Path(workdir))
    if not args.skip_load:
        compare_loading(args.repeats)


if __name__ == "__main__":
    main()
