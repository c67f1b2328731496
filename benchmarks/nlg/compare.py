"""fastamfm vs the tools people use for BLEU / ROUGE-L / CIDEr, side by side, one run.

1. DSTC-6, all 20 systems, end to end from files: pycocoevalcap (what nlg-eval runs)
   reads and scores each system on its own; fastamfm reads and prepares the
   references once (``References.from_files``) and runs ``evaluate`` (and the nlg-eval
   drop-in ``compute_metrics``) per system file. ``--pycoco-systems N`` times
   pycocoevalcap on N systems only and scales its time to 20 (said in the table).
2. Sentence BLEU vs sacrebleu and ROUGE-L vs rouge-score on 100k synthetic responses
   x 4 references: fastamfm on all 100k, the peers on a 10k subset, compared as items/s.
Every comparison asserts the scores agree first. Sides run interleaved, repeat after
repeat; times are medians, as wall-clock and as CPU time (user + sys of this process,
all threads) with the load average sampled meanwhile.

    python3 benchmarks/run.py nlg compare [--repeats 3] [--pycoco-systems 20]
"""
from __future__ import annotations

import argparse

from benchmarks import measure
from benchmarks.nlg import workloads as w
from benchmarks.shared_data import DSTC6, SYSTEM_FILES

N_SYNTHETIC, N_PEER = 100_000, 10_000


def compare_dstc6(repeats: int, pycoco_systems: int) -> None:
    peer_files = SYSTEM_FILES[:pycoco_systems]
    sides = {
        "pycocoevalcap": lambda: measure.timed(lambda: w.pycoco_systems(peer_files)),
        "evaluate w=-1": lambda: measure.timed(lambda: w.fastamfm_evaluate_systems(workers=-1)),
        "evaluate w=1": lambda: measure.timed(lambda: w.fastamfm_evaluate_systems(workers=1)),
        "compute_metrics w=-1": lambda: measure.timed(lambda: w.fastamfm_compute_metrics_systems(workers=-1)),
    }
    with measure.LoadMonitor() as load:
        results = measure.interleaved(sides, repeats)
    peer, expected = results.pop("pycocoevalcap")
    peer = peer.scaled(len(SYSTEM_FILES) / len(peer_files))
    rows = []
    for name, (timing, scores) in results.items():
        w.check_systems(scores, expected)
        rows.append(measure.speed_rows(f"20 systems, {name}", peer, timing))
    notes = [f"median of {repeats} interleaved repeats; {load}",
             f"pycocoevalcap timed on {len(peer_files)} system(s)" +
             ("" if len(peer_files) == len(SYSTEM_FILES) else f", scaled x{len(SYSTEM_FILES) / len(peer_files):g} "
                                                              "to 20 (an extrapolation)"),
             ("fastamfm: every system read from its file, references read and prepared once; "
              "scores equal pycocoevalcap's within 1e-12")]
    measure.print_table("DSTC-6: 20 systems x 2000 responses x 11 references, BLEU-1..4 + ROUGE-L + CIDEr "
                        "from files, vs pycocoevalcap", measure.SPEED_HEADER, rows, notes)


def compare_sentence_metrics(repeats: int) -> None:
    hyps, refs = w.synthetic(N_SYNTHETIC)
    sub = (hyps[:N_PEER], refs[:N_PEER])
    tasks = [("sentence BLEU exp", "sacrebleu", w.sacrebleu_sentence_bleu, w.fastamfm_sentence_bleu,
              w.check_sentence_bleu),
             ("ROUGE-L max-f", "rouge-score", w.rouge_score_rouge_l, w.fastamfm_rouge_l, w.check_rouge_l)]
    rows = []
    with measure.LoadMonitor() as load:
        for task, peer_name, peer_fn, ours_fn, check in tasks:
            results = measure.interleaved({
                peer_name: lambda f=peer_fn: measure.timed(lambda: f(*sub)),
                "w=1": lambda f=ours_fn: measure.timed(lambda: f(hyps, refs, workers=1)),
                "w=-1": lambda f=ours_fn: measure.timed(lambda: f(hyps, refs, workers=-1)),
            }, repeats)
            peer, expected = results.pop(peer_name)
            for name, (timing, scores) in results.items():
                check(scores, expected)
                # Rates: the peer scored N_PEER items, fastamfm N_SYNTHETIC.
                rows.append(measure.speed_rows(f"{task} vs {peer_name}, {name}", peer.scaled(N_SYNTHETIC / N_PEER),
                                               timing))
    measure.print_table(f"sentence metrics, {N_SYNTHETIC // 1000}k synthetic responses x 4 references",
                        measure.SPEED_HEADER, rows,
                        [(f"peers timed on the first {N_PEER} items and scaled to {N_SYNTHETIC} (rates compared); "
                          f"median of {repeats}; {load}")])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pycoco-systems", type=int, default=20, choices=range(1, 21), metavar="1..20")
    parser.add_argument("--skip-dstc6", action="store_true")
    parser.add_argument("--skip-sentence", action="store_true")
    args = parser.parse_args()
    if not args.skip_dstc6:
        if DSTC6.exists():
            compare_dstc6(args.repeats, args.pycoco_systems)
        else:
            print(f"(DSTC-6 skipped: {DSTC6} is absent)")
    if not args.skip_sentence:
        compare_sentence_metrics(args.repeats)


if __name__ == "__main__":
    main()
