"""Workloads of the significance benchmarks: DSTC-6's 20 systems compared with paired
bootstrap resampling by fastamfm (``compare_systems``) and by sacrebleu (its Python API
for ``--paired-bs``), on the same text.

sacrebleu tokenises with its own 13a tokenizer; fastamfm has no 13a preset, so its BLEU
input is the same text tokenised once by sacrebleu's ``Tokenizer13a`` (timed apart) and
split on whitespace: with identical draws (seed 12345, sacrebleu's default) the two give
identical BLEU and p-values.
"""
from __future__ import annotations

import os

from benchmarks import shared_data

SACREBLEU_SEED = 12345


def dstc6():
    """({system: responses}, references per segment): the 20 systems, 11 references."""
    return shared_data.dstc6_systems(), shared_data.dstc6_references()


def tokenize_13a(systems: dict, refs: list) -> tuple[dict, list]:
    """sacrebleu's 13a tokenisation of every response and reference (fastamfm's BLEU input)."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    tok = Tokenizer13a()
    return ({s: [tok(h.rstrip()) for h in hyps] for s, hyps in systems.items()},
            [[tok(r.rstrip()) for r in rs] for rs in refs])


def sacrebleu_paired_bs(systems: dict, refs: list, resamples: int = 1000, seed: int = SACREBLEU_SEED) -> dict:
    """{system: sacrebleu Result (score on 0-100, p_value vs the first system, mean, ci)}."""
    from sacrebleu.metrics import BLEU
    from sacrebleu.significance import PairedTest

    os.environ["SACREBLEU_SEED"] = str(seed)
    streams = [[r[k] for r in refs] for k in range(len(refs[0]))]
    test = PairedTest(list(systems.items()), {"BLEU": BLEU(force=True)}, streams, test_type="bs", n_samples=resamples)
    _, scores = test()
    return dict(zip(scores["System"], scores["BLEU"]))


def fastamfm_compare(systems: dict, refs, metrics, resamples: int = 1000, seed: int = SACREBLEU_SEED, **options):
    import fastamfm

    return fastamfm.compare_systems(systems, refs, metrics=metrics, resamples=resamples, seed=seed,
                                    correction="none", **options)


def check_agreement(ours, theirs: dict) -> float:
    """Largest |p_fastamfm - p_sacrebleu| over the systems (BLEU-4), after checking the
    scores agree."""
    worst = 0.0
    for system, result in theirs.items():
        row = ours[system, "Bleu_4"]
        if abs(row.score * 100 - result.score) > 1e-9 * max(1.0, result.score):
            raise AssertionError(f"{system}: BLEU {row.score * 100} vs sacrebleu {result.score}")
        if result.p_value is not None:
            worst = max(worst, abs(row.p_value - result.p_value))
    return worst
