"""pytest-benchmark: one request served by ``fastamfm serve`` on loopback beside the same
batch scored in this process, the numbers asserted equal (bit for bit: the server runs the
same pipeline). compare.py measures the service under load with locust.

    python3 benchmarks/run.py serve --benchmark-group-by=group
"""
from __future__ import annotations

import pytest
from serve_process import Server

from benchmarks import shared_data
from benchmarks.serve import workloads as w

METRICS = ["bleu", "rouge_l", "amfm"]
GROUP = f"serve: {w.RESPONSES_PER_REQUEST} responses x {w.N_REFS} refs, {'+'.join(METRICS)}"


@pytest.fixture(scope="module")
def client():
    pytest.importorskip("uvicorn", reason="fastamfm serve needs the serve extra: pip install '.[serve]'")
    from fastamfm.client import Client

    with Server(start_seconds=w.START_SECONDS) as server:
        yield Client(server.url)


@pytest.fixture(scope="module")
def body():
    if not shared_data.DSTC6.exists():
        pytest.skip(f"{shared_data.DSTC6} is absent (this benchmark needs ../shared/data beside the checkout)")
    return w.classic_batches(1)[0]


@pytest.fixture(scope="module")
def expected(body):
    return w.pipeline_scorer(METRICS)(body)


@pytest.mark.benchmark(group=GROUP)
def test_served(benchmark, client, body, expected):
    served = benchmark(client.score, body["hyps"], body["refs"], METRICS)
    assert served.corpus == dict(expected.corpus)


@pytest.mark.benchmark(group=GROUP)
def test_in_process(benchmark, body, expected):
    score = w.pipeline_scorer(METRICS)
    assert dict(benchmark(score, body).corpus) == dict(expected.corpus)
