"""The judges against people, on the shared DSTC-10 development sets only, and the
reference-free default chosen leave-one-set-out.

    OMP_WAIT_POLICY=PASSIVE python3 benchmarks/run.py judge correlation \
        [--data ../shared/data] [--lm MODEL] [--score followup,deep,judge] [--no-score]

1. Scores (cached per set in chunks under ``$FASTAMFM_JUDGE_CACHE``, default
   /tmp/fastamfm-judge-cache, so a run resumes and combinations are recomputed without
   scoring again): the mean ln p of every candidate follow-up (``followup.CANDIDATE_*``),
   the rating-token log-probs of every aspect (``lm_judge.ASPECTS``), and DeepAMFM's
   reference-free components (Deep AM's context cosine, Deep FM's PMI). (followup's fixed
   scale, with the others': ``benchmarks/deep/amfm_calibration.py``.)
2. The table: turn-level Spearman / Pearson x100 on all five sets for the followup variants,
   lm_judge per aspect, Deep AM, Deep FM, DeepAMFM reference-free: the default (AM + FM,
   lam 0.4) and ``context_combination="am+fm+followup"`` (on fixed scales), both computed by
   the shipped ``DeepAMFM.combine`` from the cached components.
3. Leave-one-set-out: every candidate (single components and their z-scored sums) is
   ranked by its mean Spearman on four sets; the set left out is scored by the choice made
   on the other four. Among the candidates whose mean on the four is within the bootstrap
   interval (95%, 1000 resamples of turns) of the best one's, the simplest is taken.
4. The weights of am+fm+followup: leave-one-set-out over the weights of its three calibrated
   components (a grid on the simplex, step 0.1), against the equal weights it uses.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from benchmarks.judge import workloads as w
from benchmarks.shared_data import SHARED_DATA


def judged_turns(rated, every: int):
    """The turns the judge is scored on: every ``every``-th turn of the set (all with 1)."""
    if every == 1:
        return rated
    subset = rated.subset(np.arange(0, len(rated), every))
    return type(rated)(f"{rated.name}.every{every}", subset.hyps, subset.contexts, subset.refs, subset.systems,
                       subset.ratings, subset.aspect)


def score(sets: dict, lm_name: str | None, parts: list, judge_every: int = 1, fm_every: int = 1) -> None:
    import torch
    from fastamfm.deep.followup import CANDIDATE_NEGATIVE, CANDIDATE_POSITIVE, FollowupScorer
    from fastamfm.deep.lm_judge import ASPECTS, LMJudge
    from fastamfm.neural.neural_lm import NeuralLM

    torch.set_num_threads(2)
    lm = NeuralLM.load(*([lm_name] if lm_name else []), device="cpu")
    print(f"LM: {lm!r}", file=sys.stderr, flush=True)
    for part in parts:
        for name in (w.ALL[::-1] if w.REVERSE else w.ALL):
            rated = sets[name]
            if part == "followup":
                w.followup_log_probs(FollowupScorer(lm, positive=CANDIDATE_POSITIVE, negative=CANDIDATE_NEGATIVE),
                                     rated)
            elif part == "judge":
                w.judge_log_probs(LMJudge(lm, aspects=list(ASPECTS)), judged_turns(rated, judge_every))
            elif part in ("am", "fm"):
                import fastamfm

                turns = judged_turns(rated, fm_every) if part == "fm" else rated
                w.deep_components(fastamfm.DeepAMFM.default(device="cpu", lm=lm), turns, [f"{part}_context"])


# --- the components and their combinations ------------------------------------------------
RESAMPLES = 1000


def zscore(values: np.ndarray) -> np.ndarray:
    return (values - values.mean()) / (values.std() or 1.0)


AM, FM = "Deep AM (context cosine)", "Deep FM (PMI)"
# DeepAMFM's reference-free default (AM + FM, lam 0.4): the default again since issue 44, when the
# three-component sum below, chosen here, gained nothing on rated sets kept back from the project.
AMFM_DEFAULT = "DeepAMFM ref-free, default (AM+FM, lam 0.4)"
FOLLOWUP = "followup +3 -3"
# DeepAMFM's context_combination="am+fm+followup", chosen here leave-one-set-out (issue 34): the three
# components on fixed scales (DeepAMFM's calibration, followup's among it, each measured on
# Topical-Chat) with equal weights: what a score computes for one reply alone, unlike the per-set
# z-scores of the sums below.
WITH_FOLLOWUP = "DeepAMFM ref-free, am+fm+followup (fixed scales)"


def components(sets: dict, lm_name: str | None, every: int = 1) -> dict:
    """{set: (columns, ratings)} on every ``every``-th turn of each set (all with 1), from the
    cache only: Deep AM, the followup variants, Deep FM's PMI, DeepAMFM's reference-free modes and
    lm_judge's aspects. A component the cache lacks on those turns is left out (said on stderr)."""
    import fastamfm
    from fastamfm.deep import followup, lm_judge
    from fastamfm.neural.neural_lm import NeuralLM

    lm = NeuralLM.load(*([lm_name] if lm_name else []), device="cpu")
    deep = fastamfm.DeepAMFM.default(device="cpu", lm=lm, context_combination="am+fm+followup")
    default = fastamfm.DeepAMFM.default(device="cpu", lm=lm)
    fs = followup.FollowupScorer(lm, positive=followup.CANDIDATE_POSITIVE, negative=followup.CANDIDATE_NEGATIVE)
    # The default set is the candidates' both sides: its columns come from the same cached log-probs.
    assert (deep.followup.positive, deep.followup.negative) == (fs.positive, fs.negative)
    judge = lm_judge.LMJudge(lm, aspects=list(lm_judge.ASPECTS))
    p = len(followup.CANDIDATE_POSITIVE)
    out = {}
    w.CACHE_ONLY = True
    try:
        for name in w.ALL:
            rated = sets[name]
            index = np.arange(0, len(rated), every)
            turns = judged_turns(rated, every)
            cols = {}

            def take(what: str, compute):
                try:
                    return compute()
                except w.NotCached as exc:
                    print(f"  not cached, left out: {what} ({exc})", file=sys.stderr)
                    return None

            am = take(f"{name} Deep AM", lambda: w.deep_components(deep, rated, ["am_context"])["am_context"])
            if am is not None:
                cols[AM] = am[index]
            lp = take(f"{name} followup", lambda: w.followup_log_probs(fs, rated))
            if lp is not None:
                lp = lp[index]
                cols[FOLLOWUP] = followup.combine(lp, p)
                cols["followup -3 (negatives only)"] = -lp[:, p:].mean(1)
                cols["followup +3 (positives only)"] = lp[:, :p].mean(1)
                for k, text in enumerate(followup.CANDIDATE_POSITIVE + followup.CANDIDATE_NEGATIVE):
                    cols[f"  followup {'+' if k < p else '-'} {text!r}"] = lp[:, k] if k < p else -lp[:, k]
            fm = take(f"{name} Deep FM", lambda: w.deep_components(deep, turns, ["fm_context"])["fm_context"])
            if fm is not None:
                cols[FM] = fm
                if am is not None:
                    found = {"am_context": am[index], "fm_context": fm}
                    cols[AMFM_DEFAULT] = default.combine(found, "context")[2]
                    if lp is not None:
                        cols[WITH_FOLLOWUP] = deep.combine({**found, "followup": deep.followup.scores_from(lp)},
                                                        "context")[2]
            judged = take(f"{name} lm_judge", lambda: w.judge_log_probs(judge, turns))
            if judged is not None:
                ratings = lm_judge.expected_ratings(judged)
                for a, aspect in enumerate(lm_judge.ASPECTS):
                    cols[f"lm_judge {aspect}"] = ratings[:, a]
                cols["lm_judge mean of 6"] = ratings.mean(1)
            out[name] = (cols, rated.ratings[index])
    finally:
        w.CACHE_ONLY = False
    return out


def combinations(cols: dict, parts: dict) -> dict:
    """z-scored sums of the components named in ``parts`` {label: [column, ...]}."""
    return {label: sum(zscore(cols[c]) for c in names) for label, names in parts.items()
            if all(c in cols for c in names)}


ASPECT_NAMES = ("relevance", "coherence", "engagingness", "naturalness", "groundedness", "specificity")
COMBINATIONS = {
    "z(AM) + z(FM)": [AM, FM],
    "z(AM) + z(followup)": [AM, FOLLOWUP],
    "z(AM) + z(followup -3)": [AM, "followup -3 (negatives only)"],
    "z(FM) + z(followup)": [FM, FOLLOWUP],
    "z(AM) + z(FM) + z(followup)": [AM, FM, FOLLOWUP],
    "z(AM) + z(FM) + z(followup -3)": [AM, FM, "followup -3 (negatives only)"],
    "z(AM) + z(lm_judge mean of 6)": [AM, "lm_judge mean of 6"],
    "z(AM) + z(FM) + z(lm_judge mean of 6)": [AM, FM, "lm_judge mean of 6"],
    "z(AM) + z(FM) + z(followup) + z(lm_judge mean of 6)": [AM, FM, FOLLOWUP, "lm_judge mean of 6"],
    # The three components with each aspect of lm_judge: which aspect is chosen on the sets a fold trains on.
    **{f"z(AM) + z(FM) + z(followup) + z(lm_judge {a})": [AM, FM, FOLLOWUP, f"lm_judge {a}"] for a in ASPECT_NAMES},
}
# What the reference-free default is chosen among: each component at its own default (followup's
# set, each lm_judge aspect alone), DeepAMFM's two reference-free modes, and the z-scored sums.
DEFAULT_CANDIDATES = (AM, FM, AMFM_DEFAULT, FOLLOWUP, WITH_FOLLOWUP, *(f"lm_judge {a}" for a in ASPECT_NAMES), *COMBINATIONS)


def part_cost(column: str) -> int:
    """How many scorers (or prompts) a component runs: both sides of the follow-up set count
    two (the followup-set choice prefers fewer follow-ups), the mean of the six aspects six."""
    if column == AMFM_DEFAULT:
        return 2
    if column == FOLLOWUP:
        return 2
    if column == WITH_FOLLOWUP:
        return 4
    if column == "lm_judge mean of 6":
        return 6
    return 1


def complexity(label: str) -> int:
    """How many scorers (or prompts) a candidate runs: the simpler wins a tie within noise."""
    return sum(part_cost(c) for c in COMBINATIONS.get(label, [label]))


def spearman_rows(scores: np.ndarray, ratings: np.ndarray) -> np.ndarray:
    """Spearman of each row of ``scores`` [..., n] with ``ratings`` [..., n] (average ranks for ties)."""
    from scipy.stats import rankdata

    a, b = rankdata(scores, axis=-1), rankdata(ratings, axis=-1)
    a -= a.mean(-1, keepdims=True)
    b -= b.mean(-1, keepdims=True)
    return (a * b).sum(-1) / np.sqrt((a * a).sum(-1) * (b * b).sum(-1))


def leave_one_set_out(per_set: dict, names: list, title: str, keep=None, seed: int = 0,
                      compare: str | None = None) -> str | None:
    """Each set scored by the candidate chosen on the others (see the module docstring); the
    choice made on all sets is returned. ``keep(label)``: the candidates considered (those
    every set has); ``compare``: a candidate whose own held-out mean (kept on every set) is
    printed beside the rule's."""
    from scipy.stats import spearmanr

    candidates = [c for c in next(iter(per_set.values()))[0] if (keep is None or keep(c))
                  and all(c in cols for cols, _ in per_set.values())]
    if not candidates:
        print(f"\n{title}: no candidate is scored on every set (not in the cache)")
        return None
    full = {n: {c: 100 * spearmanr(cols[c], y)[0] for c in candidates} for n, (cols, y) in per_set.items()}
    rng = np.random.default_rng(seed)
    boot = {}
    for n, (cols, y) in per_set.items():
        index = rng.integers(0, len(y), size=(RESAMPLES, len(y)))
        boot[n] = {c: 100 * spearman_rows(cols[c][index], y[index]) for c in candidates}

    def choose(train: list) -> tuple:
        means = {c: np.mean([full[n][c] for n in train]) for c in candidates}
        best = max(candidates, key=means.get)
        best_boot = np.mean([boot[n][best] for n in train], axis=0)
        close = []
        for c in candidates:
            diff = best_boot - np.mean([boot[n][c] for n in train], axis=0)
            if np.quantile(diff, 0.025) <= 0:
                close.append(c)
        pick = min(close, key=lambda c: (complexity(c), -means[c]))
        return best, pick, means, close

    print(f"\n{title} ({len(candidates)} candidates)\n")
    print("| held-out set | best on the other sets (mean Spearman) | within noise of it | chosen (simplest within "
          "noise) | held-out Spearman of the choice | held-out Spearman of the best |")
    print("|---|---|---|---|---|---|")
    held, held_best = [], []
    for n in names:
        train = [m for m in names if m != n]
        best, pick, means, close = choose(train)
        held.append(full[n][pick])
        held_best.append(full[n][best])
        print(f"| {n} | {best.strip()} ({means[best]:.1f}) | {len(close)} | {pick.strip()} ({means[pick]:.1f}) | "
              f"{full[n][pick]:.1f} | {full[n][best]:.1f} |")
    best, pick, means, close = choose(names)
    print(f"| mean of the held-out scores | | | | {np.mean(held):.1f} | {np.mean(held_best):.1f} |")
    print(f"\nchosen on all {len(names)} sets: {pick.strip()} (mean {means[pick]:.1f}; the best, {best.strip()}: "
          f"{means[best]:.1f}; within noise of the best: {', '.join(c.strip() for c in close)})")
    if compare is not None and compare in candidates:
        print(f"{compare.strip()} kept on every set: mean {np.mean([full[n][compare] for n in names]):.1f}")
    return pick


def weights_leave_one_set_out(sets: dict, lm_name: str | None, step: float = 0.1) -> None:
    """Would tuned weights of am+fm+followup's three calibrated components (Deep AM, Deep FM,
    followup) hold out better than its equal weights? Each set scored with the weights best
    on the other four (from the cache)."""
    from scipy.stats import spearmanr

    import fastamfm
    from fastamfm.neural.neural_lm import NeuralLM

    lm = NeuralLM.load(*([lm_name] if lm_name else []), device="cpu")
    deep = fastamfm.DeepAMFM.default(device="cpu", lm=lm, context_combination="am+fm+followup")
    calibrated = {}
    w.CACHE_ONLY = True
    try:
        for name in w.ALL:
            rated = sets[name]
            parts = w.deep_components(deep, rated, ["am_context", "fm_context"])
            parts["followup"] = deep.followup.scores_from(w.followup_log_probs(deep.followup, rated))
            calibrated[name] = np.stack([deep.calibrated(c, parts[c]) for c in deep.parts("context")])
    except w.NotCached as exc:
        print(f"\nam+fm+followup's weights: not cached ({exc})")
        return
    finally:
        w.CACHE_ONLY = False
    steps = int(round(1 / step))
    grid = np.array([(a, b, steps - a - b) for a in range(steps + 1) for b in range(steps + 1 - a)]) / steps
    rho = {n: np.array([100 * spearmanr(g @ calibrated[n], sets[n].ratings)[0] for g in grid]) for n in w.ALL}
    equal = {n: 100 * spearmanr(calibrated[n].mean(0), sets[n].ratings)[0] for n in w.ALL}
    print(f"\nam+fm+followup's weights (AM, FM, followup), leave-one-set-out over a grid of step {step:g} "
          f"({len(grid)} weightings), every turn\n")
    print("| held-out set | weights best on the other sets (their mean) | held-out Spearman | equal weights |")
    print("|---|---|---|---|")
    held = []
    for n in w.ALL:
        others = np.mean([rho[m] for m in w.ALL if m != n], axis=0)
        best = int(np.argmax(others))
        held.append(rho[n][best])
        print(f"| {n} | {tuple(float(x) for x in grid[best])} ({others[best]:.1f}) | {rho[n][best]:.1f} | "
              f"{equal[n]:.1f} |")
    print(f"| mean | | {np.mean(held):.1f} | {np.mean(list(equal.values())):.1f} |")


def correlation_tables(found: dict, title: str) -> None:
    """The five-set and four-set tables of ``found`` {set: (columns, ratings)}, sums added in place."""
    from benchmarks.deep.correlation_tables import correlations, print_table

    table = {}
    for n in w.ALL:
        cols, y = found[n]
        cols = {**cols, **combinations(cols, COMBINATIONS)}
        found[n] = (cols, y)
        for row, values in cols.items():
            table.setdefault(row, {})[n] = correlations(values, y)
    print_table(table, w.ALL, f"Turn-level Spearman / Pearson x100, {title} (the mean: all five sets)")
    print_table({r: {n: c[n] for n in w.FOUR if n in c} for r, c in table.items()}, w.FOUR,
                "The same, the four target sets (the mean: convai2-grade, empathetic-grade, persona-usr, fed-turn)")


def tables(sets: dict, lm_name: str | None, every: int = 1) -> None:
    """The tables on every turn (what the cache holds), the leave-one-set-out choices on every
    turn; with ``every`` > 1 also the tables on every ``every``-th turn (labelled so)."""
    found = components(sets, lm_name, 1)
    correlation_tables(found, "every turn of dstc10_dev")
    if every > 1:
        correlation_tables(components(sets, lm_name, every), f"every {every}th turn of each set only")
    leave_one_set_out(found, w.ALL, "Leave-one-set-out, the followup variants (every turn): the default set",
                      keep=lambda c: "followup" in c and "z(" not in c and c != WITH_FOLLOWUP)
    leave_one_set_out(found, w.ALL, "Leave-one-set-out, lm_judge's aspects (every turn): the combined aspect",
                      keep=lambda c: c.startswith("lm_judge"))
    leave_one_set_out(found, w.ALL, "Leave-one-set-out, every reference-free candidate (every turn): the "
                      "reference-free default", keep=lambda c: c in DEFAULT_CANDIDATES, compare=AMFM_DEFAULT)
    weights_leave_one_set_out(sets, lm_name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--lm", help="the causal LM (default: the packaged SmolLM2-135M-Instruct)")
    parser.add_argument("--score", default="followup,am,fm,judge", help="what to score (cached) before the tables")
    parser.add_argument("--no-score", action="store_true", help="tables from the cache only")
    parser.add_argument("--no-tables", action="store_true", help="score (into the cache) only")
    parser.add_argument("--fm-every", type=int, default=1,
                        help="score Deep FM on every N-th turn of each set only (its cost on two CPU cores)")
    parser.add_argument("--reverse", action="store_true",
                        help="score the sets and chunks last to first (a second process meeting the first)")
    parser.add_argument("--judge-every", type=int, default=1,
                        help="score lm_judge on every N-th turn of each set only (its cost on two CPU cores); "
                             "the tables then add those turns' table, labelled")
    args = parser.parse_args()
    sets = w.dstc10_sets(args.data)
    if not args.no_score:
        w.REVERSE = args.reverse
        score(sets, args.lm, [p for p in args.score.split(",") if p], args.judge_every, args.fm_every)
    if not args.no_tables:
        tables(sets, args.lm, args.judge_every)


if __name__ == "__main__":
    main()
