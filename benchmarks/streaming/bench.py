"""pytest-benchmark: the pipeline on a stream of responses -- ``score_files`` in this
process, the ``fastamfm score`` command line in a child process, and ``evaluate`` on
the same data in memory -- with the corpus scores asserted equal across the three.

    python3 benchmarks/run.py streaming --benchmark-group-by=group

50k synthetic responses x 4 references (3 chunks of 20k), metrics AM, FM, AM-FM,
BLEU, ROUGE-L with the packaged default model. compare.py measures 1M
responses (throughput, CPU time, peak RSS) against other fastamfm trees. Workloads:
workloads.py.
"""
from __future__ import annotations

import json

import fastamfm
import pytest

from benchmarks.streaming import workloads as w

N = 50_000
GROUP = f"streaming: {N // 1000}k x {w.N_REFS} refs, {w.METRICS}"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return w.synthetic_files(tmp_path_factory.mktemp("stream"), N, w.model_vocabulary())


@pytest.fixture(scope="module")
def expected(files):
    """The corpus scores of the whole input scored at once, in memory."""
    hyps, refs = w.read_texts(files)
    return dict(fastamfm.evaluate(hyps, refs, metrics=w.METRICS).corpus)


def check(corpus: dict, expected: dict) -> None:
    assert corpus.keys() == expected.keys()
    for column, value in expected.items():
        assert corpus[column] == pytest.approx(value, rel=1e-12, abs=1e-15), column


@pytest.mark.benchmark(group=GROUP)
def test_score_files_in_process(benchmark, files, expected, tmp_path):
    summary = benchmark.pedantic(w.score_in_process, args=(files, tmp_path / "scores.jsonl"), rounds=3, iterations=1)
    assert summary["responses"] == N
    check(summary["corpus"], expected)


@pytest.mark.benchmark(group=GROUP)
def test_cli_child_process(benchmark, files, expected, tmp_path):
    out = tmp_path / "scores.jsonl"
    timing, summary = benchmark.pedantic(w.run_cli, args=(files, out), rounds=3, iterations=1)
    benchmark.extra_info.update(cpu_s=timing.cpu, peak_rss_mib=timing.peak_mib)
    with open(out, encoding="utf-8") as f:
        rows = f.readlines()
    assert len(rows) == N and json.loads(rows[0]).keys() >= {"AM", "FM", "AM-FM", "ROUGE_L"}
    check(summary["corpus"], expected)


@pytest.mark.benchmark(group=GROUP)
def test_evaluate_in_memory(benchmark, files, expected):
    hyps, refs = w.read_texts(files)
    result = benchmark.pedantic(fastamfm.evaluate, args=(hyps, refs), kwargs={"metrics": w.METRICS}, rounds=3,
                                iterations=1)
    check(result.corpus, expected)
