"""Which metrics are really closer to people than BLEU-2? The metric x metric significance
matrix on the DSTC-10 development sets that have references (turn level).

Metrics: BLEU-2 (pycocoevalcap's sentence BLEU-2), METEOR 1.5, ROUGE-L, AM and FM (the
packaged default AM-FM model) and deep_am (the packaged all-MiniLM-L6-v2; needs the deep
extra, left out with a note otherwise). Target: the set's usual aspect (appropriateness
for dailydialog-zhao, Overall for persona-usr), mean over raters. Tests: the Williams
test on Pearson correlations and the paired bootstrap (1000 resamples) on Spearman's,
Holm-corrected over the 15 metric pairs.

    OMP_WAIT_POLICY=PASSIVE python3 benchmarks/run.py significance dstc10_metrics
"""
from __future__ import annotations

import time

from benchmarks.shared_data import SHARED_DATA, require

SETS = ("dailydialog-zhao_eval.json", "persona-usr_eval.json")


def metric_columns(turns) -> dict:
    import fastamfm

    result = fastamfm.evaluate(turns.hyps, turns.refs, metrics=["bleu", "meteor", "rouge_l", "am", "fm"],
                               model="default")
    columns = {"BLEU-2": result["Bleu_2"], "METEOR": result["METEOR"], "ROUGE-L": result["ROUGE_L"],
               "AM": result["AM"], "FM": result["FM"]}
    try:
        columns["deep_am (MiniLM)"] = fastamfm.deep_am(turns.hyps, turns.refs).sentences["deep_am"]
    except ImportError as exc:
        print(f"deep_am left out: {exc}")
    return columns


def main() -> None:
    import fastamfm
    from fastamfm.analysis.ratings import load_rated_turns

    directory = require(SHARED_DATA / "dstc10_dev")
    for name in SETS:
        turns = load_rated_turns(directory / name)
        start = time.perf_counter()
        columns = metric_columns(turns)
        scored = time.perf_counter() - start
        print(f"\n=== {name}: {len(turns)} turns, aspect {turns.aspect!r}, scored in {scored:.1f} s ===")
        williams = fastamfm.compare_metrics(columns, turns.ratings, method="williams", level="utterance")
        print(williams)
        start = time.perf_counter()
        bootstrap = fastamfm.compare_metrics(columns, turns.ratings, method="bootstrap", correlation="spearman",
                                             level="utterance", resamples=1000, seed=0)
        print(f"(bootstrap in {time.perf_counter() - start:.1f} s)")
        print(bootstrap)
        for label, table in (("Williams/Pearson", williams), ("bootstrap/Spearman", bootstrap)):
            better = table.better_than("BLEU-2")
            print(f"{label}: significantly better than BLEU-2: {', '.join(better) if better else 'none'}")


if __name__ == "__main__":
    main()
