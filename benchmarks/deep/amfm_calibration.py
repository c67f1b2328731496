"""Measure DeepAMFM's fixed calibration: the center and scale (mean, standard deviation)
of each component on data whose licence lets derived numbers ship in the package.

- reference-free components (``am_context``, ``fm_context``, ``followup``): human turns of Amazon
  Topical-Chat (``../shared/data/topical_chat``, CDLA-Sharing-1.0: results of computational
  use are not subject to its share-alike terms), each scored against the dialogue before it;
- reference-based components (``am_reference``, ``fm_reference``): DSTC-6 system responses
  (``../shared/data/dstc6_t2_evaluation``) against their 11 references.

Never the DSTC-10 sets (non-commercial licences, and the data the defaults are chosen on).
Prints the ``Calibration(...)`` literal that ``fastamfm/deep/deep_amfm.py`` holds.

Usage:  OMP_WAIT_POLICY=PASSIVE python3 benchmarks/run.py deep amfm_calibration [--samples 400]
"""
from __future__ import annotations

import argparse
import json

import numpy as np

from benchmarks.shared_data import DSTC6, REFERENCE_FILES, SYSTEMS, TOPICAL_CHAT


def topical_chat_turns(samples: int, rng) -> tuple:
    """``samples`` (response, context) pairs: a random non-first turn of random conversations."""
    conversations = []
    for part in ("test_freq", "test_rare"):
        data = json.loads((TOPICAL_CHAT / f"{part}.json").read_text(encoding="utf-8"))
        conversations += [[m["message"] for m in c["content"]] for c in data.values()]
    picks = rng.choice(len(conversations), size=samples, replace=False)
    hyps, contexts = [], []
    for c in picks:
        turns = conversations[c]
        t = int(rng.integers(1, len(turns)))
        hyps.append(turns[t])
        contexts.append(turns[:t])
    return hyps, contexts


def dstc6_responses(samples: int, rng) -> tuple:
    from fastamfm.io import read_lines, read_parallel_files

    refs = read_parallel_files([DSTC6 / "references" / f for f in REFERENCE_FILES])
    systems = {s: read_lines(DSTC6 / "hypotheses" / f"{s}.txt") for s in SYSTEMS}
    hyps, picked = [], []
    for _ in range(samples):
        system, i = SYSTEMS[int(rng.integers(len(SYSTEMS)))], int(rng.integers(len(refs)))
        hyps.append(systems[system][i])
        picked.append(refs[i])
    return hyps, picked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--engine", default="transformers", help="NeuralLM engine (the default one without the "
                                                                 "llamacpp extra: transformers)")
    args = parser.parse_args()
    from fastamfm.deep.deep_amfm import DeepAMFM
    from fastamfm.neural.neural_lm import NeuralLM

    scorer = DeepAMFM(lm=NeuralLM.load(device="cpu", engine=args.engine), device="cpu")
    rng = np.random.default_rng(args.seed)
    hyps, contexts = topical_chat_turns(args.samples, rng)
    found = scorer.components(hyps, contexts=contexts)
    hyps, refs = dstc6_responses(args.samples, rng)
    found.update(scorer.components(hyps, refs))
    print(f"# {args.samples} Topical-Chat turns (context components), {args.samples} DSTC-6 responses x 11 "
          f"references (reference components), seed {args.seed}; {scorer.lm.fingerprint}")
    print("DEFAULT_CALIBRATION = Calibration(")
    for name in ("am_reference", "fm_reference", "am_context", "fm_context"):
        values = found[name]
        print(f"    {name}=Standardizer({values.mean():.4g}, {values.std():.4g}),")
    values = found["followup"]
    print(f'    source="topical-chat+dstc6:n={args.samples}:seed={args.seed}",\n'
          f"    followup=Standardizer({values.mean():.4g}, {values.std():.4g}),\n)")


if __name__ == "__main__":
    main()
