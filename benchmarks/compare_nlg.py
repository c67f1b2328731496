"""fastamfm vs the tools people use for BLEU / ROUGE-L / CIDEr, side by side, one run.

1. DSTC-6, all 20 systems, end to end from files (references read and encoded once
   by fastamfm; nlg-eval/pycocoevalcap reads and scores each system on its own).
   pycocoevalcap is slow, so it is timed on PYCOCO_SYSTEMS systems and its time for
   20 is extrapolated linearly (stated in the table).
2. Sentence BLEU vs sacrebleu and ROUGE-L vs rouge-score on 100k synthetic responses
   x 4 references: fastamfm on all 100k, the peers on a 10k subset, compared as items/s.
Every comparison asserts the scores agree first. Times: median of REPEATS runs, as
wall-clock and as CPU time of this process (on a shared, loaded machine the CPU-time
ratio is the steadier one; with workers=-1 it sums all threads).

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


class Timing:
    def __init__(self, wall, cpu):
        self.wall, self.cpu = wall, cpu

    def scaled(self, factor):
        return Timing(self.wall * factor, self.cpu * factor)


def median_time(fn, repeats=REPEATS):
    walls, cpus, result = [], [], None
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        result = fn()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return Timing(statistics.median(walls), statistics.median(cpus)), result


# The metrics pycocoevalcap computes here (compute_metrics' default now adds METEOR and AM-FM).
OVERLAP_KEYS = ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "ROUGE_L", "CIDEr"]


def fastamfm_dstc6(workers):
    refs = fastamfm.References.from_files(REFERENCE_FILES, workers=workers)
    return [fastamfm.compute_metrics(str(path), refs, metrics=OVERLAP_KEYS, workers=workers) for path in SYSTEM_FILES]


def row(task, peer_name, peer: Timing, ours: Timing, items_peer=None, items_ours=None):
    """Seconds (or items/s when item counts are given) and the speed-up, by wall and by CPU time."""
    if items_peer is None:
        wall = (peer.wall, ours.wall, peer.wall / ours.wall)
        cpu = (peer.cpu, ours.cpu, peer.cpu / ours.cpu)
    else:
        wall = (items_peer / peer.wall, items_ours / ours.wall, (items_ours / ours.wall) / (items_peer / peer.wall))
        cpu = (items_peer / peer.cpu, items_ours / ours.cpu, (items_ours / ours.cpu) / (items_peer / peer.cpu))
    unit = "s" if items_peer is None else "items/s"
    print(f"{task:<42} {peer_name:<14} {wall[0]:>9.4g} {wall[1]:>9.4g} {wall[2]:>7.1f}x "
          f"{cpu[0]:>9.4g} {cpu[1]:>9.4g} {cpu[2]:>7.1f}x  {unit}")


def main():
    print(f"{'task':<42} {'peer':<14} {'wall:peer':>9} {'fastamfm':>9} {'speedup':>8} "
          f"{'cpu:peer':>9} {'fastamfm':>9} {'speedup':>8}")

    if DSTC6.exists():
        peer_runs, peer_scores = [], []
        for path in SYSTEM_FILES[:PYCOCO_SYSTEMS]:
            timing, scores = median_time(lambda: pycoco_score_system(path, REFERENCE_FILES), 1)
            peer_runs.append(timing)
            peer_scores.append(scores)
        peer_20 = Timing(sum(t.wall for t in peer_runs), sum(t.cpu for t in peer_runs)).scaled(20 / PYCOCO_SYSTEMS)
        for workers in (1, -1):
            ours_time, ours = median_time(lambda: fastamfm_dstc6(workers))
            for mine, theirs in zip(ours, peer_scores):
                for key, value in theirs.items():
                    assert abs(mine[key] - value) <= 1e-12 * max(1.0, abs(value)), (key, mine[key], value)
            row(f"DSTC-6 20 systems BLEU+ROUGE-L+CIDEr w={workers}", "pycocoevalcap", peer_20, ours_time)
        print(f"  (pycocoevalcap timed on {PYCOCO_SYSTEMS} system(s) and scaled x{20 / PYCOCO_SYSTEMS:g} to 20: "
              "an extrapolation; fastamfm timed on all 20 from files, references encoded once)")
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
        row(f"sentence BLEU exp, 100k x 4 refs w={workers}", "sacrebleu", peer_time, ours_time, N_PEER, N_SYNTHETIC)

    from rouge_score.rouge_scorer import RougeScorer

    scorer = RougeScorer(["rougeL"])
    peer_time, expected = median_time(
        lambda: [scorer.score_multi(r, h)["rougeL"].fmeasure for h, r in zip(sub_h, sub_r)], 1)
    for workers in (1, -1):
        ours_time, res = median_time(lambda: fastamfm.rouge_l(hyps, refs, beta=1.0, multi_ref="max-f",
                                                               workers=workers))
        assert res.sentences[:N_PEER].tolist() == expected
        row(f"ROUGE-L max-f, 100k x 4 refs w={workers}", "rouge-score", peer_time, ours_time, N_PEER, N_SYNTHETIC)
    print(f"  (peers timed on the first {N_PEER} items, fastamfm on all {N_SYNTHETIC}: rates compared)")


if __name__ == "__main__":
    main()
