"""pytest-benchmark: fastamfm's overlap metrics beside the tools people use, same data.

    python3 benchmarks/run.py nlg --benchmark-group-by=group

The slow peers run one round (pedantic); every benchmark asserts the scores agree.
Workloads and peers: workloads.py (compare.py prints the same comparisons as
a table).
"""
from __future__ import annotations

import pytest

from benchmarks.nlg import workloads as w
from benchmarks.shared_data import DSTC6, SYSTEM_FILES

needs_dstc6 = pytest.mark.skipif(not DSTC6.exists(), reason=f"{DSTC6} is absent (needs ../shared/data)")
N_PEER = 10_000


@pytest.fixture(scope="module")
def synthetic_10k():
    return w.synthetic(N_PEER)


@pytest.fixture(scope="module")
def pycoco_first_system():
    return w.pycoco_systems(SYSTEM_FILES[:1])


@needs_dstc6
@pytest.mark.benchmark(group="dstc6: one system, BLEU+ROUGE-L+CIDEr from files")
def test_dstc6_system_pycocoevalcap(benchmark, pycoco_first_system):
    scores = benchmark.pedantic(w.pycoco_systems, args=(SYSTEM_FILES[:1],), rounds=1, iterations=1)
    assert scores == pycoco_first_system


@needs_dstc6
@pytest.mark.benchmark(group="dstc6: one system, BLEU+ROUGE-L+CIDEr from files")
def test_dstc6_system_fastamfm_evaluate(benchmark, pycoco_first_system):
    w.check_systems(benchmark(w.fastamfm_evaluate_systems, SYSTEM_FILES[:1]), pycoco_first_system)


@needs_dstc6
@pytest.mark.benchmark(group="dstc6: 20 systems, references prepared once")
def test_dstc6_all_systems_fastamfm_evaluate(benchmark, pycoco_first_system):
    w.check_systems(benchmark(w.fastamfm_evaluate_systems)[:1], pycoco_first_system)


@needs_dstc6
@pytest.mark.benchmark(group="dstc6: 20 systems, references prepared once")
def test_dstc6_all_systems_fastamfm_compute_metrics(benchmark, pycoco_first_system):
    w.check_systems(benchmark(w.fastamfm_compute_metrics_systems)[:1], pycoco_first_system)


@pytest.mark.benchmark(group="sentence BLEU (exp smoothing), 10k x 4 refs")
def test_sentence_bleu_sacrebleu(benchmark, synthetic_10k):
    scores = benchmark.pedantic(w.sacrebleu_sentence_bleu, args=synthetic_10k, rounds=1, iterations=1)
    w.check_sentence_bleu(w.fastamfm_sentence_bleu(*synthetic_10k), scores)


@pytest.mark.benchmark(group="sentence BLEU (exp smoothing), 10k x 4 refs")
def test_sentence_bleu_fastamfm(benchmark, synthetic_10k):
    scores = benchmark(w.fastamfm_sentence_bleu, *synthetic_10k)
    assert scores.shape == (N_PEER,)


@pytest.mark.benchmark(group="ROUGE-L (rouge-score rule), 10k x 4 refs")
def test_rouge_l_rouge_score(benchmark, synthetic_10k):
    scores = benchmark.pedantic(w.rouge_score_rouge_l, args=synthetic_10k, rounds=1, iterations=1)
    w.check_rouge_l(w.fastamfm_rouge_l(*synthetic_10k), scores)


@pytest.mark.benchmark(group="ROUGE-L (rouge-score rule), 10k x 4 refs")
def test_rouge_l_fastamfm(benchmark, synthetic_10k):
    scores = benchmark(w.fastamfm_rouge_l, *synthetic_10k)
    assert len(scores) == N_PEER
