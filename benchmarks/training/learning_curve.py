"""Learning curve of the seed experiment (seed Tables 3 and 4): DeepAMFM adapted on the first
5k / 20k / 50k TWCS training turns, each scored on DSTC-6 (system level, as
``seed_experiment.py``), beside the frozen default. Prints one table.

Each size trains with the same budget per stage (``--max-steps``, default 400 optimizer
steps: fixed work, so sizes differ only in the data) or ``--max-minutes`` for the whole run.
On a GPU (``--device cuda``) a size takes minutes; on two shared CPU cores an hour or more.

Usage:
  OMP_WAIT_POLICY=PASSIVE PYTHONPATH=python python3 benchmarks/training/learning_curve.py \\
      --sizes 5000,20000,50000 --device cuda --out /tmp/curve [--max-steps 400] [--responses 500]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from seed_experiment import DATA, correlations, deep_system_means, load_dstc6  # noqa: E402
from twcs_corpus import DEFAULT_SOURCE, dialogues  # noqa: E402


def write_turns(out: Path, turns: int, blocklist) -> tuple:
    kept = written = 0
    with open(out, "w", encoding="utf-8") as f:
        for dialogue in dialogues(DEFAULT_SOURCE):
            if blocklist.blocks(dialogue):
                continue
            f.write("\n".join(dialogue) + "\n\n")
            kept += 1
            written += len(dialogue)
            if written >= turns:
                break
    return kept, written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="5000,20000,50000", help="training turns per point, comma-separated")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--out", type=Path, required=True, help="folder for the corpora and models")
    parser.add_argument("--max-steps", type=int, default=400)
    parser.add_argument("--max-minutes", type=float)
    parser.add_argument("--responses", type=int, default=500)
    parser.add_argument("--precision", default="float32")
    args = parser.parse_args()
    from fastamfm.deep.deep_amfm import DeepAMFM
    from fastamfm.training import Blocklist

    args.out.mkdir(parents=True, exist_ok=True)
    blocklist = Blocklist.resolve(None)
    hyps, refs, human = load_dstc6(DATA, args.responses)
    rows = {"frozen default": correlations(deep_system_means(DeepAMFM.default(device=args.device), hyps, refs)
                                           ["DeepAMFM"], human)}
    for size in (int(s) for s in args.sizes.split(",")):
        corpus = args.out / f"twcs_{size}.txt"
        dialogues_kept, turns = write_turns(corpus, size, blocklist)
        start = time.perf_counter()
        scorer = DeepAMFM.train([corpus], args.out / f"model_{size}", max_steps=args.max_steps,
                                max_minutes=args.max_minutes, device=args.device, precision=args.precision,
                                progress=False)
        minutes = (time.perf_counter() - start) / 60
        means = deep_system_means(scorer, hyps, refs)
        for part in ("DeepAMFM", "AM alone", "FM alone"):
            rows[f"{turns} turns ({dialogues_kept} dialogues, {minutes:.0f} min): {part}"] = \
                correlations(means[part], human)
        print(f"{size}: trained in {minutes:.1f} min, load average {os.getloadavg()[0]:.1f}", file=sys.stderr,
              flush=True)
    print(f"\nDSTC-6 system level vs TWCS training turns ({args.max_steps} steps per stage, device {args.device}; "
          f"20 systems x {args.responses} responses x 11 refs)\n")
    print("| model | Pearson | Spearman | Pearson w/o S_20 | Spearman w/o S_20 |")
    print("|---|---|---|---|---|")
    for name, (p, s, p20, s20) in rows.items():
        print(f"| {name} | {p:.4f} | {s:.4f} | {p20:.4f} | {s20:.4f} |")


if __name__ == "__main__":
    main()
