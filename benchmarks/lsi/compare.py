"""LSI side by side with its peers, in one run, as ratios.

  svd  fastamfm's streamed randomized SVD vs scikit-learn's randomized_svd (same k,
       oversampling and power iterations) on a synthetic tf-idf matrix of 1M documents
       x 100k terms with ~14M non-zeros (Zipf-distributed terms). Each side runs in its
       own subprocess that loads the same matrix; time, CPU time and peak RSS
       (ru_maxrss) are the subprocess's own. The singular values of the two are compared.
  ooc  out-of-core training (LsiModel.train with max_memory) of synthetic corpora of
       N sentences written to /tmp: time, CPU time and peak RSS of the training subprocess.
  am   AM of the 20 DSTC-6 systems (2000 responses x 11 references each) with a model
       trained on the TWCS agent turns, vs a scikit-learn CountVectorizer + numpy
       pipeline; both encode the references once. Scores compared.

    python3 benchmarks/run.py lsi compare                 # all, full sizes
    python3 benchmarks/run.py lsi compare am --repeats 5
    python3 benchmarks/run.py lsi compare ooc --sentences 2000000,5000000
Generated data goes to $FASTAMFM_BENCH_DIR (default /tmp/fastamfm_bench).
Workloads and peers: workloads.py.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

import numpy as np

from benchmarks import REPO, measure
from benchmarks.lsi import workloads as w
from benchmarks.shared_data import DSTC6, TWCS, dstc6_references, dstc6_systems, require

BENCH_DIR = Path(os.environ.get("FASTAMFM_BENCH_DIR", "/tmp/fastamfm_bench"))


def run_worker(*args: str) -> dict:
    """One measurement in a fresh process of its own (``main --worker``)."""
    out = measure.run_child([sys.executable, "-m", __spec__.name, "--worker", *args], cwd=REPO)
    return json.loads(out.stdout.strip().splitlines()[-1])


def worker(kind: str, args: list) -> dict:
    if kind == "make-matrix":
        w.make_matrix(Path(args[0]), docs=int(args[1]), terms=int(args[2]), mean_length=15.0)
        return {}
    if kind == "svd":
        return w.svd_in_this_process(args[0], Path(args[1]), Path(args[2]))
    if kind == "write-corpus":
        w.write_corpus(Path(args[0]), int(args[1]))
        return {}
    return w.train_out_of_core(Path(args[0]), int(args[1]), BENCH_DIR)


def compare_svd(repeats: int, docs: int, terms: int) -> None:
    BENCH_DIR.mkdir(parents=True, exist_ok=True)
    matrix = BENCH_DIR / f"tfidf_{docs}_docs_{terms}_terms.npz"
    if not matrix.exists():
        print(f"generating the {docs:,} x {terms:,} tf-idf matrix ...", flush=True)
        run_worker("make-matrix", str(matrix), str(docs), str(terms))
    runs = {"fastamfm": [], "sklearn": []}
    with measure.LoadMonitor() as load:
        for _ in range(repeats):
            for side, side_runs in runs.items():
                side_runs.append(run_worker("svd", side, str(matrix), str(BENCH_DIR / f"s_{side}.npy")))
    results = {side: {key: statistics.median(r[key] for r in rs) for key in rs[0]} for side, rs in runs.items()}
    s_ours = np.load(BENCH_DIR / "s_fastamfm.npy")
    s_sk = np.load(BENCH_DIR / "s_sklearn.npy")
    ours, sk = results["fastamfm"], results["sklearn"]
    extra_ours, extra_sk = ours["peak_mb"] - ours["loaded_mb"], sk["peak_mb"] - sk["loaded_mb"]
    rel = np.abs(s_ours - s_sk) / s_sk
    measure.print_table(
        f"randomized SVD, k={w.K}, oversampling={w.OVERSAMPLING}, power iterations={w.POWER_ITERATIONS}, "
        f"{ours['nnz']:,} non-zeros", ["", "fastamfm", "sklearn", "sklearn / fastamfm"],
        [["wall seconds", f"{ours['seconds']:.2f}", f"{sk['seconds']:.2f}", measure.ratio(sk['seconds'] / ours['seconds'])],
         ["CPU seconds", f"{ours['cpu']:.2f}", f"{sk['cpu']:.2f}", measure.ratio(sk['cpu'] / ours['cpu'])],
         ["peak RSS (MB)", f"{ours['peak_mb']:.0f}", f"{sk['peak_mb']:.0f}", measure.ratio(sk['peak_mb'] / ours['peak_mb'])],
         ["peak over loaded matrix (MB)", f"{extra_ours:.0f}", f"{extra_sk:.0f}",
          measure.ratio(extra_sk / extra_ours) if extra_ours > 0 else "-"]],
        [f"median of {repeats} interleaved repeats; {load}",
         (f"singular values: max relative difference {rel.max():.2e} (top 10: {rel[:10].max():.2e}); "
          f"sum fastamfm {s_ours.sum():.4f} vs sklearn {s_sk.sum():.4f}")])


def compare_ooc(sizes: list[int], max_memory: int) -> None:
    BENCH_DIR.mkdir(parents=True, exist_ok=True)
    rows = []
    with measure.LoadMonitor() as load:
        for n in sizes:
            corpus = BENCH_DIR / f"corpus_{n}.txt"
            if not corpus.exists():
                run_worker("write-corpus", str(corpus), str(n))
            r = run_worker("ooc", str(corpus), str(max_memory))
            assert r["documents"] == n
            rows.append([f"{n:,}", f"{r['seconds']:.1f}", f"{r['cpu']:.1f}", f"{r['peak_mb']:.0f}", f"{r['terms']:,}",
                         f"{corpus.stat().st_size / 2**20:.0f}"])
    measure.print_table(f"out-of-core training, dims={w.K}, max_memory={max_memory >> 20} MiB, whitespace tokens",
                        ["sentences", "wall s", "CPU s", "peak RSS MB", "terms", "corpus MB"], rows, [str(load)])


def compare_am(repeats: int, dims: int) -> None:
    import fastamfm
    from oracles.lsi import twcs_agent_turns

    require(DSTC6)
    refs, systems = dstc6_references(), dstc6_systems()
    turns = twcs_agent_turns(require(TWCS))
    train, model = measure.timed(lambda: fastamfm.LsiModel.train(turns, dims=dims, seed=0))
    _ = model.fingerprint  # computed once per model; not part of scoring

    runs, scores = {"fastamfm": [], "sklearn": []}, {}
    with measure.LoadMonitor() as load:
        for _ in range(repeats):  # interleaved, so that a change of load hits both sides
            for name, scorer_class in (("fastamfm", w.FastamfmAM), ("sklearn", w.SklearnAM)):
                prepare, scorer = measure.timed(lambda c=scorer_class: c(refs, model, dims))
                score, scores[name] = measure.timed(lambda s=scorer: {k: s.score(h) for k, h in systems.items()})
                runs[name].append((prepare, score, measure.Timing(prepare.wall + score.wall, prepare.cpu + score.cpu)))
    (p_ours, s_ours, total_ours), (p_sk, s_sk, total_sk) = (
        [measure.median([r[i] for r in runs[name]]) for i in range(3)] for name in ("fastamfm", "sklearn"))
    ours, sk = scores["fastamfm"], scores["sklearn"]
    diff = max(float(np.max(np.abs(ours[s] - sk[s]))) for s in systems)
    n = sum(len(h) for h in systems.values())
    measure.print_table(
        f"AM of the 20 DSTC-6 systems ({n} responses x 11 references), dims={dims}, model trained on {len(turns)} "
        f"TWCS agent turns in {train.wall:.1f} s ({len(model.vocabulary)} terms)",
        ["task", "sklearn wall", "fastamfm wall", "wall speed-up", "sklearn CPU", "fastamfm CPU", "CPU speed-up"],
        [measure.speed_rows("encode + project the references", p_sk, p_ours),
         measure.speed_rows("score the 20 systems", s_sk, s_ours),
         measure.speed_rows("total", total_sk, total_ours)],
        [f"medians of {repeats} interleaved repeats; {load}",
         f"responses per second (scoring): fastamfm {n / s_ours.wall:,.0f}, sklearn {n / s_sk.wall:,.0f}",
         f"max |AM difference| over all responses: {diff:.2e}"])


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        print(json.dumps(worker(sys.argv[2], sys.argv[3:])))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", nargs="*", default=["svd", "ooc", "am"], choices=["svd", "ooc", "am"])
    parser.add_argument("--repeats", type=int, default=None, help="default: 1 for svd and ooc, 5 for am")
    parser.add_argument("--sentences", default="10000000", help="comma-separated corpus sizes for ooc")
    parser.add_argument("--svd-docs", type=int, default=1_000_000, help="documents of the svd matrix")
    parser.add_argument("--svd-terms", type=int, default=100_000, help="terms of the svd matrix")
    parser.add_argument("--max-memory", type=int, default=1 << 30, help="bytes, for ooc")
    parser.add_argument("--dims", type=int, default=100, help="for am")
    args = parser.parse_args()
    if "am" in args.what:
        compare_am(args.repeats or 5, args.dims)
    if "svd" in args.what:
        compare_svd(args.repeats or 1, args.svd_docs, args.svd_terms)
    if "ooc" in args.what:
        compare_ooc([int(s) for s in args.sentences.split(",")], args.max_memory)


if __name__ == "__main__":
    main()
