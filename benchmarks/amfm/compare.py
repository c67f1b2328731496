"""fastamfm's AM-FM next to the toolkit-style pipeline (scikit-learn + numpy + kenlm), same run.

    python3 benchmarks/run.py amfm compare [--repeats 3]

Both sides use the same models (trained by fastamfm on the twcs_airlines agent turns:
100 LSI dimensions, raw counts; trigram Kneser-Ney LM, written as ARPA for kenlm) and
must give the same scores (asserted). Tasks: the 20 DSTC-6 systems (2000 responses x
11 references each) with the references encoded once and re-encoded per system, a
10k x 4 batch, and `reward` latency for batches of 64 responses x 4 references.
Times are medians of interleaved repeats, wall and CPU; speed-up = peer / fastamfm.
Workloads and the peer: workloads.py.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

from benchmarks import measure
from benchmarks.amfm import workloads as w
from benchmarks.shared_data import DSTC6, TWCS, require


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    require(DSTC6)
    require(TWCS)
    rows = []
    with tempfile.TemporaryDirectory(prefix="fastamfm-compare-") as tmp, measure.LoadMonitor() as load:
        scorer, peer, systems, refs = w.setup(Path(tmp))

        def peer_cached():
            encoded = peer.encode_references(refs)
            return {s: peer.score(h, refs, encoded) for s, h in systems.items()}

        def compare(task, ours_fn, peer_fn):
            results = measure.interleaved({"peer": lambda: measure.timed(peer_fn),
                                           "fastamfm": lambda: measure.timed(ours_fn)}, args.repeats)
            rows.append(measure.speed_rows(task, results["peer"][0], results["fastamfm"][0]))
            return results["fastamfm"][1], results["peer"][1]

        ours, theirs = compare("DSTC-6 20 systems, refs encoded once", lambda: scorer.score_systems(systems, refs),
                               peer_cached)
        errors = [w.check(ours[s], theirs[s], s) for s in systems]
        compare("DSTC-6 20 systems, refs re-encoded per system",
                lambda: {s: scorer.score(h, refs) for s, h in systems.items()},
                lambda: {s: peer.score(h, refs) for s, h in systems.items()})

        rng = np.random.default_rng(0)
        pool = [h for hyps in systems.values() for h in hyps]
        idx = rng.integers(0, len(refs), size=10_000)
        big_hyps = [pool[rng.integers(len(pool))] for _ in idx]
        big_refs = [refs[i][:4] for i in idx]
        ours_big, peer_big = compare("10k responses x 4 refs", lambda: scorer.score(big_hyps, big_refs),
                                     lambda: peer.score(big_hyps, big_refs))
        w.check(ours_big, peer_big, "10k x 4")

        batches = w.reward_batches(systems, refs, count=50)
        for h, r in batches[:3]:  # warm caches and check agreement on the reward itself
            np.testing.assert_allclose(scorer.reward(h, r), peer.score(h, r)[2], atol=w.FM_TOLERANCE)
        latency = {"ours": measure.median([measure.timed(lambda b=b: scorer.reward(*b))[0] for b in batches]),
                   "peer": measure.median([measure.timed(lambda b=b: peer.score(*b))[0] for b in batches])}
        rows.append(measure.speed_rows("reward latency, batch 64 x 4 refs (median of 50)", latency["peer"],
                                       latency["ours"]))

    am_err = max(e[0] for e in errors)
    fm_err = max(e[1] for e in errors)
    measure.print_table("AM-FM vs toolkit-style pipeline (sklearn CountVectorizer + numpy + kenlm)",
                        measure.SPEED_HEADER, rows,
                        [f"scores agree: max |AM diff| {am_err:.2e}, max |FM diff| {fm_err:.2e} over 20 x 2000 responses",
                         f"median of {args.repeats} interleaved repeats; {load}"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
