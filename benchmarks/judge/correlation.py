"""The judges against people, on the shared DSTC-10 development sets only, and the
reference-free default chosen leave-one-set-out.

    OMP_WAIT_POLICY=PASSIVE python3 benchmarks/run.py judge correlation \
        [--data ../shared/data] [--lm MODEL] [--score followup,deep,judge] [--no-score]

1. Scores (cached per set in chunks under ``$FASTAMFM_JUDGE_CACHE``, default
   /tmp/fastamfm-judge-cache, so a run resumes and combinations are recomputed without
   scoring again): the mean ln p of every candidate follow-up (``followup.CANDIDATE_*``),
   the rating-token log-probs of every aspect (``lm_judge.ASPECTS``), and DeepAMFM's
   reference-free components (Deep AM's context cosine, Deep FM's PMI).
2. The table: turn-level Spearman / Pearson x100 on all five sets for the followup variants,
   lm_judge per aspect, Deep AM, Deep FM, DeepAMFM reference-free (old default) and the
   chosen default.
3. Leave-one-set-out: every candidate (single components and their z-scored sums) is
   ranked by its mean Spearman on four sets; the set left out is scored by the choice made
   on the other four. Among the candidates whose mean on the four is within the bootstrap
   interval (95%, 1000 resamples of turns) of the best one's, the simplest is taken.
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


def score(sets: dict, lm_name: str | None, parts: list, judge_every: int = 1) -> None:
    import torch
    from fastamfm.deep.followup import CANDIDATE_NEGATIVE, CANDIDATE_POSITIVE, FollowupScorer
    from fastamfm.deep.lm_judge import ASPECTS, LMJudge
    from fastamfm.neural.neural_lm import NeuralLM

    torch.set_num_threads(2)
    lm = NeuralLM.load(*([lm_name] if lm_name else []), device="cpu")
    print(f"LM: {lm!r}", file=sys.stderr, flush=True)
    for part in parts:
        for name in w.ALL:
            rated = sets[name]
            if part == "followup":
                w.followup_log_probs(FollowupScorer(lm, positive=CANDIDATE_POSITIVE, negative=CANDIDATE_NEGATIVE),
                                     rated)
            elif part == "judge":
                w.judge_log_probs(LMJudge(lm, aspects=list(ASPECTS)), judged_turns(rated, judge_every))
            elif part == "deep":
                import fastamfm

                w.deep_components(fastamfm.DeepAMFM.default(device="cpu", lm=lm), rated)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--lm", help="the causal LM (default: the packaged SmolLM2-135M-Instruct)")
    parser.add_argument("--score", default="followup,deep,judge", help="what to score (cached) before the tables")
    parser.add_argument("--no-score", action="store_true", help="tables from the cache only")
    parser.add_argument("--judge-every", type=int, default=1,
                        help="score lm_judge on every N-th turn of each set only (its cost on two CPU cores)")
    args = parser.parse_args()
    sets = w.dstc10_sets(args.data)
    if not args.no_score:
        score(sets, args.lm, [p for p in args.score.split(",") if p], args.judge_every)


if __name__ == "__main__":
    main()
