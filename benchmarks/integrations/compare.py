"""What the TRL reward function adds over ``AMFM.reward``: 64 completions x 4 references, same run.

    python3 benchmarks/run.py integrations compare [--repeats 300]

Sides, called in turn repeat after repeat (so a change of load hits all alike):
``AMFM.reward(hyps, refs)`` on the packaged model, and ``reward_function("amfm")``
called with TRL's keyword arguments (plain and conversational completions, the
``references`` column, ``trainer_state``, ``log_metric``...). The rewards must be equal
(asserted). Reported: median wall and CPU time per call, and the overhead (median of
the reward function minus median of the direct call); the budget is 2 ms.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from benchmarks import measure
from benchmarks.integrations import workloads as w
from benchmarks.shared_data import DSTC6, require

BUDGET = 2e-3


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=300)
    args = parser.parse_args(argv)
    require(DSTC6)
    from fastamfm import AMFM
    from fastamfm.integrations.trl import reward_function

    hyps, refs = w.reward_batch()
    scorer, reward = AMFM.default(), reward_function("amfm")
    plain, chat = w.trl_call(hyps, refs, conversational=False), w.trl_call(hyps, refs)
    sides = {"AMFM.reward (direct)": lambda: measure.timed(lambda: scorer.reward(hyps, refs)),
             "reward_function, plain": lambda: measure.timed(lambda: reward(**plain)),
             "reward_function, conversational": lambda: measure.timed(lambda: reward(**chat))}
    for fn in sides.values():   # warm-up: the model's pages, the tokenizer's first call
        fn()
    with measure.LoadMonitor() as load:
        results = measure.interleaved(sides, args.repeats)
    direct = results["AMFM.reward (direct)"]
    for name, (_, out) in results.items():
        assert np.array_equal(np.float32(out), direct[1]), name
    rows = [[name, measure.seconds(t.wall), measure.seconds(t.cpu),
             "" if name == "AMFM.reward (direct)" else f"{(t.wall - direct[0].wall) * 1e3:+.3f} ms"]
            for name, (t, _) in results.items()]
    worst = max(results[n][0].wall - direct[0].wall for n in results if n != "AMFM.reward (direct)")
    measure.print_table(f"TRL reward, AM-FM (packaged model), {w.SIZE} completions x {w.N_REFS} references, "
                        f"median of {args.repeats} interleaved calls",
                        ["side", "wall", "CPU", "overhead (wall)"], rows,
                        [str(load), f"largest overhead {worst * 1e3:+.3f} ms: "
                                    f"{'within' if worst < BUDGET else 'OVER'} the {BUDGET * 1e3:g} ms budget"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
