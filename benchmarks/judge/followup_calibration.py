"""Measure a fixed calibration of ``followup`` (its center and scale: mean and standard
deviation) on the text DeepAMFM's reference-free components are calibrated on, so that
followup can be added to them on one scale without statistics of the scored batch.

The data is ``benchmarks/deep/amfm_calibration.py``'s: the same 400 human turns of Amazon
Topical-Chat (seed 0), each scored after the dialogue before it; never the DSTC-10 sets.
Prints the ``Standardizer(...)`` of the default follow-up set.

Usage:  OMP_WAIT_POLICY=PASSIVE python3 benchmarks/run.py judge followup_calibration [--samples 400]
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np

from benchmarks.deep.amfm_calibration import topical_chat_turns
from benchmarks.judge import workloads as w


@dataclass(frozen=True)
class CalibrationTurns:
    """Unrated turns in the shape the judge cache takes (a name, replies, contexts)."""

    name: str
    hyps: list
    contexts: list

    def __len__(self) -> int:
        return len(self.hyps)


def calibration_turns(samples: int, seed: int) -> CalibrationTurns:
    """The Topical-Chat turns DeepAMFM's context components were calibrated on."""
    hyps, contexts = topical_chat_turns(samples, np.random.default_rng(seed))
    return CalibrationTurns(f"topical-chat-calibration.n{samples}.seed{seed}", hyps, contexts)


def calibration_log_probs(scorer, samples: int = 400, seed: int = 0) -> np.ndarray:
    """Every follow-up's mean ln p [n, K] on the calibration turns (``scorer``: a
    ``FollowupScorer``), cached like the rated sets' (``workloads.followup_log_probs``)."""
    return w.followup_log_probs(scorer, calibration_turns(samples, seed))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lm", help="the causal LM (default: the packaged SmolLM2-135M-Instruct)")
    args = parser.parse_args()
    import torch
    from fastamfm.deep.followup import CANDIDATE_NEGATIVE, CANDIDATE_POSITIVE, FollowupScorer, combine
    from fastamfm.neural.neural_lm import NeuralLM

    torch.set_num_threads(2)
    lm = NeuralLM.load(*([args.lm] if args.lm else []), device="cpu")
    scorer = FollowupScorer(lm, positive=CANDIDATE_POSITIVE, negative=CANDIDATE_NEGATIVE)
    values = combine(calibration_log_probs(scorer, args.samples, args.seed), len(CANDIDATE_POSITIVE))
    print(f"# followup (default set) on {args.samples} Topical-Chat turns, seed {args.seed}")
    print(f"FOLLOWUP_CALIBRATION = Standardizer({values.mean():.4g}, {values.std():.4g})")


if __name__ == "__main__":
    main()
