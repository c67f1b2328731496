"""fastamfm serve under load: throughput and p50/p99 latency with locust on loopback, beside
the same batches called in this process; the neural rate with and without batching; the
memory of one server against eight in-process workers. One run.

    python3 benchmarks/run.py serve compare [--concurrency 1,8,64] [--seconds 15]
        [--in-process-seconds 8] [--workdir /tmp/fastamfm-serve-bench]

Workloads (workloads.py), each a request of 8 responses: BLEU+ROUGE-L and AM-FM (a small
model trained on the airline agent turns) with 4 DSTC-6 references each; reference-free
DeepAMFM (the packaged MiniLM and SmolLM2) with one context turn each. Served: one
``fastamfm serve`` child process (default batching: 5 ms, 512 responses) holds all three
metric sets; locust (``-u C``: C requests in flight, no think time) drives it for
``--seconds`` at each concurrency C. In process: C threads calling one shared pipeline on
the same batch for ``--in-process-seconds``, after the served runs of that workload (a
process holding the models meanwhile would compete for the cores). Neural batching:
DeepAMFM at the largest concurrency against a second server whose ``--max-batch 8`` keeps
every request alone.
Memory: the server's peak RSS (VmHWM) after all of it, against 8 x the peak RSS (VmHWM) of one
worker process that loads the same three metric sets and scores one batch of each (what
eight workers of an evaluation job hold).
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
from pathlib import Path

from serve_process import Server

from benchmarks import measure
from benchmarks.serve import workloads as w

WORKER = """
import json, sys
sys.path.insert(0, sys.argv[1])
from benchmarks.serve import workloads as w
bodies = json.loads(open(sys.argv[2]).read())
for (metrics, options), body in zip(json.loads(sys.argv[3]), bodies):
    w.pipeline_scorer(metrics, **options)(body)
print(w.peak_rss_mib())
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", default="1,8,64", help="comma-separated requests in flight")
    parser.add_argument("--seconds", type=float, default=15, help="locust's run time per row")
    parser.add_argument("--in-process-seconds", type=float, default=8, help="in-process run time per row")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/fastamfm-serve-bench"))
    args = parser.parse_args(argv)
    # OpenMP's idle threads sleep instead of spinning (as tests/conftest.py sets it): the server, locust and
    # the in-process side share two cores, and spinning threads of one starve the others. Before torch loads.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    levels = [int(c) for c in args.concurrency.split(",")]
    model = w.train_amfm(args.workdir / "amfm")
    workloads = [("BLEU+ROUGE-L", ["bleu", "rouge_l"], {}, w.classic_batches(1)[0]),
                 ("AM-FM", ["amfm"], {"model": str(model)}, w.classic_batches(1, seed=1)[0]),
                 ("DeepAMFM ref-free", ["deep_amfm"], {}, w.reference_free_batches(1)[0])]
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; "
          f"{w.RESPONSES_PER_REQUEST} responses a request")
    rows = []
    with measure.LoadMonitor() as load:
        with Server("--option", f"model={model}", start_seconds=w.START_SECONDS) as server:
            from fastamfm.client import Client

            client = Client(server.url)
            for label, metrics, options, body in workloads:
                # the server builds the set (loads its models) on the first request: not measured
                client.score(body["hyps"], body.get("refs"), metrics, contexts=body.get("contexts"))
                served = {c: w.run_locust(server.url, {**body, "metrics": metrics}, c, args.seconds) for c in levels}
                local = w.pipeline_scorer(metrics, **options)
                local(body)          # in process too: the models load on the first call, not measured
                for c in levels:
                    ours = w.in_process(local, body, c, args.in_process_seconds)
                    n = w.RESPONSES_PER_REQUEST
                    rows.append([label, c, f"{served[c]['rps'] * n:,.0f}", f"{served[c]['p50_ms']:.0f}",
                                 f"{served[c]['p99_ms']:.0f}", f"{ours['rps'] * n:,.0f}", f"{ours['p50_ms']:.1f}",
                                 f"{ours['p99_ms']:.1f}", served[c]["failures"]])
                    print("  " + " | ".join(map(str, rows[-1])), flush=True)
            neural = workloads[-1]
            batched = w.run_locust(server.url, {**neural[3], "metrics": neural[1]}, levels[-1], args.seconds)
            server_mib = w.peak_rss_mib(server.process.pid)
        with Server("--max-batch", str(w.RESPONSES_PER_REQUEST), start_seconds=w.START_SECONDS) as alone:
            Client(alone.url).score(neural[3]["hyps"], None, neural[1], contexts=neural[3]["contexts"])
            unbatched = w.run_locust(alone.url, {**neural[3], "metrics": neural[1]}, levels[-1], args.seconds)
        bodies = args.workdir / "bodies.json"
        bodies.write_text(json.dumps([body for *_, body in workloads]))
        sets = json.dumps([[metrics, options] for _, metrics, options, _ in workloads])
        worker = measure.run_child([sys.executable, "-c", WORKER, str(w.REPO), str(bodies), sets],
                                   env=dict(os.environ, PYTHONPATH=str(w.REPO / "python")))
        worker_mib = float(worker.stdout.split()[-1])
    measure.print_table("fastamfm serve (locust on loopback) beside in-process calls of the same batch",
                        ["workload", "concurrency", "served resp/s", "p50 ms", "p99 ms", "in-process resp/s",
                         "p50 ms", "p99 ms", "failed"], rows, [str(load)])
    n = w.RESPONSES_PER_REQUEST
    measure.print_table("DeepAMFM reference-free, dynamic batching", ["server", "resp/s", "p50 ms", "p99 ms"],
                        [["batched (5 ms, 512)", f"{batched['rps'] * n:,.1f}", f"{batched['p50_ms']:.0f}",
                          f"{batched['p99_ms']:.0f}"],
                         ["every request alone", f"{unbatched['rps'] * n:,.1f}", f"{unbatched['p50_ms']:.0f}",
                          f"{unbatched['p99_ms']:.0f}"]], [f"concurrency {levels[-1]}"])
    measure.print_table("memory", ["what", "peak RSS MiB"],
                        [["one server (all three metric sets)", f"{server_mib:,.0f}"],
                         ["one in-process worker (the same sets)", f"{worker_mib:,.0f}"],
                         ["eight in-process workers (8 x one)", f"{8 * worker_mib:,.0f}"]],
                        ["peak RSS: each process's own VmHWM (a forked child's rusage would count its parent's pages)"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
