"""The Deep AM-FM seed experiment, redone: DSTC-6 system-level correlation of a DeepAMFM
adapted to TWCS airline dialogues (``fastamfm train --deep``), beside the frozen default.

For each scorer: 20 DSTC-6 systems x the first ``--responses`` responses x 11 references,
reference-based (the seed's setting); the system means of DeepAMFM (amfm), its AM alone
and its FM alone; Pearson / Spearman with the human system ratings, with and without
S_20. Optionally the classic AM-FM trained on the same TWCS text (``--classic-corpus``).
Published: Deep AM-FM 0.9068 / 0.5158 (Zhang et al. 2021); classic AM-FM on TWCS 0.588.

Each distinct response and each reference is encoded and scored by the LM once; the raw
parts (cosines with each reference, mean ln p of responses and references) are kept in
``--cache`` (an .npz per scorer, keyed by its models' fingerprints), so the tables of
``--formulas`` (every FM formula x combination, a diagnostic: DSTC-6 is this experiment's
test set, never a place to choose a default) cost no more scoring.

Usage:
  OMP_WAIT_POLICY=PASSIVE python3 benchmarks/run.py training seed_experiment \\
      --model DIR [--model DIR2 ...] [--frozen] [--classic-corpus twcs.txt] [--responses 500] \\
      [--cache /tmp/seed-cache] [--formulas]
"""
from __future__ import annotations

import argparse
import hashlib
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import pearsonr, spearmanr

from benchmarks import shared_data
from benchmarks.shared_data import SYSTEMS

PUBLISHED = {"Deep AM-FM, published (seed)": (0.9068, 0.5158), "classic AM-FM on TWCS (issue 24)": (0.588, None)}


def load_dstc6(responses: int):
    """({system: the first ``responses`` lines}, their 11 references each, human ratings in SYSTEMS order)."""
    shared_data.require(shared_data.DSTC6)
    systems = shared_data.dstc6_systems()
    human = shared_data.dstc6_human()
    return ({s: systems[s][:responses] for s in SYSTEMS}, shared_data.dstc6_references()[:responses],
            np.array([human[s] for s in SYSTEMS]))


def score_parts(scorer, hyps: dict, refs: list) -> dict:
    """The raw parts every system-level row is computed from: ``cosine`` [systems, n, 11]
    (each response with each of its references), ``hyp_log_prob`` [systems, n] and
    ``ref_log_prob`` [n, 11] (mean ln p per token, unconditional, as DeepAMFM's reference FM)."""
    every = [h for system in SYSTEMS for h in hyps[system]]
    distinct = list(dict.fromkeys(every))
    where = {h: i for i, h in enumerate(distinct)}
    index = np.array([where[h] for h in every])
    flat_refs = [r for rs in refs for r in rs]
    width = len(refs[0])
    if any(len(rs) != width for rs in refs):
        raise ValueError("DSTC-6 references: every response has the same number of references")
    hyp_vectors = scorer.encoder.encode(distinct)
    ref_vectors = scorer.encoder.encode(flat_refs).reshape(len(refs), width, -1)
    unit = np.linalg.norm(hyp_vectors, axis=1, keepdims=True)
    hyp_vectors = hyp_vectors / np.where(unit > 0, unit, 1.0)
    ref_vectors = ref_vectors / np.maximum(np.linalg.norm(ref_vectors, axis=2, keepdims=True), 1e-12)
    cosine = np.einsum("snd,nrd->snr", hyp_vectors[index].reshape(len(SYSTEMS), len(refs), -1), ref_vectors)
    hyp_log_prob = np.asarray(scorer.lm.score(distinct), dtype=np.float64)[index].reshape(len(SYSTEMS), len(refs))
    ref_log_prob = np.asarray(scorer.lm.score(flat_refs), dtype=np.float64).reshape(len(refs), width)
    return {"cosine": cosine.astype(np.float64), "hyp_log_prob": hyp_log_prob, "ref_log_prob": ref_log_prob}


def cached_parts(scorer, hyps: dict, refs: list, cache: Path | None) -> dict:
    if cache is None:
        return score_parts(scorer, hyps, refs)
    key = "|".join((scorer.encoder.describe(), scorer.lm.fingerprint, str(len(refs))))
    path = cache / f"dstc6.{hashlib.sha1(key.encode()).hexdigest()[:12]}.npz"
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        parts = score_parts(scorer, hyps, refs)
        staging = path.with_suffix(".partial.npz")
        np.savez(staging, **parts)
        os.replace(staging, path)
    with np.load(path) as stored:
        return dict(stored)


def fm_reference(parts: dict, formula: str, combine: str) -> np.ndarray:
    """DeepAMFM's reference FM [systems, n] from the parts."""
    from fastamfm.deep.fm import reference_fm

    systems, n, width = parts["cosine"].shape
    offsets = np.arange(0, systems * n * width + 1, width)
    refs = np.broadcast_to(parts["ref_log_prob"], (systems, n, width)).ravel()
    return reference_fm(parts["hyp_log_prob"].ravel(), refs, offsets, formula=formula,
                        combine=combine).reshape(systems, n)


def system_means(scorer, parts: dict, *, formula: str | None = None, combine: str | None = None) -> dict:
    """System means [20] of DeepAMFM (the scorer's lambda and calibration), its AM and its FM."""
    am = parts["cosine"].max(axis=2)
    fm = fm_reference(parts, formula or scorer.fm_formula, combine or scorer.fm_combine)
    _, _, amfm = scorer.combine({"am_reference": am.ravel(), "fm_reference": fm.ravel()}, "reference")
    return {"DeepAMFM": amfm.reshape(am.shape).mean(1), "AM alone": am.mean(1), "FM alone": fm.mean(1)}


def correlations(means, human) -> tuple:
    """Pearson, Spearman over the 20 systems, then both without S_20."""
    means = np.asarray(means)
    keep = np.array([s != "S_20" for s in SYSTEMS])
    return (pearsonr(means, human)[0], spearmanr(means, human)[0],
            pearsonr(means[keep], human[keep])[0], spearmanr(means[keep], human[keep])[0])


def print_rows(title: str, rows: dict) -> None:
    print(f"\n{title}\n")
    print("| scorer | Pearson | Spearman | Pearson w/o S_20 | Spearman w/o S_20 |")
    print("|---|---|---|---|---|")
    for name, (p, s, p20, s20) in rows.items():
        print(f"| {name} | {p:.4f} | {s:.4f} | {p20:.4f} | {s20:.4f} |")


def formula_rows(label: str, scorer, parts: dict, human) -> dict:
    """FM alone and DeepAMFM for every reference formula x combination (diagnostic)."""
    from fastamfm.deep.fm import COMBINES, REFERENCE_FORMULAS

    rows = {}
    for formula in REFERENCE_FORMULAS:
        for combine in COMBINES:
            means = system_means(scorer, parts, formula=formula, combine=combine)
            rows[f"{label}: FM {formula}/{combine}"] = correlations(means["FM alone"], human)
    rows[f"{label}: hypothesis mean ln p alone"] = correlations(parts["hyp_log_prob"].mean(1), human)
    rows[f"{label}: AM mean cosine over the references"] = correlations(parts["cosine"].mean(2).mean(1), human)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", action="append", default=[], help="a trained DeepAMFM directory (repeatable)")
    parser.add_argument("--frozen", action="store_true", help="also the frozen DeepAMFM.default()")
    parser.add_argument("--classic-corpus", help="also a classic AM-FM trained on this text (AMFM.train)")
    parser.add_argument("--responses", type=int, default=500)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--cache", type=Path, help="keep each scorer's raw parts here and reuse them")
    parser.add_argument("--formulas", action="store_true",
                        help="also FM alone for every reference formula x combination (a diagnostic)")
    args = parser.parse_args()
    from fastamfm.deep.deep_amfm import DeepAMFM

    hyps, refs, human = load_dstc6(args.responses)
    table, diagnostics = {}, {}
    scorers = ([("frozen default", lambda: DeepAMFM.default(device=args.device))] if args.frozen else []) + \
        [(f"adapted {Path(m).name}", lambda m=m: DeepAMFM.load(m, device=args.device)) for m in args.model]
    for label, build in scorers:
        start = time.perf_counter()
        scorer = build()
        parts = cached_parts(scorer, hyps, refs, args.cache)
        for name, means in system_means(scorer, parts).items():
            table[f"{label}: {name}"] = correlations(means, human)
        if args.formulas:
            diagnostics.update(formula_rows(label, scorer, parts, human))
        print(f"{label}: {len(SYSTEMS) * args.responses} responses in {time.perf_counter() - start:.0f} s, "
              f"load average {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
    if args.classic_corpus:
        import fastamfm

        classic = fastamfm.AMFM.train(args.classic_corpus)
        means = [float(np.mean(classic.score(hyps[s], refs).amfm)) for s in SYSTEMS]
        table["classic AM-FM trained on the same corpus (AMFM.train defaults)"] = correlations(means, human)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print_rows(f"DSTC-6 system level: 20 systems x the first {args.responses} responses x 11 references; "
               f"peak RSS {peak:.0f} MiB, load average {os.getloadavg()[0]:.1f}", table)
    for name, (p, s) in PUBLISHED.items():
        print(f"| {name} | {p:.4f} | {'-' if s is None else f'{s:.4f}'} | - | - |")
    if diagnostics:
        print_rows("diagnostic (DSTC-6 is the test set: not for choosing defaults): FM formulas and AM variants",
                   diagnostics)


if __name__ == "__main__":
    main()
