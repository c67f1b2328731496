"""The shipped recipe, timed: ``fastamfm train --evaluator`` on the three shared dialogue
files, then its wall time, examples/s and words/s from the provenance it writes.

    OMP_WAIT_POLICY=PASSIVE python3 benchmarks/run.py evaluator train_recipe \
        --out /tmp/evaluator-recipe [--minutes 60] [--device auto] [--data ../shared/data] [--resume]

equals (what a user types)

    fastamfm train --evaluator --corpus ../shared/data/dialogues/dailydialog_train.jsonl.bz2 \
        --corpus ../shared/data/dialogues/chitchat.jsonl.bz2 \
        --corpus ../shared/data/dialogues/cmu_dog_train.jsonl.bz2 --out DIR --max-minutes 60

On a GPU (``--device cuda``) the same recipe runs with the same settings. Then measure it
with ``run.py evaluator dstc10_table --evaluator DIR`` and ``run.py evaluator compare --evaluator DIR``.
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from fastamfm.cli import main as cli

from benchmarks.shared_data import SHARED_DATA

FILES = ("dailydialog_train.jsonl.bz2", "chitchat.jsonl.bz2", "cmu_dog_train.jsonl.bz2")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True)
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    args = parser.parse_args()
    argv = ["train", "--evaluator", "--out", args.out, "--max-minutes", str(args.minutes), "--device", args.device]
    for name in FILES:
        argv += ["--corpus", str(args.data / "dialogues" / name)]
    if args.resume:
        argv.append("--resume")
    print("fastamfm " + " ".join(argv), flush=True)
    load_before = os.getloadavg()
    started = time.perf_counter()
    code = cli(argv)
    wall = time.perf_counter() - started
    if code:
        raise SystemExit(code)
    record = json.loads((Path(args.out) / "provenance.json").read_text())
    run = record["stages"]["evaluator"]
    counts = record["corpus"]["counts"]
    print("\n| what | value |\n|---|---|")
    print(f"| corpus | {counts['dialogues_read']} dialogues read, {counts['dropped_blocklist']} dropped (blocklist), "
          f"{counts['duplicates']} duplicates, {counts['held_out']} held out, {counts['training_dialogues']} "
          f"trained on ({counts['training_turns']} turns) |")
    print(f"| turn pool | {record['turn_pool']['turns']} turns, built in {record['turn_pool']['seconds']:.0f} s |")
    print(f"| wall time (command) | {wall / 60:.1f} min |")
    print(f"| training | {run['steps']} steps, {run['examples']} examples in {run['seconds'] / 60:.1f} min, "
          f"stopped by {run['stopped_by']} |")
    print(f"| examples/s | {run['examples'] / max(run['seconds'], 1e-9):.1f} |")
    print(f"| words/s (context + response) | {run['tokens_per_second']:.0f} |")
    print(f"| device, threads | {run['device']}, {run['threads']} |")
    print(f"| peak RSS | {run['peak_rss_mib']:.0f} MiB |")
    print(f"| load average before / after | {load_before[0]:.1f} / {os.getloadavg()[0]:.1f} |")


if __name__ == "__main__":
    main()
