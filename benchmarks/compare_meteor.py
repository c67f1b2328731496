"""METEOR 1.5 on the 20 DSTC-6 systems: fastamfm against the METEOR jar run through
pycocoevalcap (Java), side by side in one run.

Prints conformance (corpus scores against the jar and the published table, segments
differing by more than 1e-4, each listed with both sides' statistics) and speed
(20 systems including start-up, and steady-state segments per second).

    python benchmarks/compare_meteor.py [--data ../shared/data] [--repeats 3]
                                        [--jar-cache build/meteor_jar_dstc6.json] [--reuse-jar]

The jar's outputs and timings are written to --jar-cache; --reuse-jar reads them
instead of running the jar again (conformance reruns are then cheap; the speed rows
then quote the cached jar timings).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

import fastamfm  # noqa: E402
from fastamfm.io import read_lines, read_parallel_files  # noqa: E402

REFERENCE_FILES = ["original_refs.txt"] + [f"refgen_result{i}.txt" for i in range(1, 11)]
SYSTEMS = [f"S_{i}" for i in range(1, 21)]


def load_dstc6(data: Path):
    d = data / "dstc6_t2_evaluation"
    refs = read_parallel_files([d / "references" / f for f in REFERENCE_FILES])
    systems = {s: read_lines(d / "hypotheses" / f"{s}.txt") for s in SYSTEMS}
    rows = [line.split("\t") for line in (d / "objective_evaluation_results.txt").read_text().splitlines() if line.strip()]
    col = rows[0].index("METEOR")
    table = {row[0]: float(row[col]) for row in rows[1:]}
    return refs, systems, table


def run_jar(refs, systems) -> dict:
    """The jar exactly as pycocoevalcap's Meteor.compute_score drives it (a SCORE line
    per segment, then one EVAL line), keeping the statistics lines as well."""
    from pycocoevalcap.meteor.meteor import Meteor

    t0 = time.perf_counter()
    m = Meteor()
    m.compute_score({0: ["a test"]}, {0: ["a test"]})  # waits until the jar has loaded
    startup = time.perf_counter() - t0
    out = {"systems": {}, "startup_s": startup}
    t1 = time.perf_counter()
    for name, hyps in systems.items():
        stats = [m._stat(h, r) for h, r in zip(hyps, refs)]
        m.meteor_p.stdin.write(("EVAL ||| " + " ||| ".join(stats) + "\n").encode())
        m.meteor_p.stdin.flush()
        segments = [float(m.meteor_p.stdout.readline().strip()) for _ in stats]
        corpus = float(m.meteor_p.stdout.readline().strip())
        out["systems"][name] = {"stats": stats, "segments": segments, "corpus": corpus}
        print(f"  jar {name}: {corpus:.6f}", flush=True)
    out["scoring_s"] = time.perf_counter() - t1
    out["total_s"] = time.perf_counter() - t0
    del m
    return out


COLD_SCRIPT = """
import sys, time
t0 = time.perf_counter()
sys.path.insert(0, {python!r})
import fastamfm
fastamfm.meteor_resources.load()
ready = time.perf_counter() - t0
from fastamfm.io import read_lines, read_parallel_files
refs = read_parallel_files({ref_paths!r})
systems = [read_lines(p) for p in {hyp_paths!r}]
t1 = time.perf_counter()
r = fastamfm.References(refs)
scores = [fastamfm.meteor(h, r, workers={workers}).corpus for h in systems]
t2 = time.perf_counter()
print(ready, t2 - t1, *scores)
"""


def run_fastamfm_process(data: Path, workers: int, cache_dir: str | None) -> tuple[float, float, list[float]]:
    """A fresh Python process: interpreter + import + resource load + 20 systems.
    Returns (total seconds, seconds until ready to score (import + resources), corpus scores)."""
    d = data / "dstc6_t2_evaluation"
    script = COLD_SCRIPT.format(python=str(REPO / "python"),
                                ref_paths=[str(d / "references" / f) for f in REFERENCE_FILES],
                                hyp_paths=[str(d / "hypotheses" / f"{s}.txt") for s in SYSTEMS], workers=workers)
    env = dict(os.environ)
    if cache_dir is not None:
        env["FASTAMFM_CACHE_DIR"] = cache_dir
    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    total = time.perf_counter() - t0
    fields = [float(x) for x in res.stdout.split()]
    return total, fields[0], fields[2:]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path(os.environ.get("FASTAMFM_SHARED_DATA", REPO.parent / "shared" / "data")))
    ap.add_argument("--jar-cache", type=Path, default=REPO / "build" / "meteor_jar_dstc6.json")
    ap.add_argument("--reuse-jar", action="store_true", help="read the jar's outputs from --jar-cache")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--workers", type=int, default=-1)
    args = ap.parse_args()

    refs, systems, table = load_dstc6(args.data)
    n_segments = sum(len(h) for h in systems.values())

    # --- fastamfm: one-time conversion, fresh-process runs, steady state ----------------
    with tempfile.TemporaryDirectory() as empty_cache:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(REPO / 'python')!r}); "
                        "import fastamfm; fastamfm.meteor_resources.load()"],
                       env={**os.environ, "FASTAMFM_CACHE_DIR": empty_cache}, check=True)
        conversion_s = time.perf_counter() - t0
    fastamfm.meteor_resources.load()  # make sure the default cache exists
    process_runs = [run_fastamfm_process(args.data, args.workers, None) for _ in range(args.repeats)]
    process_total = statistics.median(r[0] for r in process_runs)
    process_ready = statistics.median(r[1] for r in process_runs)

    r = fastamfm.References(refs)
    results = {s: fastamfm.meteor(h, r, workers=args.workers) for s, h in systems.items()}  # warm-up
    steady = []
    for _ in range(args.repeats):
        t = time.perf_counter()
        for s, h in systems.items():
            fastamfm.meteor(h, r, workers=args.workers)
        steady.append(time.perf_counter() - t)
    steady_s = statistics.median(steady)
    single = []
    for _ in range(args.repeats):
        t = time.perf_counter()
        fastamfm.meteor(systems["S_1"], r, workers=1)
        single.append(time.perf_counter() - t)
    single_s = statistics.median(single)

    # --- the jar ---------------------------------------------------------------------
    if args.reuse_jar and args.jar_cache.is_file():
        jar = json.loads(args.jar_cache.read_text())
        print(f"jar outputs and timings read from {args.jar_cache}")
    else:
        print("running the METEOR 1.5 jar through pycocoevalcap ...", flush=True)
        jar = run_jar(refs, systems)
        args.jar_cache.parent.mkdir(parents=True, exist_ok=True)
        args.jar_cache.write_text(json.dumps(jar))

    # --- conformance -------------------------------------------------------------------
    print("\nMETEOR 1.5 on DSTC-6 (20 systems x 2000 segments x 11 references)")
    print(f"{'system':8} {'fastamfm':>10} {'jar':>10} {'table':>9} {'|f-jar|':>9} {'|f-table|':>9} {'seg>1e-4':>8} {'stats!=':>8}")
    n_diff = 0
    worst_corpus = worst_table = 0.0
    listed = []
    for s in SYSTEMS:
        ours = results[s]
        j = jar["systems"][s]
        jseg = np.array(j["segments"])
        jstats = np.array([[float(x) for x in line.split()] for line in j["stats"]])
        diff = np.nonzero(np.abs(ours.sentences - jseg) > 1e-4)[0]
        stats_diff = int(np.sum(np.any(ours.extra["stats"] != jstats, axis=1)))
        n_diff += diff.size
        worst_corpus = max(worst_corpus, abs(ours.corpus - j["corpus"]))
        worst_table = max(worst_table, abs(ours.corpus - table[s]))
        print(f"{s:8} {ours.corpus:10.6f} {j['corpus']:10.6f} {table[s]:9.6f} {abs(ours.corpus - j['corpus']):9.2e} "
              f"{abs(ours.corpus - table[s]):9.2e} {diff.size:8d} {stats_diff:8d}")
        for i in diff:
            listed.append((s, i, systems[s][i], ours.sentences[i], jseg[i], ours.extra["stats"][i], jstats[i]))
    share = 1 - n_diff / n_segments
    print(f"segments within 1e-4 of the jar: {n_segments - n_diff}/{n_segments} ({100 * share:.3f}%); "
          f"max corpus |diff| vs jar {worst_corpus:.2e}, vs published table {worst_table:.2e}")
    for s, i, hyp, a, b, sa, sb in listed:
        print(f"  differs: {s} line {i + 1}: fastamfm {a:.6f} jar {b:.6f} hyp={hyp!r}\n"
              f"    stats fastamfm {sa.astype(int).tolist()}\n    stats jar      {sb.astype(int).tolist()}")

    # --- speed -----------------------------------------------------------------------
    jar_total = jar["total_s"]
    print(f"\nspeed ({os.cpu_count()} cores, workers={args.workers}; fastamfm median of {args.repeats}, jar once)")
    print(f"{'':44} {'fastamfm':>10} {'jar':>10} {'ratio':>8}")
    print(f"{'20 systems incl. start-up (fresh process)':44} {process_total:9.2f}s {jar_total:9.2f}s {jar_total / process_total:7.1f}x")
    print(f"{'start-up: ready to score (import / JVM)':44} {process_ready:9.2f}s {jar['startup_s']:9.2f}s "
          f"{jar['startup_s'] / process_ready:7.1f}x")
    print(f"{'one-time conversion of the jar resources':44} {conversion_s:9.2f}s {'-':>10}")
    print(f"{'20 systems, steady state':44} {steady_s:9.2f}s {jar['scoring_s']:9.2f}s {jar['scoring_s'] / steady_s:7.1f}x")
    print(f"{'segments/s, steady state':44} {n_segments / steady_s:10.0f} {n_segments / jar['scoring_s']:10.0f}")
    print(f"{'segments/s, one system, 1 worker':44} {2000 / single_s:10.0f}")


if __name__ == "__main__":
    main()
