"""DSTC-6: which of the 20 systems differ significantly from the best, by BLEU-4, METEOR,
AM-FM (the packaged default model) and DeepAMFM, beside the human ranking.

For each metric, every system is compared with the metric's own best system (paired
bootstrap, 1000 resamples, seed 0, Holm-corrected over the 19 comparisons) and with the
system people rated best. The metric's "top group" is its best system and those not
significantly different from it. DeepAMFM (MiniLM adequacy + SmolLM2 fluency, the
packaged models) is slow on a CPU: it runs on the first --deep-responses responses of
every system (default 200 of the 2000), said in its table; --deep-responses 0 leaves it out.

    OMP_WAIT_POLICY=PASSIVE python3 benchmarks/run.py significance dstc6
"""
from __future__ import annotations

import argparse
import time

from benchmarks import shared_data
from benchmarks.shared_data import DSTC6, require

RESAMPLES = 1000


def _ranks(values: dict, reverse: bool = True) -> dict:
    order = sorted(values, key=lambda s: values[s], reverse=reverse)
    return {s: i + 1 for i, s in enumerate(order)}


def report(title: str, scored, column: str, human: dict) -> None:
    best = scored.best(column)
    human_best = max(scored.systems, key=lambda s: human[s])
    vs_best = scored.compare(baseline=best, resamples=RESAMPLES, seed=0)
    vs_human_best = scored.compare(baseline=human_best, resamples=RESAMPLES, seed=0)
    scores = {s: scored.corpus[s][column] for s in scored.systems}
    metric_rank = _ranks(scores)
    human_rank = _ranks({s: human[s] for s in scored.systems})
    print(f"\n=== {title}: vs its best system {best} and vs the human-best {human_best} "
          f"(paired bootstrap, {RESAMPLES} resamples, seed 0, Holm over 19; * p_adj < 0.05) ===")
    print(f"{'system':<7}{'human':>7}{'h.rank':>7}{'score':>9}{'m.rank':>7}   {'Δ vs ' + best:<16}{'p_adj':>7}"
          f"   {'Δ vs ' + human_best:<16}{'p_adj':>7}")
    for s in sorted(scored.systems, key=lambda s: human_rank[s]):
        a, b = vs_best[s, column], vs_human_best[s, column]
        cell_a = "(best)" if s == best else f"{a.difference:+.4f}{' *' if a.significant else '  '}"
        cell_b = "(human-best)" if s == human_best else f"{b.difference:+.4f}{' *' if b.significant else '  '}"
        pa = "" if s == best else f"{a.p_adjusted:.3f}"
        pb = "" if s == human_best else f"{b.p_adjusted:.3f}"
        print(f"{s:<7}{human[s]:>7.3f}{human_rank[s]:>7}{scores[s]:>9.4f}{metric_rank[s]:>7}   {cell_a:<16}{pa:>7}"
              f"   {cell_b:<16}{pb:>7}")
    top = [best] + [s for s in scored.systems if s != best and not vs_best[s, column].significant]
    top.sort(key=lambda s: metric_rank[s])
    above = [s for s in scored.systems if s != human_best and vs_human_best[s, column].significant
             and vs_human_best[s, column].difference > 0]
    print(f"top group (not significantly below {best}): {len(top)} systems: "
          f"{', '.join(f'{s} (human rank {human_rank[s]})' for s in top)}")
    print(f"systems significantly ABOVE the human-best {human_best} by {title}: "
          f"{', '.join(sorted(above, key=lambda s: human_rank[s])) or 'none'}")


def main() -> None:
    import fastamfm
    from fastamfm.analysis.system_comparison import ScoredSystems

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deep-responses", type=int, default=200)
    args = parser.parse_args()
    require(DSTC6)
    systems, refs = shared_data.dstc6_systems(), fastamfm.References(shared_data.dstc6_references())
    human = shared_data.dstc6_human()
    start = time.perf_counter()
    scored = ScoredSystems.score(systems, refs, metrics=["bleu", "meteor", "amfm"], model="default")
    print(f"BLEU, METEOR, AM-FM: 20 systems x 2000 responses x 11 references scored in "
          f"{time.perf_counter() - start:.1f} s")
    for title, column in (("BLEU-4", "Bleu_4"), ("METEOR", "METEOR"), ("AM-FM (default model)", "AM-FM")):
        report(title, scored, column, human)
    if args.deep_responses:
        n = args.deep_responses
        start = time.perf_counter()
        deep = ScoredSystems.score({s: h[:n] for s, h in systems.items()}, shared_data.dstc6_references()[:n],
                                   metrics=["deep_amfm"])
        print(f"\nDeepAMFM on the first {n} of 2000 responses per system (a subsample: CPU only), scored in "
              f"{time.perf_counter() - start:.1f} s")
        report(f"DeepAMFM (first {n} responses)", deep, "deep_amfm", human)


if __name__ == "__main__":
    main()
