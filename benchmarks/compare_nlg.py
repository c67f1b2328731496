"""fastamfm vs the tools people use for BLEU / ROUGE-L / CIDEr, side by side, one run.

1. DSTC-6, all 20 systems, end to end from files (references read and encoded once
   by fastamfm; nlg-eval/pycocoevalcap reads and scores each system on its own).
   pycocoevalcap is slow, so it is timed on PYCOCO_SYSTEMS systems and its time for
   20 is extrapolated linearly (stated in the table).
2. Sentence BLEU vs sacrebleu and ROUGE-L vs rouge-score on 100k synthetic responses
   x 4 references: fastamfm on all 100k, the peers on a 10k subset, compared as items/s.
Every comparison asserts the scores agree first. Times: median of REPEATS runs.

    PYTHONPATH=python python3 benchmarks/compare_nlg.py
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fastamfm  # noqa: E402
from _nlg_data import DSTC6, REFERENCE_FILES, SYSTEM_FILES, pycoco_score_system, synthetic  # noqa: E402

REPEATS = 3
PYCOCO_SYSTEMS = int(__import__("os").environ.get("PYCOCO_SYSTEMS", 2))
N_SYNTHETIC, N_PEER = 100_000, 10_000


def median_time(fn, repeats=REPEATS):
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def fastamfm_dstc6(workers):
    refs = fastamfm.References.from_files(REFERENCE_FILES, workers=workers)
    return [fastamfm.compute_metrics(str(path), refs, workers=workers) for path in SYSTEM_FILES]


def row(task, peer, peer_value, ours_value, speedup, unit):
    print(f"{task:<46} {peer:<18} {peer_value:>12.4g} {ours_value:>12.4g} {speedup:>9.1f}x  {unit}")


def main():
    print(f"{'task':<46} {'peer':<18} {'peer':>12} {'fastamfm':>12} {'speedup':>10}")

    if DSTC6.exists():
        peer_times, peer_scores = [], []
        for path in SYSTEM_FILES[:PYCOCO_SYSTEMS]:
            start = time.perf_counter()
            peer_scores.append(pycoco_score_system(path, REFERENCE_FILES))
            peer_times.append(time.perf_counter() - start)
        peer_20 = statistics.mean(peer_times) * len(SYSTEM_FILES)
        for workers in (1, -1):
            ours_time, ours = median_time(lambda: fastamfm_dstc6(workers))
            for mine, theirs in zip(ours, peer_scores):
                for key, value in theirs.items():
                    assert abs(mine[key] - value) <= 1e-12 * max(1.0, abs(value)), (key, mine[key], value)
            row(f"DSTC-6 20 systems BLEU+ROUGE-L+CIDEr (w={workers})", "pycocoevalcap 1.2", peer_20, ours_time,
                peer_20 / ours_time, f"seconds; peer timed on {PYCOCO_SYSTEMS} system(s), x{20 / PYCOCO_SYSTEMS:g} (extrapolated)")
    else:
        print(f"(DSTC-6 skipped: {DSTC6} is absent)")

    hyps, refs = synthetic(N_SYNTHETIC)
    sub_h, sub_r = hyps[:N_PEER], refs[:N_PEER]

    from sacrebleu.metrics import BLEU

    sacre = BLEU(tokenize="none", effective_order=True)
    peer_time, expected = median_time(lambda: [sacre.sentence_score(h, r).score / 100 for h, r in zip(sub_h, sub_r)], 1)
    for workers in (1, -1):
        ours_time, res = median_time(lambda: fastamfm.bleu(hyps, refs, smooth="exp", workers=workers))
        np.testing.assert_allclose(res.sentences[:N_PEER, 3], expected, rtol=1e-12, atol=1e-15)
        peer_rate, ours_rate = N_PEER / peer_time, N_SYNTHETIC / ours_time
        row(f"sentence BLEU exp, 100k x 4 refs (w={workers})", "sacrebleu", peer_rate, ours_rate,
            ours_rate / peer_rate, "items/s; peer timed on the first 10k")

    from rouge_score.rouge_scorer import RougeScorer

    scorer = RougeScorer(["rougeL"])
    peer_time, expected = median_time(
        lambda: [scorer.score_multi(r, h)["rougeL"].fmeasure for h, r in zip(sub_h, sub_r)], 1)
    for workers in (1, -1):
        ours_time, res = median_time(lambda: fastamfm.rouge_l(hyps, refs, beta=1.0, multi_ref="max-f",
                                                               workers=workers))
        assert res.sentences[:N_PEER].tolist() == expected
        peer_rate, ours_rate = N_PEER / peer_time, N_SYNTHETIC / ours_time
        row(f"ROUGE-L max-f, 100k x 4 refs (w={workers})", "rouge-score", peer_rate, ours_rate,
            ours_rate / peer_rate, "items/s; peer timed on the first 10k")


if __name__ == "__main__":
    main()
