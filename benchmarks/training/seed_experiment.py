"""The Deep AM-FM seed experiment, redone: DSTC-6 system-level correlation of a DeepAMFM
adapted to TWCS airline dialogues (``fastamfm train --deep``), beside the frozen default.

For each scorer: 20 DSTC-6 systems x the first ``--responses`` responses x 11 references,
reference-based (the seed's setting); the system means of DeepAMFM (amfm), its AM alone
and its FM alone; Pearson / Spearman with the human system ratings, with and without
S_20. Optionally the classic AM-FM trained on the same TWCS text (``--classic-corpus``).
Published: Deep AM-FM 0.9068 / 0.5158 (Zhang et al. 2021); classic AM-FM on TWCS 0.588.

Usage:
  OMP_WAIT_POLICY=PASSIVE PYTHONPATH=python python3 benchmarks/training/seed_experiment.py \\
      --model DIR [--model DIR2 ...] [--frozen] [--classic-corpus twcs.txt] [--responses 500] [--device cpu]
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import pearsonr, spearmanr

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[2] / "shared" / "data"
SYSTEMS = [f"S_{i}" for i in range(1, 21)]
REFERENCE_FILES = ["original_refs.txt"] + [f"refgen_result{i}.txt" for i in range(1, 11)]
PUBLISHED = {"Deep AM-FM, published (seed)": (0.9068, 0.5158), "classic AM-FM on TWCS (issue 24)": (0.588, None)}


def load_dstc6(data: Path, responses: int):
    from fastamfm.io import read_lines, read_parallel_files

    root = data / "dstc6_t2_evaluation"
    refs = read_parallel_files([root / "references" / f for f in REFERENCE_FILES])[:responses]
    hyps = {s: read_lines(root / "hypotheses" / f"{s}.txt")[:responses] for s in SYSTEMS}
    human = {}
    for line in (root / "human_evaluation_results.txt").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] in SYSTEMS:
            human[parts[0]] = float(parts[1])
    return hyps, refs, np.array([human[s] for s in SYSTEMS])


def deep_system_means(scorer, hyps: dict, refs) -> dict:
    """System means of amfm, am and fm. All systems are scored in one call: a response
    given by several systems (half of them are) is then evaluated once."""
    every = [h for system in SYSTEMS for h in hyps[system]]
    am, fm, amfm = scorer.combine(scorer.components(every, refs * len(SYSTEMS)), "reference")
    n = len(refs)
    return {name: [float(np.mean(values[i * n:(i + 1) * n])) for i in range(len(SYSTEMS))]
            for name, values in (("DeepAMFM", amfm), ("AM alone", am), ("FM alone", fm))}


def correlations(means, human) -> tuple:
    means = np.asarray(means)
    keep = np.array([s != "S_20" for s in SYSTEMS])
    return (pearsonr(means, human)[0], spearmanr(means, human)[0],
            pearsonr(means[keep], human[keep])[0], spearmanr(means[keep], human[keep])[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", action="append", default=[], help="a trained DeepAMFM directory (repeatable)")
    parser.add_argument("--frozen", action="store_true", help="also the frozen DeepAMFM.default()")
    parser.add_argument("--classic-corpus", help="also a classic AM-FM trained on this text (AMFM.train)")
    parser.add_argument("--responses", type=int, default=500)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    from fastamfm.deep.deep_amfm import DeepAMFM

    hyps, refs, human = load_dstc6(args.data, args.responses)
    table = {}
    scorers = ([("frozen default", lambda: DeepAMFM.default(device=args.device))] if args.frozen else []) + \
        [(f"adapted {Path(m).name}", lambda m=m: DeepAMFM.load(m, device=args.device)) for m in args.model]
    for label, build in scorers:
        start = time.perf_counter()
        scorer = build()
        rows = deep_system_means(scorer, hyps, refs)
        seconds = time.perf_counter() - start
        for name, means in rows.items():
            table[f"{label}: {name}"] = correlations(means, human)
        print(f"{label}: scored {len(SYSTEMS) * args.responses} responses in {seconds:.0f} s, load average "
              f"{os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
    if args.classic_corpus:
        import fastamfm

        classic = fastamfm.AMFM.train(args.classic_corpus)
        means = [float(np.mean(classic.score(hyps[s], refs).amfm)) for s in SYSTEMS]
        table["classic AM-FM trained on the same corpus (AMFM.train defaults)"] = correlations(means, human)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\nDSTC-6 system level: 20 systems x the first {args.responses} responses x 11 references; "
          f"peak RSS {peak:.0f} MiB, load average {os.getloadavg()[0]:.1f}\n")
    print("| scorer | Pearson | Spearman | Pearson w/o S_20 | Spearman w/o S_20 |")
    print("|---|---|---|---|---|")
    for name, (p, s, p20, s20) in table.items():
        print(f"| {name} | {p:.4f} | {s:.4f} | {p20:.4f} | {s20:.4f} |")
    for name, (p, s) in PUBLISHED.items():
        print(f"| {name} | {p:.4f} | {'-' if s is None else f'{s:.4f}'} | - | - |")


if __name__ == "__main__":
    main()
