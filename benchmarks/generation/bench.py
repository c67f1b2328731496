"""pytest-benchmark: fastamfm's generation metrics beside the tools people use, same data.

    python3 benchmarks/run.py generation --benchmark-group-by=group

The slow peers run one round (pedantic); every benchmark asserts the scores agree.
Workloads and peers: workloads.py (compare.py prints the same comparisons as a table).
"""
from __future__ import annotations

import pytest

from benchmarks.generation import workloads as w
from benchmarks.shared_data import DSTC6

needs_dstc6 = pytest.mark.skipif(not DSTC6.exists(), reason=f"{DSTC6} is absent (needs ../shared/data)")


@pytest.fixture(scope="module")
def one_system():
    systems, refs = w.dstc6()
    return {"S_1": systems["S_1"]}, refs


@pytest.fixture(scope="module")
def sacrebleu_one_system(one_system):
    return w.sacrebleu_systems(*one_system)


@needs_dstc6
@pytest.mark.benchmark(group="sacreBLEU corpus+sentence, one DSTC-6 system")
def test_sacrebleu_peer(benchmark, one_system, sacrebleu_one_system):
    result = benchmark.pedantic(w.sacrebleu_systems, args=one_system, rounds=1, iterations=1)
    w.check_sacrebleu(result, sacrebleu_one_system)


@needs_dstc6
@pytest.mark.benchmark(group="sacreBLEU corpus+sentence, one DSTC-6 system")
def test_sacrebleu_fastamfm(benchmark, one_system, sacrebleu_one_system):
    w.check_sacrebleu(benchmark(w.fastamfm_sacrebleu_systems, *one_system), sacrebleu_one_system)


@needs_dstc6
@pytest.mark.benchmark(group="chrF 256 x 256 pairwise")
def test_chrf_pairwise_fastchrf(benchmark):
    pytest.importorskip("fastchrf")
    c, r = w.pairwise_texts(256)
    w.check_pairwise(w.fastamfm_chrf_pairwise(c, r), benchmark(w.fastchrf_pairwise, c, r))


@needs_dstc6
@pytest.mark.benchmark(group="chrF 256 x 256 pairwise")
def test_chrf_pairwise_fastamfm(benchmark):
    c, r = w.pairwise_texts(256)
    w.check_pairwise(benchmark(w.fastamfm_chrf_pairwise, c, r), w.sacrebleu_chrf_pairwise(c[:4], r))


@needs_dstc6
@pytest.mark.benchmark(group="rouge1/2/L/Lsum, 300 DSTC-6 responses x 11 references")
def test_rouge_peer(benchmark, one_system):
    systems, refs = one_system
    subset = {"S_1": systems["S_1"][:300]}
    expected = benchmark.pedantic(w.rouge_score_systems, args=(subset, refs[:300]), rounds=1, iterations=1)
    w.check_rouge(w.fastamfm_rouge_systems(subset, refs[:300]), expected)


@needs_dstc6
@pytest.mark.benchmark(group="rouge1/2/L/Lsum, 300 DSTC-6 responses x 11 references")
def test_rouge_fastamfm(benchmark, one_system):
    systems, refs = one_system
    subset = {"S_1": systems["S_1"][:300]}
    w.check_rouge(benchmark(w.fastamfm_rouge_systems, subset, refs[:300]), w.rouge_score_systems(subset, refs[:300]))


@needs_dstc6
@pytest.mark.benchmark(group="Self-BLEU, one DSTC-6 system")
def test_self_bleu_fast_bleu(benchmark, one_system):
    pytest.importorskip("fast_bleu")
    result = benchmark.pedantic(w.fast_bleu_self_bleu, args=(one_system[0],), rounds=1, iterations=1)
    w.check_self_bleu(w.fastamfm_self_bleu(one_system[0]), result)


@needs_dstc6
@pytest.mark.benchmark(group="Self-BLEU, one DSTC-6 system")
def test_self_bleu_fastamfm(benchmark, one_system):
    result = benchmark(w.fastamfm_self_bleu, one_system[0])
    assert len(result[0]) == 2000


@pytest.mark.benchmark(group="token-id BLEU, 256 x 64 ids x 4 refs, CPU")
def test_token_bleu_tensorbleu(benchmark):
    pytest.importorskip("rxlm")
    h, r = w.token_batch()
    w.check_token_bleu(w.fastamfm_token_bleu(h, r), benchmark(w.tensorbleu_sentence_bleu, h, r))


@pytest.mark.benchmark(group="token-id BLEU, 256 x 64 ids x 4 refs, CPU")
def test_token_bleu_fastamfm(benchmark):
    pytest.importorskip("torch")
    h, r = w.token_batch()
    result = benchmark(w.fastamfm_token_bleu, h, r)
    assert result.shape == (256,)
