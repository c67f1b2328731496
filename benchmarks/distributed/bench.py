"""pytest-benchmark: fastamfm.distributed on a 2-worker LocalCluster beside single-process
``score_files``, same files, same cores; every run's output must equal the single-process one.

    python3 benchmarks/run.py distributed --benchmark-group-by=group

Groups per metric set (N=50k responses x 4 references, partitions of 5000): the
single-process streamer (C++ threads on every core) and ``fastamfm.distributed.score`` on
a cluster started once for the module (as ``--local-workers 2`` starts it).
benchmarks/distributed/compare.py prints the 200k comparison with CPU times and the
cluster's start included.
"""
from __future__ import annotations

import shutil

import pytest

pytest.importorskip("distributed")

import fastamfm  # noqa: E402
import fastamfm.distributed  # noqa: E402
from fastamfm.amfm.scorer import resolve_model  # noqa: E402
from fastamfm.distributed.command import connect  # noqa: E402

from benchmarks.streaming.workloads import synthetic_files  # noqa: E402

N = 50_000
PARTITION = 5_000
METRIC_SETS = {"am,fm,amfm": ["am", "fm", "amfm"], "bleu,rouge_l,cider,am,fm,amfm":
               ["bleu", "rouge_l", "cider", "am", "fm", "amfm"]}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return [str(p) for p in synthetic_files(tmp_path_factory.mktemp("dist") / "data", N,
                                            resolve_model("default").lsi.vocabulary)]


@pytest.fixture(scope="module")
def client():
    with connect(None, 2) as client:
        yield client


@pytest.fixture(scope="module")
def single_rows(files, tmp_path_factory):
    out = {}
    for name, metrics in METRIC_SETS.items():
        path = tmp_path_factory.mktemp("single") / "scores.jsonl"
        fastamfm.score_files(path, hyp=files[0], refs=files[1:], metrics=metrics)
        out[name] = path.read_bytes()
    return out


@pytest.mark.parametrize("name", list(METRIC_SETS))
def test_single_process(benchmark, files, single_rows, name, tmp_path):
    benchmark.group = f"{N // 1000}k x 4 refs: {name}"
    out = tmp_path / "scores.jsonl"
    benchmark.pedantic(fastamfm.score_files, args=(out,), kwargs=dict(hyp=files[0], refs=files[1:],
                       metrics=METRIC_SETS[name]), rounds=3, iterations=1)
    assert out.read_bytes() == single_rows[name]


@pytest.mark.parametrize("name", list(METRIC_SETS))
def test_distributed_two_workers(benchmark, client, files, single_rows, name, tmp_path):
    benchmark.group = f"{N // 1000}k x 4 refs: {name}"
    out = tmp_path / "out"

    def run():
        shutil.rmtree(out, ignore_errors=True)
        fastamfm.distributed.score(client, [(files[0], files[1:])], METRIC_SETS[name], out=out,
                                   partition_size=PARTITION)

    benchmark.pedantic(run, rounds=3, iterations=1)
    assert (out / "scores.jsonl").read_bytes() == single_rows[name]
