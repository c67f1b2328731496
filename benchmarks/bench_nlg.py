"""pytest-benchmark: fastamfm's overlap metrics beside the tools people use, same data.

    PYTHONPATH=python python3 -m pytest benchmarks/bench_nlg.py --benchmark-group-by=group

The slow peers run one round (pedantic); every benchmark asserts the scores agree.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fastamfm  # noqa: E402
from _nlg_data import DSTC6, REFERENCE_FILES, SYSTEM_FILES, pycoco_score_system, synthetic  # noqa: E402

needs_dstc6 = pytest.mark.skipif(not DSTC6.exists(), reason=f"{DSTC6} is absent (needs ../shared/data)")
N_PEER = 10_000
# What pycocoevalcap computes here (compute_metrics' default now adds METEOR and AM-FM).
OVERLAP_KEYS = ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "ROUGE_L", "CIDEr"]


@pytest.fixture(scope="module")
def synthetic_10k():
    return synthetic(N_PEER)


@pytest.fixture(scope="module")
def dstc6_expected():
    return pycoco_score_system(SYSTEM_FILES[0], REFERENCE_FILES)


@needs_dstc6
@pytest.mark.benchmark(group="dstc6: one system, BLEU+ROUGE-L+CIDEr from files")
def test_dstc6_system_pycocoevalcap(benchmark, dstc6_expected):
    scores = benchmark.pedantic(pycoco_score_system, args=(SYSTEM_FILES[0], REFERENCE_FILES), rounds=1, iterations=1)
    assert scores == dstc6_expected


@needs_dstc6
@pytest.mark.benchmark(group="dstc6: one system, BLEU+ROUGE-L+CIDEr from files")
def test_dstc6_system_fastamfm(benchmark, dstc6_expected):
    scores = benchmark(fastamfm.compute_metrics, str(SYSTEM_FILES[0]), [str(p) for p in REFERENCE_FILES],
                       metrics=OVERLAP_KEYS)
    for key, value in dstc6_expected.items():
        assert scores[key] == pytest.approx(value, rel=1e-12)


@needs_dstc6
@pytest.mark.benchmark(group="dstc6: 20 systems, references encoded once")
def test_dstc6_all_systems_fastamfm(benchmark, dstc6_expected):
    def run():
        refs = fastamfm.References.from_files(REFERENCE_FILES)
        return [fastamfm.compute_metrics(str(path), refs, metrics=OVERLAP_KEYS) for path in SYSTEM_FILES]

    scores = benchmark(run)
    assert scores[0]["CIDEr"] == pytest.approx(dstc6_expected["CIDEr"], rel=1e-12)


@pytest.mark.benchmark(group="sentence BLEU (exp smoothing), 10k x 4 refs")
def test_sentence_bleu_sacrebleu(benchmark, synthetic_10k):
    from sacrebleu.metrics import BLEU

    hyps, refs = synthetic_10k
    scorer = BLEU(tokenize="none", effective_order=True)
    scores = benchmark.pedantic(lambda: [scorer.sentence_score(h, r).score / 100 for h, r in zip(hyps, refs)],
                                rounds=1, iterations=1)
    np.testing.assert_allclose(fastamfm.bleu(hyps, refs, smooth="exp").sentences[:, 3], scores, rtol=1e-12)


@pytest.mark.benchmark(group="sentence BLEU (exp smoothing), 10k x 4 refs")
def test_sentence_bleu_fastamfm(benchmark, synthetic_10k):
    hyps, refs = synthetic_10k
    res = benchmark(fastamfm.bleu, hyps, refs, smooth="exp")
    assert res.sentences.shape == (N_PEER, 4)


@pytest.mark.benchmark(group="ROUGE-L (rouge-score rule), 10k x 4 refs")
def test_rouge_l_rouge_score(benchmark, synthetic_10k):
    from rouge_score.rouge_scorer import RougeScorer

    hyps, refs = synthetic_10k
    scorer = RougeScorer(["rougeL"])
    scores = benchmark.pedantic(lambda: [scorer.score_multi(r, h)["rougeL"].fmeasure for h, r in zip(hyps, refs)],
                                rounds=1, iterations=1)
    assert fastamfm.rouge_l(hyps, refs, beta=1.0, multi_ref="max-f").sentences.tolist() == scores


@pytest.mark.benchmark(group="ROUGE-L (rouge-score rule), 10k x 4 refs")
def test_rouge_l_fastamfm(benchmark, synthetic_10k):
    hyps, refs = synthetic_10k
    res = benchmark(fastamfm.rouge_l, hyps, refs, beta=1.0, multi_ref="max-f")
    assert len(res.sentences) == N_PEER
