"""The trained evaluator against people, on the shared DSTC-10 development sets only.

    OMP_WAIT_POLICY=PASSIVE python3 benchmarks/run.py evaluator dstc10_table \
        --evaluator DIR [--data ../shared/data] [--device cpu] [--deep-cache /tmp/deep-cache] [--no-deep]

Tables (turn-level Spearman / Pearson x100 with the set's usual rating, per set and the
mean of the four target sets convai2-grade, empathetic-grade, persona-usr, fed-turn):

1. Reference-free: the self-supervised evaluator alone (no rating used: ``evaluator``, its
   sub-scores, and relevance x validity, the combination before zscore), the evaluator fitted to ratings leave-one-set-out (``LearnedScorer``:
   the stack over the evaluator's columns, and ADEM over its dialogue encoder, fitted on
   the other four sets' turns, each set's ratings standardised, then scored on the set
   left out), beside DeepAMFM and Deep AM reference-free (the packaged models), BLEU-2
   where there are references, and the published numbers of the best systems.
2. With references (dailydialog-zhao, persona-usr): the evaluator with references beside
   DeepAMFM with references and contexts ("both").

Nothing fitted here is saved (the rated sets' licences are non-commercial).
"""
from __future__ import annotations

import argparse
from pathlib import Path

import fastamfm
import numpy as np
from fastamfm.evaluator import Combination

from benchmarks.deep.correlation_tables import correlations, print_table
from benchmarks.evaluator.workloads import ALL, FOUR, dstc10_sets
from benchmarks.shared_data import SHARED_DATA

WITH_REFS = ["dailydialog-zhao", "persona-usr"]
# Turn-level Spearman x100 of the best published systems (Yeh et al. 2021; DSTC-10 track 5).
PUBLISHED = {"GRADE (published)": {"convai2-grade": 57.1}, "MME-CRS (published)": {"convai2-grade": 58.4},
             "DEB (published)": {"empathetic-grade": 39.5}, "USL-H (published)": {"persona-usr": 52.3},
             "DynaEval (published)": {"fed-turn": 32.3}}


def standardised(y: np.ndarray) -> np.ndarray:
    return (y - y.mean()) / (y.std() or 1.0)


def evaluator_columns(evaluator, sets: dict, *, refs: bool) -> dict:
    out = {}
    for name, s in sets.items():
        if refs and s.refs is None:
            continue
        out[name] = evaluator.components(s.hyps, refs=s.refs if refs else None, contexts=s.contexts)
    return out


def deep_columns(sets: dict, cache: Path | None, device: str, cached_only: bool) -> dict:
    """DeepAMFM (packaged models) components per set, reference-free and both (cached;
    ``cached_only``: the sets already in the cache, no others)."""
    scorer = None
    out = {}
    for name, s in sets.items():
        # named by the reference-free combination: a cache of the earlier AM + FM default is not reused
        path = None if cache is None else cache / f"{name}.deep.am+fm+followup.npz"
        if path is not None and path.exists():
            with np.load(path) as stored:
                out[name] = dict(stored)
            continue
        if cached_only:
            continue
        scorer = scorer or fastamfm.DeepAMFM.default(device=device)
        refs = fastamfm.References(s.refs) if s.refs is not None else None
        found = scorer.components(s.hyps, refs, s.contexts)
        found["amfm_context"] = scorer.combine(found, "context")[2]
        if refs is not None:
            found["amfm_both"] = scorer.combine(found, "both")[2]
        out[name] = found
        if path is not None:
            cache.mkdir(parents=True, exist_ok=True)
            np.savez(path, **found)
    return out


def leave_one_set_out(evaluator, sets: dict, kind: str) -> dict:
    """Held-out scores per set: fitted on the other sets' turns (reference-free)."""
    out = {}
    for held in ALL:
        train = [n for n in ALL if n != held]
        hyps = [h for n in train for h in sets[n].hyps]
        contexts = [c for n in train for c in sets[n].contexts]
        ratings = np.concatenate([standardised(sets[n].ratings) for n in train])
        if kind == "stack":
            scorer = fastamfm.LearnedScorer.fit(ratings, hyps, contexts=contexts, kind="stack", evaluator=evaluator,
                                                metrics=["Evaluator-relevance", "Evaluator-validity", "AM-context"])
        else:
            scorer = fastamfm.LearnedScorer.fit(ratings, hyps, contexts=contexts, kind="adem",
                                                encoder=evaluator.encoder, dims=7)
        out[held] = scorer.score(sets[held].hyps, contexts=sets[held].contexts).sentences["Learned"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--evaluator", required=True, help="a directory from fastamfm train --evaluator")
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--deep-cache", type=Path, help="keep DeepAMFM's components here between runs")
    parser.add_argument("--no-deep", action="store_true", help="leave DeepAMFM and Deep AM out (they take minutes)")
    parser.add_argument("--deep-cached-only", action="store_true",
                        help="DeepAMFM and Deep AM only on the sets already in --deep-cache")
    args = parser.parse_args()
    sets = dstc10_sets(args.data)
    evaluator = fastamfm.Evaluator.load(args.evaluator, device=args.device)
    print(f"evaluator: {evaluator!r}")

    free = evaluator_columns(evaluator, sets, refs=False)
    table = {}
    for column in ("evaluator", "relevance", "validity", "coherence"):
        label = (f"evaluator (self-supervised, {evaluator.combination.kind})" if column == "evaluator"
                 else f"  sub-score {column}")
        table[label] = {n: correlations(free[n][column], sets[n].ratings) for n in ALL}
    if evaluator.combination.kind != "product":
        product = Combination("product")
        table["  relevance x validity (the previous default)"] = {
            n: correlations(product(free[n]), sets[n].ratings) for n in ALL}
    for kind in ("stack", "adem"):
        held = leave_one_set_out(evaluator, sets, kind)
        label = ("fitted LOSO: stack(evaluator sub-scores, AM-context)" if kind == "stack"
                 else "fitted LOSO: ADEM on the evaluator's encoder")
        table[label] = {n: correlations(held[n], sets[n].ratings) for n in ALL}
    deep = None if args.no_deep else deep_columns(sets, args.deep_cache, args.device, args.deep_cached_only)
    if deep is not None:
        table["DeepAMFM ref-free (packaged)"] = {n: correlations(deep[n]["amfm_context"], sets[n].ratings)
                                                 for n in ALL if n in deep}
        table["Deep AM ref-free (packaged)"] = {n: correlations(deep[n]["am_context"], sets[n].ratings)
                                                for n in ALL if n in deep}
    table["BLEU-2 (refs)"] = {n: correlations(fastamfm.bleu(sets[n].hyps, sets[n].refs).sentences["Bleu_2"],
                                              sets[n].ratings) for n in WITH_REFS}
    for label, cells in PUBLISHED.items():
        table[label] = {n: (v, float("nan")) for n, v in cells.items()}
    print_table({k: {n: v for n, v in cells.items() if n in FOUR} for k, cells in table.items()}, FOUR,
                "Reference-free, the four target sets (Spearman / Pearson x100; mean over the sets a row has)")
    print_table({k: {n: v for n, v in cells.items() if n == "dailydialog-zhao"} for k, cells in table.items()
                 if "dailydialog-zhao" in cells}, ["dailydialog-zhao"], "Reference-free, dailydialog-zhao")

    both = evaluator_columns(evaluator, sets, refs=True)
    with_refs = {"evaluator with references": {n: correlations(both[n]["evaluator"], sets[n].ratings)
                                               for n in WITH_REFS},
                 "  its reference sub-score": {n: correlations(both[n]["reference"], sets[n].ratings)
                                               for n in WITH_REFS}}
    if deep is not None:
        with_refs["DeepAMFM both (packaged)"] = {n: correlations(deep[n]["amfm_both"], sets[n].ratings)
                                                 for n in WITH_REFS if n in deep}
    print_table(with_refs, WITH_REFS, "With references (Spearman / Pearson x100)")


if __name__ == "__main__":
    main()
