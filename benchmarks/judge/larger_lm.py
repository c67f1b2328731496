"""followup with another local causal LM (a larger one) on dstc10_dev, beside the packaged
models' components: does a bigger follow-up model help where SmolLM2-135M does not?

    OMP_WAIT_POLICY=PASSIVE python3 benchmarks/run.py judge larger_lm --lm PATH/TO/MODEL.gguf \
        [--sets fed-turn,convai2-grade,...]

For each set (in the order given): the follow-up log-probs of the default candidate set with
``--lm`` (cached like ``correlation``'s), then turn-level Spearman x100 of followup (+3 -3), its
negative and positive sides, and z(Deep AM) + z(Deep FM) + z(followup) with Deep AM and Deep FM
from the packaged models (their scores are read from ``correlation``'s cache, so run that first:
``correlation --score am,fm``).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from benchmarks.judge import workloads as w
from benchmarks.shared_data import SHARED_DATA


def zscore(values: np.ndarray) -> np.ndarray:
    return (values - values.mean()) / (values.std() or 1.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lm", required=True, help="the causal LM: a GGUF file or a transformers directory")
    parser.add_argument("--sets", default=",".join(w.ALL), help="comma-separated dstc10_dev sets, scored in this order")
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    args = parser.parse_args()

    import torch
    from scipy.stats import spearmanr

    import fastamfm
    from fastamfm.deep import followup
    from fastamfm.neural.neural_lm import NeuralLM

    torch.set_num_threads(2)
    sets = w.dstc10_sets(args.data)
    start = time.perf_counter()
    lm = NeuralLM.load(args.lm, device="cpu")
    print(f"LM: {lm!r} (loaded in {time.perf_counter() - start:.0f} s)", flush=True)
    scorer = followup.FollowupScorer(lm, positive=followup.CANDIDATE_POSITIVE, negative=followup.CANDIDATE_NEGATIVE)
    packaged = fastamfm.DeepAMFM.default(device="cpu", lm=NeuralLM.load(device="cpu"))
    p = len(followup.CANDIDATE_POSITIVE)
    print("| set | turns | followup +3 -3 | -3 only | +3 only | z(AM) + z(FM) + z(followup) | scoring s |")
    print("|---|---|---|---|---|---|---|")
    for name in args.sets.split(","):
        rated = sets[name]
        start = time.perf_counter()
        log_probs = w.followup_log_probs(scorer, rated)
        seconds = time.perf_counter() - start
        w.CACHE_ONLY = True
        try:
            parts = w.deep_components(packaged, rated, ["am_context", "fm_context"])
        finally:
            w.CACHE_ONLY = False
        score = followup.combine(log_probs, p)
        columns = [score, -log_probs[:, p:].mean(1), log_probs[:, :p].mean(1),
                   zscore(parts["am_context"]) + zscore(parts["fm_context"]) + zscore(score)]
        values = " | ".join(f"{100 * spearmanr(c, rated.ratings)[0]:.1f}" for c in columns)
        print(f"| {name} | {len(rated)} | {values} | {seconds:.0f} |", flush=True)


if __name__ == "__main__":
    main()
