"""pytest-benchmark: METEOR 1.5 on DSTC-6, fastamfm beside the jar run through
pycocoevalcap (Java), with the scores asserted equal inside each benchmark.

    FASTAMFM_SHARED_DATA=../shared/data python3 benchmarks/run.py meteor --benchmark-group-by=group -q

Groups: ``meteor-startup`` (ready to score: the jar's JVM and tables against
fastamfm's cached resources), ``meteor-one-system`` (2000 segments x 11 references,
steady state) and ``meteor-20-systems`` (all systems, including start-up).
Workloads: workloads.py (compare.py prints the table, with fresh
processes on both sides).
"""
from __future__ import annotations

import fastamfm
import pytest
from fastamfm import _core, meteor_resources

from benchmarks.meteor import workloads as w

pytest.importorskip("pycocoevalcap")


@pytest.fixture(scope="module")
def jar_meteor(java):
    from pycocoevalcap.meteor.meteor import Meteor

    m = Meteor()
    yield m
    del m


@pytest.fixture(scope="module")
def cached_resources():
    """The path of fastamfm's converted resources (converted once, outside the timing):
    what every process after the first loads."""
    meteor_resources.load()
    return str(max(meteor_resources.cache_dir().glob("meteor-1.5-en-*.bin")))


@pytest.mark.benchmark(group="meteor-startup")
def test_startup_jar(benchmark, java):
    from pycocoevalcap.meteor.meteor import Meteor

    hyps, refs, expected = w.PROBE

    def start():
        m = Meteor()
        score = w.jar_compute(m, hyps, refs)[0]
        del m
        return score

    assert benchmark.pedantic(start, rounds=1, iterations=1) == pytest.approx(expected, abs=1e-8)


@pytest.mark.benchmark(group="meteor-startup")
def test_startup_fastamfm(benchmark, cached_resources):
    hyps, refs, expected = w.PROBE

    def start():
        return fastamfm.meteor(hyps, refs, resources=_core.MeteorResources.load(cached_resources)).corpus["METEOR"]

    assert benchmark(start) == pytest.approx(expected, abs=1e-8)


@pytest.mark.benchmark(group="meteor-one-system")
def test_one_system_jar(benchmark, jar_meteor, dstc6_refs, dstc6_systems):
    hyps = dstc6_systems["S_1"]
    corpus, _ = benchmark.pedantic(w.jar_compute, args=(jar_meteor, hyps, dstc6_refs), rounds=2, iterations=1)
    assert corpus == pytest.approx(fastamfm.meteor(hyps, dstc6_refs).corpus["METEOR"], abs=1e-12)


@pytest.mark.benchmark(group="meteor-one-system")
def test_one_system_fastamfm(benchmark, dstc6_refs, dstc6_systems, dstc6_objective):
    refs = fastamfm.References(dstc6_refs)
    result = benchmark(fastamfm.meteor, dstc6_systems["S_1"], refs)
    assert result.corpus["METEOR"] == pytest.approx(dstc6_objective["S_1"]["METEOR"], abs=1e-4)


@pytest.mark.benchmark(group="meteor-20-systems")
def test_twenty_systems_jar(benchmark, java, dstc6_refs, dstc6_systems):
    from pycocoevalcap.meteor.meteor import Meteor

    def run():
        m = Meteor()
        scores = {s: w.jar_compute(m, h, dstc6_refs)[0] for s, h in dstc6_systems.items()}
        del m
        return scores

    scores = benchmark.pedantic(run, rounds=1, iterations=1)
    ours = w.fastamfm_corpus_scores(dstc6_systems, dstc6_refs)
    for s in dstc6_systems:
        assert scores[s] == pytest.approx(ours[s], abs=1e-12)


@pytest.mark.benchmark(group="meteor-20-systems")
def test_twenty_systems_fastamfm(benchmark, dstc6_refs, dstc6_systems, dstc6_objective, cached_resources):
    def run():
        return w.fastamfm_corpus_scores(dstc6_systems, dstc6_refs, _core.MeteorResources.load(cached_resources))

    scores = benchmark.pedantic(run, rounds=3, iterations=1)
    for s in dstc6_systems:
        assert scores[s] == pytest.approx(dstc6_objective[s]["METEOR"], abs=1e-4)
