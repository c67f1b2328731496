"""The judges' speed, side by side: the shared prefix computed once (the prefix tree, the
KV cache) beside scoring each follow-up / aspect as a sequence of its own, and beside
DeepAMFM's reference-free rate, on the same DSTC-10 development responses with their
contexts (packaged SmolLM2-135M-Instruct, float32, CPU), in one run.

    OMP_WAIT_POLICY=PASSIVE python3 benchmarks/run.py judge compare \
        [--responses 24] [--repeats 1] [--followups 6] [--data ../shared/data]

Each repeat runs every side in turn (interleaved, so a change of load on shared cores hits
all alike). ``followup`` scores K follow-ups (the first K/2 positive and K/2 negative
candidates), ``lm_judge`` the six aspects. Reported: median wall and CPU seconds,
responses/s, the speed-up over the unshared loop, and the largest difference in ln p of
each method from the unshared loop (the same numbers: <= 1e-5), with the load average
while measuring: on shared cores compare the ratios, not the rates.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from benchmarks import measure
from benchmarks.judge import workloads as w
from benchmarks.shared_data import SHARED_DATA

METHODS = {"prefix tree (default)": "tree", "KV cache": "cache", "each alone (baseline)": "separate"}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--responses", type=int, default=24)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--followups", type=int, default=6)
    args = parser.parse_args(argv)
    import fastamfm
    import torch
    from fastamfm.deep.followup import CANDIDATE_NEGATIVE, CANDIDATE_POSITIVE, FollowupScorer
    from fastamfm.deep.lm_judge import ASPECTS, LMJudge

    torch.set_num_threads(2)
    hyps, contexts = w.responses(args.responses, args.data)
    deep = fastamfm.DeepAMFM.default(device="cpu")
    half = args.followups // 2
    positive, negative = CANDIDATE_POSITIVE[:half], CANDIDATE_NEGATIVE[:args.followups - half]
    three = fastamfm.DeepAMFM(encoder=deep.encoder, lm=deep.lm, device="cpu", context_combination="am+fm+followup")
    sides = {"DeepAMFM reference-free (AM+FM, default)":
             lambda: measure.timed(lambda: deep.score(hyps, contexts=contexts).sentences["deep_amfm"]),
             "DeepAMFM reference-free (AM+FM+followup)":
             lambda: measure.timed(lambda: three.score(hyps, contexts=contexts).sentences["deep_amfm"])}
    for label, method in METHODS.items():
        scorer = FollowupScorer(deep.lm, positive=positive, negative=negative, method=method)
        judge = LMJudge(deep.lm, aspects=list(ASPECTS), method=method)
        sides[f"followup (K={args.followups}), {label}"] = \
            lambda s=scorer: measure.timed(lambda: s.log_probs(hyps, contexts))
        sides[f"lm_judge ({len(ASPECTS)} aspects), {label}"] = \
            lambda j=judge: measure.timed(lambda: j.log_probs(hyps, contexts))
    with measure.LoadMonitor() as load:
        results = measure.interleaved(sides, args.repeats)
    rows = []
    for name, (timing, values) in results.items():
        kind = name.split(" ")[0]
        baseline = [r for n, r in results.items() if n.startswith(kind) and "baseline" in n]
        if baseline and "DeepAMFM" not in name:
            peer_timing, peer_values = baseline[0]
            delta = np.nanmax(np.abs(np.asarray(values) - np.asarray(peer_values)))
            speedup, error = measure.ratio(peer_timing.wall / timing.wall), f"{delta:.1e}"
        else:
            speedup, error = "-", "-"
        rows.append([name, measure.seconds(timing.wall), measure.seconds(timing.cpu),
                     f"{len(hyps) / timing.wall:.2f}", speedup, error])
    measure.print_table(f"judges on {len(hyps)} DSTC-10 responses with their contexts, SmolLM2-135M float32, CPU, "
                        f"median of {args.repeats} interleaved repeats",
                        ["scorer", "wall", "CPU", "responses/s (wall)", "wall speed-up vs each alone",
                         "max |delta ln p| vs each alone"], rows, [str(load)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
