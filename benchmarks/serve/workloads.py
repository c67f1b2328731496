"""Workloads of the serve benchmarks, shared by bench.py and compare.py: the request bodies
(BLEU+ROUGE and AM-FM on DSTC-6 responses with 4 references; reference-free DeepAMFM on
airline agent turns, each answering the turn before it), a ``fastamfm serve`` child
process (tests/serve_process.py's ``Server``, as the tests start it), locust run headless
against it, and the same batches called in this process.
"""
from __future__ import annotations

import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from benchmarks.shared_data import (
    REPO,
    TWCS,
    dstc6_references,
    dstc6_style_agent_turns,
    dstc6_systems,
)

RESPONSES_PER_REQUEST = 8
N_REFS = 4
# Preloading the packaged neural models on a loaded machine: minutes, not the tests' three.
START_SECONDS = 600


def classic_batches(count: int, seed: int = 0) -> list:
    """``count`` requests of RESPONSES_PER_REQUEST DSTC-6 responses (any system) x N_REFS references."""
    rng = np.random.default_rng(seed)
    systems, refs = dstc6_systems(), dstc6_references()
    pool = [h for hyps in systems.values() for h in hyps]
    return [{"hyps": [pool[j] for j in rng.integers(0, len(pool), RESPONSES_PER_REQUEST)],
             "refs": [refs[j][:N_REFS] for j in rng.integers(0, len(refs), RESPONSES_PER_REQUEST)]}
            for _ in range(count)]


def reference_free_batches(count: int, seed: int = 0) -> list:
    """``count`` requests of RESPONSES_PER_REQUEST agent turns, each with the turn before it as
    its context (a stand-in dialogue: the benchmark measures speed, not quality)."""
    rng = np.random.default_rng(seed)
    turns = dstc6_style_agent_turns(TWCS)[:20000]
    starts = rng.integers(1, len(turns), (count, RESPONSES_PER_REQUEST))
    return [{"hyps": [turns[j] for j in row], "contexts": [turns[j - 1] for j in row]} for row in starts]


def train_amfm(directory: Path) -> Path:
    """A small AM-FM model (as the amfm benchmarks train one: the airline agent turns; 20k of
    them, 50 LSI dimensions, a trigram Kneser-Ney LM), saved in ``directory`` once."""
    if not directory.is_dir() or not any(directory.iterdir()):
        from fastamfm import AMFM

        directory.mkdir(parents=True, exist_ok=True)
        AMFM.train(dstc6_style_agent_turns(TWCS)[:20000], dims=50, order=3, smoothing="kneser-ney",
                   tokenize="whitespace").save(directory)
    return directory


def peak_rss_mib(pid: int | str = "self") -> float:
    """A process's peak resident memory so far (VmHWM, Linux): its own, unlike the rusage of
    a child, which on Linux also counts the pages of the parent it was forked from."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc (Linux only)")


def run_locust(url: str, body: dict, users: int, seconds: float, route: str = "/v1/score") -> dict:
    """locust headless against ``url``: {requests, failures, rps, p50_ms, p99_ms} of its
    aggregated statistics (``users`` requests in flight, no think time)."""
    with tempfile.TemporaryDirectory() as tmp:
        body_file = Path(tmp) / "body.json"
        body_file.write_text(json.dumps(body))
        env = dict(os.environ, FASTAMFM_LOAD_BODY=str(body_file), FASTAMFM_LOAD_ROUTE=route)
        subprocess.run([sys.executable, "-m", "locust", "-f", str(Path(__file__).with_name("locustfile.py")),
                        "--headless", "-u", str(users), "-r", str(users), "-t", f"{seconds:g}s", "--host", url,
                        "--csv", str(Path(tmp) / "load"), "--only-summary", "--loglevel", "WARNING"],
                       env=env, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=seconds + 120)
        with open(Path(tmp) / "load_stats.csv", newline="") as f:
            row = next(r for r in csv.DictReader(f) if r["Name"] == "Aggregated")
    def number(text: str) -> float:
        return float("nan") if text == "N/A" else float(text)    # N/A: no request finished in the time

    return {"requests": int(row["Request Count"]), "failures": int(row["Failure Count"]),
            "rps": number(row["Requests/s"]), "p50_ms": number(row["50%"]), "p99_ms": number(row["99%"])}


def in_process(score, body: dict, threads: int, seconds: float) -> dict:
    """The same batch called in this process by ``threads`` callers sharing one scorer for
    ``seconds``: {requests, rps, p50_ms, p99_ms}."""
    latencies: list = []
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds

    def caller():
        while time.perf_counter() < deadline:
            start = time.perf_counter()
            score(body)
            with lock:
                latencies.append(time.perf_counter() - start)

    start = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        for future in [pool.submit(caller) for _ in range(threads)]:
            future.result()
    wall = time.perf_counter() - start
    ms = sorted(x * 1e3 for x in latencies)
    return {"requests": len(ms), "rps": len(ms) / wall, "p50_ms": statistics.median(ms),
            "p99_ms": ms[min(len(ms) - 1, int(0.99 * len(ms)))]}


def pipeline_scorer(metrics: list, **options):
    """``body -> MetricResult`` over one pipeline built (models loaded) once, as a worker holds it."""
    from fastamfm.pipeline import Pipeline

    pipeline = Pipeline.from_names(metrics, strict=True, **options)

    def score(body: dict):
        return pipeline.score(body["hyps"], body.get("refs"), body.get("contexts"), layout="responses",
                              progress=False)

    return score
