"""Reference-free scoring speed, side by side: the trained evaluator beside DeepAMFM and Deep AM
(the packaged models), on the same DSTC-10 development responses with their contexts, in one run.

    OMP_WAIT_POLICY=PASSIVE python3 benchmarks/run.py evaluator compare --evaluator DIR \
        [--responses 600] [--repeats 3] [--device cpu] [--data ../shared/data]

(``--evaluator`` defaults to ``$FASTAMFM_EVALUATOR``.) Each repeat scores the responses with
each scorer in turn (interleaved, so a change of load on shared cores hits all alike); the
evaluator is loaded afresh every repeat (it keeps the vectors of texts it has seen: a reused
one would time its cache), loading never timed. Reported: median wall and CPU seconds,
responses/s, and the speed-up of each over DeepAMFM, with the load average while measuring:
on shared cores compare the ratios, not the rates.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import fastamfm

from benchmarks import measure
from benchmarks.evaluator import workloads as w
from benchmarks.shared_data import SHARED_DATA

PEER = "DeepAMFM (packaged)"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--evaluator", type=Path, help=f"a trained evaluator directory (default ${w.EVALUATOR_VARIABLE})")
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--responses", type=int, default=600)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args(argv)
    try:
        directory = args.evaluator or w.evaluator_from_environment()
    except ValueError as exc:
        parser.error(str(exc))
    if directory is None:
        parser.error(f"give --evaluator DIR or set ${w.EVALUATOR_VARIABLE} (make one with fastamfm train --evaluator; "
                     f"python3 benchmarks/run.py evaluator train_recipe)")
    hyps, contexts = w.responses(args.responses, args.data)

    deep = fastamfm.DeepAMFM.default(device=args.device)

    def evaluator_side():
        evaluator = fastamfm.Evaluator.load(directory, device=args.device)
        return measure.timed(lambda: evaluator.score(hyps, contexts=contexts))

    sides = {"evaluator": evaluator_side,
             PEER: lambda: measure.timed(lambda: deep.score(hyps, contexts=contexts)),
             "Deep AM, context cosine (packaged)": lambda: measure.timed(
                 lambda: fastamfm.deep_am(hyps, contexts=contexts, encoder=deep.encoder))}
    with measure.LoadMonitor() as load:
        results = measure.interleaved(sides, args.repeats)
    peer = results[PEER][0]
    rows = [[name, measure.seconds(t.wall), measure.seconds(t.cpu), f"{len(hyps) / t.wall:.1f}",
             measure.ratio(peer.wall / t.wall), measure.ratio(peer.cpu / t.cpu)]
            for name, (t, _) in results.items()]
    measure.print_table(f"reference-free scoring, {len(hyps)} DSTC-10 responses with their contexts, device "
                        f"{args.device}, median of {args.repeats} interleaved repeats",
                        ["scorer", "wall", "CPU", "responses/s (wall)", "wall speed-up vs DeepAMFM",
                         "CPU speed-up vs DeepAMFM"], rows,
                        [str(load), f"evaluator: {directory}"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
