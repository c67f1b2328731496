"""fastamfm's paired bootstrap vs sacrebleu's (``--paired-bs``), side by side, one run.

DSTC-6: 20 systems x 2000 responses x 11 references, every system against S_1, 1000
resamples. sacrebleu: BLEU (its Python API, the code ``sacrebleu --paired-bs`` runs,
one process). fastamfm ``compare_systems``: BLEU alone (the same work), then BLEU,
METEOR, ROUGE-L and CIDEr together; its time includes scoring every system (references
prepared once) and the resampling of all 20 systems at once; the resampling alone is
timed too. Agreement: with sacrebleu's seed the p-values must be identical; with another
seed they must differ by no more than Monte-Carlo error (|Δp| / sqrt(2 p (1 - p) / R)).

    python3 benchmarks/run.py significance compare [--repeats 1]
"""
from __future__ import annotations

import argparse
import math

import numpy as np

from benchmarks import measure
from benchmarks.shared_data import DSTC6, require
from benchmarks.significance import workloads as w

RESAMPLES = 1000
FOUR = ["bleu", "meteor", "rouge_l", "cider"]


def resampling_only(systems, refs, metrics) -> measure.Timing:
    """The resampling of compare_systems without the scoring: every system's scores on
    the same 1000 draws (what the randomization/bootstrap p-values are computed from)."""
    from fastamfm.analysis.resampling import bootstrap_draws, bootstrap_scores
    from fastamfm.analysis.system_comparison import ScoredSystems

    statistics = ScoredSystems.score(systems, refs, metrics=metrics).statistics
    stats = [s for per_metric in statistics.values() for s in per_metric.values()]
    n = len(next(iter(systems.values())))
    timing, _ = measure.timed(lambda: bootstrap_scores(stats, bootstrap_draws(np.random.default_rng(0), n,
                                                                              RESAMPLES)))
    return timing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    require(DSTC6)
    systems, refs = w.dstc6()
    tok_time, (tok_systems, tok_refs) = measure.timed(lambda: w.tokenize_13a(systems, refs))
    with measure.LoadMonitor() as load:
        results = measure.interleaved({
            "sacrebleu": lambda: measure.timed(lambda: w.sacrebleu_paired_bs(systems, refs, RESAMPLES)),
            "bleu": lambda: measure.timed(lambda: w.fastamfm_compare(tok_systems, tok_refs, ["bleu"], RESAMPLES)),
            "four": lambda: measure.timed(lambda: w.fastamfm_compare(systems, refs, FOUR, RESAMPLES)),
        }, args.repeats)
        resampling_bleu = resampling_only(tok_systems, tok_refs, ["bleu"])
        resampling_four = resampling_only(systems, refs, FOUR)
    peer, theirs = results["sacrebleu"]
    bleu_time, ours = results["bleu"]
    four_time, _ = results["four"]
    worst_same_seed = w.check_agreement(ours, theirs)
    other = w.fastamfm_compare(tok_systems, tok_refs, ["bleu"], RESAMPLES, seed=0)
    z = []
    for system, result in theirs.items():
        if result.p_value is None:
            continue
        p = result.p_value
        sd = math.sqrt(2 * max(p, 1 / RESAMPLES) * (1 - min(p, 1 - 1 / RESAMPLES)) / RESAMPLES)
        z.append((abs(other.p_value(system, "Bleu_4") - p) / sd, system, p, other.p_value(system, "Bleu_4")))
    with_tokens = measure.Timing(bleu_time.wall + tok_time.wall, bleu_time.cpu + tok_time.cpu)
    rows = [measure.speed_rows("paired bootstrap, BLEU (sacrebleu vs fastamfm)", peer, bleu_time),
            measure.speed_rows("the same, fastamfm's 13a tokenisation of its input counted", peer, with_tokens),
            measure.speed_rows("fastamfm BLEU+METEOR+ROUGE-L+CIDEr vs sacrebleu BLEU", peer, four_time),
            ["fastamfm resampling only, BLEU", "", measure.seconds(resampling_bleu.wall), "",
             "", measure.seconds(resampling_bleu.cpu), ""],
            ["fastamfm resampling only, 4 metrics (7 columns)", "", measure.seconds(resampling_four.wall), "",
             "", measure.seconds(resampling_four.cpu), ""],
            ["13a tokenisation of fastamfm's BLEU input (sacrebleu's Tokenizer13a)", "",
             measure.seconds(tok_time.wall), "", "", measure.seconds(tok_time.cpu), ""]]
    worst = max(z)
    notes = [f"20 systems x 2000 responses x 11 references, {RESAMPLES} resamples, baseline S_1; "
             f"{'one run' if args.repeats == 1 else f'median of {args.repeats} interleaved runs'}; {load}",
             f"same seed ({w.SACREBLEU_SEED}): BLEU equal, largest |p_fastamfm - p_sacrebleu| = {worst_same_seed:.2g} "
             f"over the 19 systems",
             f"fastamfm seed 0 vs sacrebleu seed {w.SACREBLEU_SEED}: largest |Δp| / MC sd = {worst[0]:.2f} "
             f"({worst[1]}: {worst[3]:.4f} vs {worst[2]:.4f}); "
             f"{sum(1 for v in z if v[0] <= 2)} of {len(z)} within 2 sd"]
    measure.print_table("Paired bootstrap significance on DSTC-6: fastamfm compare_systems vs sacrebleu --paired-bs",
                        measure.SPEED_HEADER, rows, notes)
    print()
    print("system  sacrebleu p (seed 12345)  fastamfm p (same seed)  fastamfm p (seed 0)")
    for system, result in theirs.items():
        if result.p_value is not None:
            print(f"{system:<8}{result.p_value:>24.4f}{ours.p_value(system, 'Bleu_4'):>24.4f}"
                  f"{other.p_value(system, 'Bleu_4'):>21.4f}")


if __name__ == "__main__":
    main()
