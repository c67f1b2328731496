"""METEOR 1.5 on the 20 DSTC-6 systems: fastamfm against the METEOR jar run through
pycocoevalcap (Java), side by side in one run.

Prints conformance (corpus scores against the jar and the published table, segments
differing by more than 1e-4, each listed with both sides' statistics) and speed: the
20 systems including start-up, each side a fresh process of its own (fastamfm:
interpreter + import + cached resources + files; the jar: interpreter + JVM + the
pycocoevalcap protocol), interleaved repeats, medians of wall time, CPU time (user +
sys, the JVM's included) and peak RSS; then the steady state in this process.

    FASTAMFM_CACHE_DIR=/tmp/cache python3 benchmarks/run.py meteor compare [--repeats 3]
        [--jar-cache build/meteor_jar_dstc6.json] [--reuse-jar]

The jar's outputs and timings are written to --jar-cache; --reuse-jar reads them
instead of running the jar again (conformance reruns are then cheap; the speed rows
then quote the cached jar timings).
"""
from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import fastamfm
import numpy as np

from benchmarks import measure
from benchmarks.meteor import workloads as w
from benchmarks.shared_data import (
    DSTC6,
    REPO,
    SYSTEMS,
    dstc6_objective,
    dstc6_references,
    dstc6_systems,
    require,
)


def conformance(results: dict, jar: dict, table: dict, systems: dict) -> None:
    print("\nMETEOR 1.5 on DSTC-6 (20 systems x 2000 segments x 11 references)")
    print(f"{'system':8} {'fastamfm':>10} {'jar':>10} {'table':>9} {'|f-jar|':>9} {'|f-table|':>9} {'seg>1e-4':>8} "
          f"{'stats!=':>8}")
    n_diff = n_segments = 0
    worst_corpus = worst_table = 0.0
    listed = []
    for s in SYSTEMS:
        ours, j = results[s], jar["systems"][s]
        corpus, segments = ours.corpus["METEOR"], ours.sentences["METEOR"]
        jseg = np.array(j["segments"])
        jstats = np.array([[float(x) for x in line.split()] for line in j["stats"]])
        diff = np.nonzero(np.abs(segments - jseg) > 1e-4)[0]
        stats_diff = int(np.sum(np.any(ours.extra["stats"] != jstats, axis=1)))
        n_diff += diff.size
        n_segments += len(jseg)
        worst_corpus = max(worst_corpus, abs(corpus - j["corpus"]))
        worst_table = max(worst_table, abs(corpus - table[s]["METEOR"]))
        print(f"{s:8} {corpus:10.6f} {j['corpus']:10.6f} {table[s]['METEOR']:9.6f} "
              f"{abs(corpus - j['corpus']):9.2e} {abs(corpus - table[s]['METEOR']):9.2e} {diff.size:8d} "
              f"{stats_diff:8d}")
        for i in diff:
            listed.append((s, i, systems[s][i], segments[i], jseg[i], ours.extra["stats"][i], jstats[i]))
    print(f"segments within 1e-4 of the jar: {n_segments - n_diff}/{n_segments} "
          f"({100 * (1 - n_diff / n_segments):.3f}%); max corpus |diff| vs jar {worst_corpus:.2e}, "
          f"vs published table {worst_table:.2e}")
    for s, i, hyp, a, b, sa, sb in listed:
        print(f"  differs: {s} line {i + 1}: fastamfm {a:.6f} jar {b:.6f} hyp={hyp!r}\n"
              f"    stats fastamfm {sa.astype(int).tolist()}\n    stats jar      {sb.astype(int).tolist()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jar-cache", type=Path, default=REPO / "build" / "meteor_jar_dstc6.json")
    parser.add_argument("--reuse-jar", action="store_true", help="read the jar's outputs and timings from --jar-cache")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=-1)
    args = parser.parse_args()
    require(DSTC6)
    refs, systems, table = dstc6_references(), dstc6_systems(), dstc6_objective()
    n_segments = sum(len(h) for h in systems.values())

    with tempfile.TemporaryDirectory() as workdir:
        conversion = w.convert_resources_process(workdir)
    fastamfm.meteor_resources.load()  # the cache every fresh process below reads
    sides = {"fastamfm": lambda: w.run_fastamfm_process(args.workers)}
    reuse = args.reuse_jar and args.jar_cache.is_file()
    with tempfile.TemporaryDirectory() as workdir, measure.LoadMonitor() as load:
        if not reuse:
            print("running the METEOR 1.5 jar through pycocoevalcap and fastamfm, fresh processes, "
                  f"{args.repeats} interleaved repeats ...", flush=True)
            sides["jar"] = lambda: w.run_jar_process(refs, systems, workdir)
        timed = measure.interleaved(sides, args.repeats)
    ours_process, ours_out = timed["fastamfm"]
    if reuse:
        cached = json.loads(args.jar_cache.read_text())
        jar_process, jar = measure.Timing(**cached["process"]), cached["outputs"]
        print(f"jar outputs and timings read from {args.jar_cache}")
    else:
        jar_process, jar = timed["jar"]
        args.jar_cache.parent.mkdir(parents=True, exist_ok=True)
        args.jar_cache.write_text(json.dumps({"process": vars(jar_process), "outputs": jar}))

    shared = fastamfm.References(refs)
    results = {s: fastamfm.meteor(h, shared, workers=args.workers) for s, h in systems.items()}  # warm-up too
    for s in SYSTEMS:
        corpus = results[s].corpus["METEOR"]
        assert ours_out["scores"][s] == corpus, (s, ours_out["scores"][s], corpus)
    conformance(results, jar, table, systems)

    steady, _ = measure.repeated(lambda: [fastamfm.meteor(h, shared, workers=args.workers) for h in systems.values()],
                                 args.repeats)
    one_worker, _ = measure.repeated(lambda: fastamfm.meteor(systems["S_1"], shared, workers=1), args.repeats)
    jar_steady = measure.Timing(jar["scoring_s"], float("nan"))
    rows = [
        measure.speed_rows("20 systems incl. start-up (fresh processes)", jar_process, ours_process) +
        [f"{jar_process.peak_mib:.0f}", f"{ours_process.peak_mib:.0f}"],
        ["start-up: ready to score (JVM / import + resources)", measure.seconds(jar["startup_s"]),
         measure.seconds(ours_out["ready_s"]), measure.ratio(jar["startup_s"] / ours_out["ready_s"]), "", "", "",
         "", ""],
        ["20 systems, steady state (in process)", measure.seconds(jar_steady.wall), measure.seconds(steady.wall),
         measure.ratio(jar_steady.wall / steady.wall), "", measure.seconds(steady.cpu), "", "", ""],
        ["one-time conversion of the jar's resources", "-", measure.seconds(conversion.wall), "", "",
         measure.seconds(conversion.cpu), "", "", f"{conversion.peak_mib:.0f}"],
    ]
    notes = [f"fresh processes: median of {args.repeats} interleaved repeats"
             + (" (jar timings from the cache file)" if reuse else "") + f"; {load}",
             (f"steady state: {n_segments / steady.wall:,.0f} segments/s vs the jar's "
              f"{n_segments / jar_steady.wall:,.0f}; one system on 1 worker: {2000 / one_worker.wall:,.0f} segments/s"),
             "the jar's steady state and start-up: " + ("from the cache file" if reuse else
                                                        "as its driver timed them (its last repeat)")]
    measure.print_table(f"METEOR speed, workers={args.workers}", [*measure.SPEED_HEADER, "peer MiB", "fastamfm MiB"],
                        rows, notes)

if __name__ == "__main__":
    main()
