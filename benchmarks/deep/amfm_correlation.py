"""How well DeepAMFM tracks people, beside the classic metrics, on the shared data only.

1. Turn level, the five DSTC-10 development sets (``../shared/data/dstc10_dev``):
   Spearman / Pearson x100 per set and their mean, for BLEU-2, ROUGE-L, METEOR (when
   Java and its data are there), classic AM-FM (``AMFM.default()``), Deep AM alone,
   Deep FM alone and DeepAMFM: reference-based (refs only), reference-free (contexts
   only) and both. Rows a set cannot score (no references) show "-".
2. Leave-one-set-out: lambda chosen on the other sets (grid 0..1 by 0.05, mean Spearman),
   then scored on the held-out set; for the reference-free mode over all five sets, for the
   modes with references over dailydialog-zhao and persona-usr. The reference-free rows here
   are AM + FM alone (``context_combination="am+fm"``, whose lambda this sweep chose); the
   default that adds the followup was chosen by ``benchmarks/judge/correlation.py``.
3. System level, DSTC-6 (20 systems x 2000 responses x 11 references, no contexts:
   reference-based only): Pearson / Spearman of the system means with the human ratings,
   with and without S_20, beside the published Deep AM-FM 0.9068 / 0.5158.

Usage:  OMP_WAIT_POLICY=PASSIVE python3 benchmarks/run.py deep amfm_correlation \
            [--data ../shared/data] [--skip-dstc6] [--engine transformers|llama.cpp]
"""
from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

import fastamfm
import numpy as np
from fastamfm.analysis.ratings import load_dstc10_dev
from scipy.stats import pearsonr, spearmanr

from benchmarks.deep.correlation_tables import correlations, print_table
from benchmarks.shared_data import SHARED_DATA

LAMBDAS = np.round(np.arange(0.0, 1.0001, 0.05), 2)
PUBLISHED_DSTC6 = (0.9068, 0.5158)
SYSTEMS = [f"S_{i}" for i in range(1, 21)]
REFERENCE_FILES = ["original_refs.txt"] + [f"refgen_result{i}.txt" for i in range(1, 11)]


def classic_rows(rated) -> dict:
    out = {"BLEU-2": fastamfm.bleu(rated.hyps, rated.refs).sentences["Bleu_2"],
           "ROUGE-L": fastamfm.rouge_l(rated.hyps, rated.refs).sentences["ROUGE_L"]}
    try:
        out["METEOR"] = fastamfm.meteor(rated.hyps, rated.refs).sentences["METEOR"]
    except (RuntimeError, FileNotFoundError, OSError) as exc:       # no Java / METEOR data here
        print(f"METEOR skipped: {exc}", file=sys.stderr)
    out["AM-FM classic (AMFM.default)"] = fastamfm.AMFM.default().score(rated.hyps, rated.refs).amfm
    return out


def deep_components(scorer, rated) -> dict:
    refs = fastamfm.References(rated.refs) if rated.refs is not None else None
    return scorer.components(rated.hyps, refs, rated.contexts)


def cached_components(scorer, rated, cache: Path | None, name: str) -> dict:
    if cache is None:
        return deep_components(scorer, rated)
    # Keyed by everything that changes a raw component (not lambda, not the calibration).
    key = "|".join((scorer.encoder.describe(), scorer.lm.fingerprint, scorer.fm_formula, scorer.fm_combine,
                    scorer.fm_context_formula, str(scorer.am_context_mode), str(scorer.recency)))
    path = cache / f"{name}.{hashlib.sha1(key.encode()).hexdigest()[:12]}.npz"
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        np.savez(path, **deep_components(scorer, rated))
    with np.load(path) as stored:
        return dict(stored)


def deep_rows(scorer, found: dict, lam: dict) -> dict:
    out = {}
    for mode, label in (("reference", "refs"), ("context", "ref-free"), ("both", "refs + context")):
        am_name, fm_name = scorer.pair(mode)
        if am_name in found and fm_name in found:
            out[f"DeepAMFM {label} (lam={lam[mode]:g})"] = scorer.combine(found, mode, lam=lam[mode])[2]
    names = {"am_reference": "Deep AM refs (max cosine)", "am_context": "Deep AM ref-free (context)",
             "fm_reference": f"Deep FM refs ({scorer.fm_formula}, {scorer.fm_combine})",
             "fm_context": "Deep FM ref-free (PMI)"}
    out.update({names[k]: v for k, v in found.items()})
    return out


def leave_one_set_out(scorer, found: dict, sets: dict) -> None:
    print("\nleave-one-set-out: lambda chosen on the other sets (mean Spearman), Spearman x100 on the held-out set\n")
    print("| mode | held-out set | lambda chosen | held-out Spearman | with the default lambda |")
    print("|---|---|---|---|---|")
    for mode in ("reference", "context", "both"):
        names = [n for n in sets if all(c in found[n] for c in scorer.pair(mode))]
        if len(names) < 2:
            continue
        curve = {n: np.array([correlations(scorer.combine(found[n], mode, lam=lam)[2], sets[n].ratings)[0]
                              for lam in LAMBDAS]) for n in names}
        held = []
        for n in names:
            others = np.mean([curve[m] for m in names if m != n], axis=0)
            best = int(np.argmax(others))
            held.append(curve[n][best])
            default = correlations(scorer.combine(found[n], mode)[2], sets[n].ratings)[0]
            print(f"| {mode} | {n} | {LAMBDAS[best]:g} | {curve[n][best]:.1f} | {default:.1f} |")
        print(f"| {mode} | mean | | {np.mean(held):.1f} | |")


def dstc6_system_level(scorer, data: Path, responses: int) -> None:
    import resource

    from fastamfm.io import read_lines, read_parallel_files

    root = data / "dstc6_t2_evaluation"
    refs = fastamfm.References(read_parallel_files([root / "references" / f for f in REFERENCE_FILES])[:responses])
    human = {}
    for line in (root / "human_evaluation_results.txt").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] in SYSTEMS:
            human[parts[0]] = float(parts[1])
    rows: dict = {}
    start = time.perf_counter()
    for system in SYSTEMS:
        hyps = read_lines(root / "hypotheses" / f"{system}.txt")[:responses]
        found = scorer.components(hyps, refs)
        am, fm, amfm = scorer.combine(found, "reference")
        for name, values in (("DeepAMFM refs", amfm), ("Deep AM refs", am), ("Deep FM refs", fm)):
            rows.setdefault(name, []).append(float(np.mean(values)))
        print(f"  DSTC-6 {system}: {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\nDSTC-6 system level (20 systems; the first {len(refs)} responses x 11 references each; scored in "
          f"{seconds:.0f} s wall, {len(refs) * len(SYSTEMS) / seconds:.0f} responses/s, peak RSS {peak:.0f} MiB), "
          f"Pearson / Spearman\n")
    print("| metric | all 20 systems | without S_20 |")
    print("|---|---|---|")
    ratings = np.array([human[s] for s in SYSTEMS])
    keep = np.array([s != "S_20" for s in SYSTEMS])
    for name, means in rows.items():
        means = np.array(means)
        full = (pearsonr(means, ratings)[0], spearmanr(means, ratings)[0])
        part = (pearsonr(means[keep], ratings[keep])[0], spearmanr(means[keep], ratings[keep])[0])
        print(f"| {name} | {full[0]:.4f} / {full[1]:.4f} | {part[0]:.4f} / {part[1]:.4f} |")
    print(f"| Deep AM-FM, published (Zhang et al.) | {PUBLISHED_DSTC6[0]:.4f} / {PUBLISHED_DSTC6[1]:.4f} | - |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--engine", default="transformers", choices=("transformers", "llama.cpp"))
    parser.add_argument("--skip-dstc6", action="store_true")
    parser.add_argument("--dstc6-responses", type=int, default=2000,
                        help="score the first N responses of each DSTC-6 system (default all 2000)")
    parser.add_argument("--components-cache", type=Path,
                        help="keep each set's raw DeepAMFM components here (.npz) and reuse them: rerunning "
                             "after a change of lambda or calibration then scores nothing again")
    args = parser.parse_args()
    from fastamfm.deep.deep_amfm import DeepAMFM
    from fastamfm.neural.neural_lm import NeuralLM

    scorer = DeepAMFM.default(device="cpu", lm=NeuralLM.load(engine=args.engine, device="cpu"),
                              context_combination="am+fm")
    lam = scorer.lam
    sets = load_dstc10_dev(args.data / "dstc10_dev")
    table: dict = {}
    found = {}
    for name, rated in sorted(sets.items(), key=lambda item: item[1].refs is None):
        print(f"scoring {name} ({len(rated)} turns, {rated.aspect})", file=sys.stderr, flush=True)
        rows = classic_rows(rated) if rated.refs is not None else {}
        found[name] = cached_components(scorer, rated, args.components_cache, name)
        rows.update(deep_rows(scorer, found[name], lam))
        for row, scores in rows.items():
            table.setdefault(row, {})[name] = correlations(scores, rated.ratings)
    print(f"turn-level Spearman / Pearson x100, dstc10_dev; {scorer!r}")
    print_table(table, list(sets), "")
    leave_one_set_out(scorer, found, sets)
    if not args.skip_dstc6:
        dstc6_system_level(scorer, args.data, args.dstc6_responses)


if __name__ == "__main__":
    main()
