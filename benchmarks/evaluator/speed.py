"""Reference-free scoring speed: the trained evaluator beside DeepAMFM (the packaged
models), on the same responses with their contexts, in one run.

    OMP_WAIT_POLICY=PASSIVE PYTHONPATH=python python3 benchmarks/evaluator/speed.py --evaluator DIR \
        [--data ../shared/data] [--responses 600] [--repeats 3] [--device cpu]

Each repeat scores the responses with a freshly loaded scorer (nothing cached from the
previous repeat; model loading is not timed), the two scorers taking turns; the table
gives the median responses per second and the ratio. Machine load is printed: on shared
cores compare the ratio, not the rates.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import _paths  # noqa: E402,F401

import fastamfm  # noqa: E402
from fastamfm.analysis.ratings import load_dstc10_dev  # noqa: E402


def responses(data: Path, count: int):
    sets = load_dstc10_dev(data / "dstc10_dev")
    hyps, contexts = [], []
    for s in sets.values():
        hyps += s.hyps
        contexts += s.contexts
    step = max(1, len(hyps) // count)
    return hyps[::step][:count], contexts[::step][:count]


def timed(build, hyps, contexts) -> float:
    scorer = build()
    start = time.perf_counter()
    scorer(hyps, contexts)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--evaluator", required=True)
    parser.add_argument("--data", type=Path, default=Path(os.environ.get(
        "FASTAMFM_SHARED_DATA", str(_paths.REPO.parent / "shared" / "data"))))
    parser.add_argument("--responses", type=int, default=600)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    hyps, contexts = responses(args.data, args.responses)

    def evaluator():
        ev = fastamfm.Evaluator.load(args.evaluator, device=args.device)
        return lambda h, c: ev.score(h, contexts=c)

    def deep_amfm():
        deep = fastamfm.DeepAMFM.default(device=args.device)
        return lambda h, c: deep.score(h, contexts=c)

    runs = {"evaluator": [], "DeepAMFM (packaged)": []}
    for _ in range(args.repeats):
        for name, build in (("evaluator", evaluator), ("DeepAMFM (packaged)", deep_amfm)):
            runs[name].append(timed(build, hyps, contexts))
            print(f"{name}: {runs[name][-1]:.2f} s  (load average {os.getloadavg()[0]:.1f})", flush=True)
    rates = {name: len(hyps) / statistics.median(seconds) for name, seconds in runs.items()}
    print(f"\n{len(hyps)} responses with their contexts, reference-free, device {args.device}, "
          f"{os.cpu_count()} CPUs, median of {args.repeats}\n")
    print("| scorer | responses/s | seconds (median) |")
    print("|---|---|---|")
    for name, seconds in runs.items():
        print(f"| {name} | {rates[name]:.1f} | {statistics.median(seconds):.2f} |")
    print(f"\nevaluator / DeepAMFM: {rates['evaluator'] / rates['DeepAMFM (packaged)']:.1f}x")


if __name__ == "__main__":
    main()
