"""fastamfm's embedding metrics and word-vector loading side by side with their peers, in one run.

1. Embedding Average, Vector Extrema and Greedy Matching on the 20 DSTC-6 systems
   (2000 responses x 11 references each) against the numpy port of nlg-eval's
   formulas (tests/oracles/embedding.py). Every system's scores are checked equal
   within 1e-6 before any time is reported. Vectors: 300-d (GloVe's size) over the
   vocabulary of the twcs_airlines agent turns, random values (speed does not depend
   on them), written as a GloVe text file and loaded through WordVectors.load.
2. Loading a 400k x 300 GloVe text file (~1.1 GB, generated once in /tmp): first
   load (parse + write the cache), cached load (map the cache), load without cache,
   and pandas.read_csv, the usual fast way to read such a file into numpy.

Usage:  python3 benchmarks/run.py embedding compare [--repeats N] [--skip-load] [--load-words N]
Wall and CPU seconds (all threads); fastamfm uses every core (workers=-1), numpy one.
Workloads and peers: workloads.py.
"""
from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import fastamfm

from benchmarks import measure
from benchmarks.embedding import workloads as w
from benchmarks.shared_data import DSTC6, TWCS, dstc6_references, dstc6_systems, require

SEPARATE = {"embedding_average": fastamfm.embedding_average, "vector_extrema": fastamfm.vector_extrema,
            "greedy_matching": fastamfm.greedy_matching}


def compare_metrics(repeats: int, workdir: Path) -> None:
    require(DSTC6)
    refs, systems = dstc6_references(), dstc6_systems()
    lookup, path = w.twcs_vector_file(require(TWCS), workdir)
    vectors = fastamfm.WordVectors.load(path)
    print(f"vectors: {len(vectors)} words x {vectors.dim} (twcs_airlines vocabulary), "
          f"DSTC-6: {len(systems)} systems x {len(refs)} responses x 11 references")
    shared = fastamfm.References(refs)

    with measure.LoadMonitor() as load:
        numpy_port, expected = measure.timed(lambda: {s: w.numpy_port_scores(h, refs, lookup)
                                                      for s, h in systems.items()})
        worst = max(w.check_scores(w.fastamfm_scores(h, shared, vectors), expected[s]) for s, h in systems.items())
        print(f"checked: all 20 systems x 3 metrics equal to the numpy port, max |difference| = {worst:.2e}")
        rows = [
            ("3 metrics, one evaluate call", lambda: [w.fastamfm_scores(h, shared, vectors) for h in systems.values()]),
            ("3 metrics, three calls", lambda: [fn(h, shared, vectors=vectors) for h in systems.values()
                                                for fn in SEPARATE.values()]),
            ("3 metrics, one evaluate call, raw ref lists",
             lambda: [w.fastamfm_scores(h, refs, vectors) for h in systems.values()]),
        ]
        timings = [(label, measure.repeated(fn, repeats)[0]) for label, fn in rows]
        alone = [(name, measure.repeated(lambda f=fn: [f(h, shared, vectors=vectors) for h in systems.values()],
                                         repeats)[0]) for name, fn in SEPARATE.items()]
    table = [measure.speed_rows(label, numpy_port, t) for label, t in timings]
    table += [[f"  {name} alone", "", measure.seconds(t.wall), "", "", measure.seconds(t.cpu), ""] for name, t in alone]
    measure.print_table("embedding metrics, 20 DSTC-6 systems, vs the numpy port of nlg-eval (one pass computes "
                        "all three)", measure.SPEED_HEADER, table,
                        [(f"numpy port timed once ({numpy_port.wall / len(systems):.2f} s per system); fastamfm median "
                          f"of {repeats}; {load}")])


def compare_loading(repeats: int, words: int) -> None:
    big = w.write_big_glove(Path(tempfile.gettempdir()) / f"fastamfm_bench_{words}_300d.txt", n_words=words)
    cache = fastamfm.metrics.vectors.cache_path_for(big)
    if cache.exists():
        cache.unlink()
    os.system(f"cat {big} > /dev/null")  # the source in the page cache, as for every later load
    with measure.LoadMonitor() as load:
        first_load, first = measure.timed(lambda: fastamfm.WordVectors.load(big))
        cached, _ = measure.repeated(lambda: fastamfm.WordVectors.load(big), repeats)
        uncached, _ = measure.timed(lambda: fastamfm.WordVectors.load(big, cache=False))
        rows = [["fastamfm first load (parse + write cache)", first_load],
                ["fastamfm cached load (map the cache)", cached],
                ["fastamfm cache=False (parse only)", uncached]]
        notes = []
        try:
            pandas_time, peer = measure.timed(lambda: w.pandas_read_glove(big))
            assert (peer == first.vectors).all()
            rows.append(["pandas.read_csv -> float32 array", pandas_time])
            notes.append(f"first load {pandas_time.wall / first_load.wall:.1f}x, cached load "
                         f"{pandas_time.wall / cached.wall:.0f}x faster than pandas (wall)")
        except ImportError:
            notes.append("pandas is not installed: no peer row")
    measure.print_table(f"load a {words:,} x 300 GloVe text file ({big.stat().st_size >> 20} MiB)",
                        ["loader", "wall", "CPU"],
                        [[name, measure.seconds(t.wall), measure.seconds(t.cpu)] for name, t in rows],
                        notes + [str(load)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--skip-load", action="store_true")
    parser.add_argument("--load-words", type=int, default=400_000, help="rows of the GloVe file to load")
    args = parser.parse_args()
    print(f"fastamfm {fastamfm.__version__}, {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as workdir:
        compare_metrics(args.repeats, Path(workdir))
    if not args.skip_load:
        compare_loading(args.repeats, args.load_words)


if __name__ == "__main__":
    main()
