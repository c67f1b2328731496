"""fastamfm's AM-FM next to the toolkit-style pipeline (scikit-learn + numpy + kenlm), same run.

    python benchmarks/compare_amfm.py [--data ../shared/data] [--repeats 3]

Both sides use the same models (trained by fastamfm on the twcs_airlines agent turns:
100 LSI dimensions, raw counts; trigram Kneser-Ney LM, written as ARPA for kenlm) and
must give the same scores (asserted). Tasks: the 20 DSTC-6 systems (2000 responses x
11 references each) with the references encoded once and re-encoded per system, a
10k x 4 batch, and `reward` latency for batches of 64 responses x 4 references.
Times are medians of the repeats; ratio = peer / fastamfm.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "python"))
sys.path.insert(0, str(HERE))

from amfm_peer import ToolkitPeer  # noqa: E402
from reproduce_dstc6 import REFERENCE_FILES, SYSTEMS, agent_turns  # noqa: E402

from fastamfm import AMFM  # noqa: E402
from fastamfm.io import read_lines, read_parallel_files  # noqa: E402

AM_TOLERANCE = 1e-5  # float32 U_k, float64 sums on both sides
FM_TOLERANCE = 1e-4  # kenlm stores float32 log-probabilities


def median_time(fn, repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def check_equal(ours, peer, what: str) -> tuple[float, float]:
    am_err = float(np.max(np.abs(ours.am - peer[0])))
    fm_err = float(np.max(np.abs(ours.fm - peer[1])))
    assert am_err <= AM_TOLERANCE, f"{what}: AM differs by {am_err}"
    assert fm_err <= FM_TOLERANCE, f"{what}: FM differs by {fm_err}"
    return am_err, fm_err


def setup(data: Path, workdir: Path):
    dstc6 = data / "dstc6_t2_evaluation"
    scorer = AMFM.train(agent_turns(data / "twcs_airlines"), dims=100, order=3, smoothing="kneser-ney",
                        tokenize="whitespace", lam=0.5)
    arpa = workdir / "lm.arpa"
    scorer.lm.save_arpa(arpa)
    peer = ToolkitPeer(scorer.lsi, arpa, lam=0.5)
    refs = read_parallel_files([dstc6 / "references" / f for f in REFERENCE_FILES])
    systems = {s: read_lines(dstc6 / "hypotheses" / f"{s}.txt") for s in SYSTEMS}
    return scorer, peer, systems, refs


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(HERE.parents[1] / "shared" / "data"))
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="fastamfm-compare-") as tmp:
        scorer, peer, systems, refs = setup(Path(args.data), Path(tmp))

        def ours_cached():
            return scorer.score_systems(systems, refs)

        def peer_cached():
            encoded = peer.encode_references(refs)
            return {s: peer.score(h, refs, encoded) for s, h in systems.items()}

        t_ours, ours = median_time(ours_cached, args.repeats)
        t_peer, theirs = median_time(peer_cached, args.repeats)
        errors = [check_equal(ours[s], theirs[s], s) for s in systems]
        rows.append(("DSTC-6 20 systems, refs encoded once", t_ours, t_peer))

        t_ours, _ = median_time(lambda: {s: scorer.score(h, refs) for s, h in systems.items()}, args.repeats)
        t_peer, _ = median_time(lambda: {s: peer.score(h, refs) for s, h in systems.items()}, args.repeats)
        rows.append(("DSTC-6 20 systems, refs re-encoded per system", t_ours, t_peer))

        rng = np.random.default_rng(0)
        pool = [h for hyps in systems.values() for h in hyps]
        idx = rng.integers(0, len(refs), size=10_000)
        big_hyps = [pool[rng.integers(len(pool))] for _ in idx]
        big_refs = [refs[i][:4] for i in idx]
        t_ours, ours_big = median_time(lambda: scorer.score(big_hyps, big_refs), args.repeats)
        t_peer, peer_big = median_time(lambda: peer.score(big_hyps, big_refs), args.repeats)
        check_equal(ours_big, peer_big, "10k x 4")
        rows.append(("10k responses x 4 refs", t_ours, t_peer))

        batches = [([pool[j] for j in rng.integers(0, len(pool), 64)],
                    [refs[j][:4] for j in rng.integers(0, len(refs), 64)]) for _ in range(50)]
        for h, r in batches[:3]:  # warm caches and check agreement on the reward itself
            np.testing.assert_allclose(scorer.reward(h, r), peer.score(h, r)[2], atol=FM_TOLERANCE)
        lat_ours = statistics.median(median_time(lambda b=b: scorer.reward(*b), 1)[0] for b in batches)
        lat_peer = statistics.median(median_time(lambda b=b: peer.score(*b), 1)[0] for b in batches)
        rows.append(("reward latency, batch 64 x 4 refs", lat_ours, lat_peer))

    am_err = max(e[0] for e in errors)
    fm_err = max(e[1] for e in errors)
    print(f"AM-FM vs toolkit-style pipeline (sklearn CountVectorizer + numpy + kenlm), median of {args.repeats}")
    print(f"scores agree: max |AM diff| {am_err:.2e}, max |FM diff| {fm_err:.2e} over 20 x 2000 responses\n")
    print(f"{'task':<48}{'fastamfm':>12}{'peer':>12}{'ratio':>9}")
    for name, ours_t, peer_t in rows:
        unit, scale = ("ms", 1e3) if ours_t < 0.1 else ("s", 1.0)
        print(f"{name:<48}{ours_t * scale:>10.2f}{unit:>2}{peer_t * scale:>10.2f}{unit:>2}{peer_t / ours_t:>8.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
