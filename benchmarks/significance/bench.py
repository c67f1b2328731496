"""pytest-benchmark: fastamfm's paired bootstrap beside sacrebleu's, same DSTC-6 work.

    python3 benchmarks/run.py significance --benchmark-group-by=group

sacrebleu runs one round (pedantic); every benchmark asserts the p-values agree.
compare.py prints the full 20-system comparison as a table.
"""
from __future__ import annotations

import pytest

from benchmarks.shared_data import DSTC6
from benchmarks.significance import workloads as w

needs_dstc6 = pytest.mark.skipif(not DSTC6.exists(), reason=f"{DSTC6} is absent (needs ../shared/data)")
SYSTEMS = ["S_1", "S_2", "S_5", "S_9", "S_10"]   # a 5-system slice: sacrebleu takes minutes for all 20


@pytest.fixture(scope="module")
def inputs():
    pytest.importorskip("sacrebleu")
    systems, refs = w.dstc6()
    systems = {s: systems[s] for s in SYSTEMS}
    return systems, refs, w.tokenize_13a(systems, refs)


@pytest.fixture(scope="module")
def sacrebleu_result(inputs):
    systems, refs, _ = inputs
    return w.sacrebleu_paired_bs(systems, refs)


@needs_dstc6
@pytest.mark.benchmark(group="dstc6: 5 systems, paired bootstrap BLEU, 1000 resamples")
def test_sacrebleu_paired_bs(benchmark, inputs, sacrebleu_result):
    systems, refs, _ = inputs
    result = benchmark.pedantic(w.sacrebleu_paired_bs, args=(systems, refs), rounds=1, iterations=1)
    assert {s: r.p_value for s, r in result.items()} == {s: r.p_value for s, r in sacrebleu_result.items()}


@needs_dstc6
@pytest.mark.benchmark(group="dstc6: 5 systems, paired bootstrap BLEU, 1000 resamples")
def test_fastamfm_compare_systems_bleu(benchmark, inputs, sacrebleu_result):
    _, _, (systems, refs) = inputs
    result = benchmark.pedantic(w.fastamfm_compare, args=(systems, refs, ["bleu"]), rounds=3, iterations=1)
    assert w.check_agreement(result, sacrebleu_result) < 1e-12


@needs_dstc6
@pytest.mark.benchmark(group="dstc6: 5 systems, paired bootstrap, BLEU+METEOR+ROUGE-L+CIDEr")
def test_fastamfm_compare_systems_four_metrics(benchmark, inputs):
    systems, refs, _ = inputs
    result = benchmark.pedantic(w.fastamfm_compare, args=(systems, refs, ["bleu", "meteor", "rouge_l", "cider"]),
                                rounds=3, iterations=1)
    assert len(result.systems) == len(SYSTEMS)
