"""Responses/s of reference-free Deep AM-FM against the length of the dialogue context:
Deep AM (the context cosine), Deep FM (the context PMI) and the whole scorer (the default
``am+fm``, ``am+fm+followup``, and ``compare_systems`` of 4 systems answering the same
contexts: the corpus deep_amfm of each, per response), on Topical-Chat conversations cut to
1 .. 20 turns of context before the same replies (packaged models, float32, CPU, two threads).

    OMP_WAIT_POLICY=PASSIVE python3 benchmarks/run.py deep context_length \\
        [--turns 1,2,5,10,15,20] [--responses 32] [--repeats 3] [--baseline OTHER/python] [--data ../shared/data]

Each side (this checkout's python/, and ``--baseline``: another checkout's python/ holding a
compiled module, such as the commit before a change) runs each context length in a child
process of its own that loads the models, then times it: a warm-up call on other replies,
then the median of ``--repeats`` calls on the measured ones. The sides alternate per
context length (a change of load on shared cores hits both alike) and each checks that it
computes the same numbers as the other (largest difference printed). Reported:
responses/s per component and context length, the prefix tokens the LM reads per reply
(after trimming to the model's context budget), and the speed-up of this checkout over
the baseline.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from benchmarks import measure
from benchmarks.shared_data import SHARED_DATA

REPO = Path(__file__).resolve().parents[2]
SYSTEMS = 4
COMPONENTS = ("am", "fm", "amfm (am+fm)", "amfm (am+fm+followup)", f"amfm, {SYSTEMS} systems (compare_systems)")

CHILD = r"""
import json, statistics, sys, time
import numpy as np
import torch
import fastamfm
from fastamfm.analysis.system_comparison import ScoredSystems
from fastamfm.deep.deep_amfm import DeepAMFM

torch.set_num_threads(2)
work = json.loads(sys.stdin.read())
deep = DeepAMFM.default(device="cpu", context_combination="am+fm")
followup = DeepAMFM(encoder=deep.encoder, lm=deep.lm, device="cpu", context_combination="am+fm+followup")


def systems_amfm(hyps, contexts, k=work["systems"]):
    # k systems answering the same contexts: system j's replies are the measured ones rotated by j
    systems = {f"s{j}": hyps[j:] + hyps[:j] for j in range(k)}
    scored = ScoredSystems.score(systems, contexts=contexts, metrics=["deep_amfm"], model=deep)
    return [scored.corpus[name]["deep_amfm"] for name in systems]


calls = {
    "am": lambda h, c: deep.am_context(h, c),
    "fm": lambda h, c: deep.fm_context(h, c),
    "amfm (am+fm)": lambda h, c: deep.score(h, contexts=c).sentences["deep_amfm"],
    "amfm (am+fm+followup)": lambda h, c: followup.score(h, contexts=c).sentences["deep_amfm"],
    f"amfm, {work['systems']} systems (compare_systems)": systems_amfm,
}
out = {}
for turns, case in work["cases"].items():
    hyps, contexts, warm_hyps, warm_contexts = case
    row = {"prefix_tokens": float(np.mean([len(r.prefix) for r in deep.lm.requests(hyps, contexts)]))}
    for name, call in calls.items():
        call(warm_hyps, warm_contexts)
        times, values = [], None
        for _ in range(work["repeats"]):
            start = time.perf_counter()
            values = np.asarray(call(hyps, contexts), dtype=np.float64)
            times.append(time.perf_counter() - start)
        row[name] = {"seconds": statistics.median(times), "values": values.tolist()}
    out[turns] = row
print(json.dumps(out))
"""


def conversations(data: Path, turns: int, count: int) -> list:
    """``count`` Topical-Chat conversations with at least ``turns`` + 1 turns: each a list of messages."""
    found = []
    for name in ("test_freq.json", "test_rare.json", "valid_freq.json", "valid_rare.json"):
        for conversation in json.loads((data / "topical_chat" / name).read_text()).values():
            messages = [m["message"].strip() for m in conversation["content"]]
            if len(messages) > turns and all(messages[:turns + 1]):
                found.append(messages)
            if len(found) == count:
                return found
    raise SystemExit(f"only {len(found)} Topical-Chat conversations have {turns + 1} turns")


def cases(data: Path, lengths: list, responses: int) -> dict:
    """Per context length k: the reply at turn max(lengths) of each conversation with its k
    turns before it (the same replies at every k), and warm-up replies of other conversations."""
    longest = max(lengths)
    talks = conversations(data, longest, 2 * responses)
    measured, warm = talks[:responses], talks[responses:]

    def cut(group, k):
        return [t[longest] for t in group], [t[longest - k:longest] for t in group]

    return {str(k): (*cut(measured, k), *cut(warm[:4], k)) for k in lengths}


def run_side(python_dir: Path, work: dict) -> dict:
    env = dict(os.environ, PYTHONPATH=str(python_dir), OMP_WAIT_POLICY="PASSIVE", TRANSFORMERS_VERBOSITY="error")
    proc = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(work), env=env, capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{python_dir}: {proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--turns", default="1,2,5,10,15,20")
    parser.add_argument("--responses", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=1, help="alternations of the sides (the median is kept)")
    parser.add_argument("--baseline", type=Path, help="another checkout's python/ (with its compiled module)")
    args = parser.parse_args(argv)
    lengths = [int(k) for k in args.turns.split(",")]
    work = {"cases": cases(args.data, lengths, args.responses), "repeats": args.repeats, "systems": SYSTEMS}
    sides = {"this checkout": REPO / "python"}
    if args.baseline:
        sides["baseline"] = args.baseline
    # One child per side and context length, the sides alternating: a change of load on shared
    # cores between lengths hits both sides alike.
    results = {name: [{} for _ in range(args.rounds)] for name in sides}
    with measure.LoadMonitor() as load:
        for r in range(args.rounds):
            for k in lengths:
                for name, python_dir in sides.items():
                    results[name][r].update(run_side(python_dir, {**work, "cases": {str(k): work["cases"][str(k)]}}))

    def responses(component):
        return args.responses * (SYSTEMS if "systems" in component else 1)

    def seconds(name, k, component):
        return float(np.median([r[str(k)][component]["seconds"] for r in results[name]]))

    header = ["context turns", "prefix tokens"] + [f"{c} responses/s" for c in COMPONENTS]
    for name in sides:
        rows = [[str(k), f"{results[name][0][str(k)]['prefix_tokens']:.0f}"] +
                [f"{responses(c) / seconds(name, k, c):.2f}" for c in COMPONENTS] for k in lengths]
        measure.print_table(f"{name}: {args.responses} Topical-Chat replies per context length", header, rows,
                            [f"median of {args.repeats} calls x {args.rounds} rounds; {load}"])
    if args.baseline:
        rows, gaps = [], []
        for k in lengths:
            row = [str(k)]
            for c in COMPONENTS:
                row.append(measure.ratio(seconds("baseline", k, c) / seconds("this checkout", k, c)))
                ours = np.asarray(results["this checkout"][0][str(k)][c]["values"])
                theirs = np.asarray(results["baseline"][0][str(k)][c]["values"])
                gaps.append(float(np.max(np.abs(ours - theirs))))
            rows.append(row)
        measure.print_table("speed-up of this checkout over the baseline (same replies, same run)",
                            ["context turns"] + list(COMPONENTS), rows,
                            [f"largest difference in any score between the two: {max(gaps):.3g}"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
