"""Turn level: does adapting DeepAMFM to open-domain dialogues raise its correlation with
people on the shared DSTC-10 development sets? Adapted vs frozen, with references,
reference-free and both (the rows ``benchmarks/deep/amfm_correlation.py`` prints).

Train the adapted model first (decontaminated open-domain dialogues, as a user would):

  fastamfm train --deep --corpus ../shared/data/dialogues/dailydialog_train.jsonl.bz2 \\
      --corpus ../shared/data/dialogues/chitchat.jsonl.bz2 --corpus ../shared/data/dialogues/cmu_dog_train.jsonl.bz2 \\
      --corpus topical_chat_valid.jsonl --out DIR --max-minutes 40

(``--topical-chat-out FILE`` writes Topical-Chat valid_freq + valid_rare as jsonl dialogues; the trainer drops
their blocklisted dialogues.) Then:

  OMP_WAIT_POLICY=PASSIVE python3 benchmarks/run.py training turn_level --model DIR [--device cpu] \\
      [--components-cache DIR]

(``--components-cache``: each set's raw components are kept there, per model, and reused.)
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from benchmarks.deep.amfm_correlation import cached_components, deep_rows
from benchmarks.deep.correlation_tables import correlations, print_table
from benchmarks.shared_data import SHARED_DATA


def write_topical_chat(data: Path, out: Path) -> None:
    with open(out, "w", encoding="utf-8") as f:
        for part in ("valid_freq", "valid_rare"):
            conversations = json.loads((data / "topical_chat" / f"{part}.json").read_text(encoding="utf-8"))
            for conversation in conversations.values():
                turns = [m["message"] for m in conversation["content"]]
                f.write(json.dumps({"turns": turns}) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="the adapted DeepAMFM directory")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--components-cache", type=Path, help="keep each set's raw components here (.npz)")
    parser.add_argument("--topical-chat-out", type=Path, help="write Topical-Chat valid as jsonl and stop")
    args = parser.parse_args()
    if args.topical_chat_out:
        write_topical_chat(args.data, args.topical_chat_out)
        return
    from fastamfm.analysis.ratings import load_dstc10_dev
    from fastamfm.deep.deep_amfm import DeepAMFM

    sets = load_dstc10_dev(args.data / "dstc10_dev")
    means = {}
    for label, build in (("frozen", lambda: DeepAMFM.default(device=args.device)),
                         ("adapted", lambda: DeepAMFM.load(args.model, device=args.device))):
        start = time.perf_counter()
        scorer = build()
        table: dict = {}
        for name, rated in sets.items():
            rows = deep_rows(scorer, cached_components(scorer, rated, args.components_cache, name), scorer.lam)
            for row, scores in rows.items():
                table.setdefault(row, {})[name] = correlations(scores, rated.ratings)
        print_table(table, list(sets), f"{label}: turn-level Spearman / Pearson x100, dstc10_dev "
                                       f"({time.perf_counter() - start:.0f} s, load average {os.getloadavg()[0]:.1f})")
        means[label] = {row: np.mean([c[0] for c in cells.values()]) for row, cells in table.items()}
    print("\nmean Spearman x100 over the sets each row scores: adapted - frozen\n")
    print("| row | frozen | adapted | change |")
    print("|---|---|---|---|")
    for row in means["frozen"]:
        if row in means["adapted"]:
            print(f"| {row} | {means['frozen'][row]:.1f} | {means['adapted'][row]:.1f} | "
                  f"{means['adapted'][row] - means['frozen'][row]:+.1f} |")


if __name__ == "__main__":
    main()
