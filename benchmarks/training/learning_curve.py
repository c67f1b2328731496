"""Learning curve of the seed experiment (seed Tables 3 and 4): DeepAMFM adapted on the first
5k / 20k / 50k TWCS training turns, each scored on DSTC-6 (system level, as
``seed_experiment.py``), beside the frozen default. Prints one table.

Each size trains with the same budget per stage (``--max-steps``, default 400 optimizer
steps: fixed work, so sizes differ only in the data) or ``--max-minutes`` for the whole run.
A size only matters once a stage sees more examples than the smallest corpus holds
(the encoder: steps x 32 pairs, the LM: steps x 8 replies): with a few dozen steps, as two
shared CPU cores allow, every size trains on the same first examples' worth of data.
On a GPU (``--device cuda``) a size takes minutes; on two shared CPU cores an hour or more.

Usage:
  OMP_WAIT_POLICY=PASSIVE python3 benchmarks/run.py training learning_curve \\
      --sizes 5000,20000,50000 --out /tmp/curve [--max-steps 400] [--responses 500] [--cache DIR]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from benchmarks.training.seed_experiment import (
    cached_parts,
    correlations,
    load_dstc6,
    print_rows,
    system_means,
)
from benchmarks.training.twcs_corpus import write_corpus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="5000,20000,50000", help="training turns per point, comma-separated")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--out", type=Path, required=True, help="folder for the corpora and models")
    parser.add_argument("--max-steps", type=int, default=400)
    parser.add_argument("--max-minutes", type=float)
    parser.add_argument("--responses", type=int, default=500)
    parser.add_argument("--precision", default="float32")
    parser.add_argument("--cache", type=Path, help="the scorers' raw DSTC-6 parts (seed_experiment --cache)")
    parser.add_argument("--no-frozen", action="store_true", help="leave out the frozen default's row")
    args = parser.parse_args()
    from fastamfm.deep.deep_amfm import DeepAMFM
    from fastamfm.training import Blocklist

    args.out.mkdir(parents=True, exist_ok=True)
    blocklist = Blocklist.resolve(None)
    hyps, refs, human = load_dstc6(args.responses)
    rows = {}
    if not args.no_frozen:
        frozen = DeepAMFM.default(device=args.device)
        rows["frozen default: DeepAMFM"] = correlations(
            system_means(frozen, cached_parts(frozen, hyps, refs, args.cache))["DeepAMFM"], human)
    for size in (int(s) for s in args.sizes.split(",")):
        corpus = args.out / f"twcs_{size}.txt"
        kept, _, turns = write_corpus(corpus, blocklist, turns_wanted=size)
        model = args.out / f"model_{size}"
        start = time.perf_counter()
        scorer = DeepAMFM.train([corpus], model, max_steps=args.max_steps, max_minutes=args.max_minutes,
                                device=args.device, precision=args.precision, progress=False)
        minutes = (time.perf_counter() - start) / 60
        means = system_means(scorer, cached_parts(scorer, hyps, refs, args.cache))
        for part in ("DeepAMFM", "AM alone", "FM alone"):
            rows[f"{turns} turns ({kept} dialogues, {minutes:.0f} min): {part}"] = correlations(means[part], human)
        print(f"{size}: trained in {minutes:.1f} min, load average {os.getloadavg()[0]:.1f}", file=sys.stderr,
              flush=True)
    budget = f"{args.max_steps} steps per stage" + (f", {args.max_minutes} min" if args.max_minutes else "")
    print_rows(f"DSTC-6 system level vs TWCS training turns ({budget}, device {args.device}; "
               f"20 systems x {args.responses} responses x 11 refs)", rows)


if __name__ == "__main__":
    main()
