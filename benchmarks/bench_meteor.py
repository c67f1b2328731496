"""pytest-benchmark: METEOR 1.5 on DSTC-6, fastamfm beside the jar run through
pycocoevalcap (Java), with the scores asserted equal inside each benchmark.

    FASTAMFM_SHARED_DATA=../shared/data PYTHONPATH=python \\
        python -m pytest benchmarks/bench_meteor.py --benchmark-group-by=group -q

Groups: ``meteor-startup`` (ready to score: the jar's JVM and tables against
fastamfm's cached resources), ``meteor-one-system`` (2000 segments x 11 references,
steady state) and ``meteor-20-systems`` (all systems, including start-up).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import fastamfm  # noqa: E402
from conftest import dstc6_dir, dstc6_objective, dstc6_refs, dstc6_systems, java  # noqa: E402,F401  (shared fixtures)
from fastamfm import _core, meteor_resources  # noqa: E402

pytest.importorskip("pycocoevalcap")


def jar_compute(m, hyps, refs):
    corpus, segments = m.compute_score({i: list(r) for i, r in enumerate(refs)}, {i: [h] for i, h in enumerate(hyps)})
    return corpus, np.array(segments)


@pytest.fixture(scope="module")
def jar_meteor(java):
    from pycocoevalcap.meteor.meteor import Meteor

    m = Meteor()
    yield m
    del m


@pytest.mark.benchmark(group="meteor-startup")
def test_startup_jar(benchmark, java):
    from pycocoevalcap.meteor.meteor import Meteor

    def start():
        m = Meteor()
        score = jar_compute(m, ["this is a good test"], [["this is a test", "this is also a test"]])[0]
        del m
        return score

    assert benchmark.pedantic(start, rounds=1, iterations=1) == pytest.approx(0.44434387, abs=1e-8)


@pytest.mark.benchmark(group="meteor-startup")
def test_startup_fastamfm(benchmark):
    meteor_resources.load()  # converted once; this measures what every later process pays
    cached = sorted(meteor_resources.cache_dir().glob("meteor-1.5-en-*.bin"))[-1]

    def start():
        res = _core.MeteorResources.load(str(cached))
        return fastamfm.meteor(["this is a good test"], [["this is a test", "this is also a test"]],
                               resources=res).corpus

    assert benchmark(start) == pytest.approx(0.44434387, abs=1e-8)


@pytest.mark.benchmark(group="meteor-one-system")
def test_one_system_jar(benchmark, jar_meteor, dstc6_refs, dstc6_systems):
    hyps = dstc6_systems["S_1"]
    corpus, _ = benchmark.pedantic(jar_compute, args=(jar_meteor, hyps, dstc6_refs), rounds=2, iterations=1)
    assert corpus == pytest.approx(fastamfm.meteor(hyps, dstc6_refs).corpus, abs=1e-12)


@pytest.mark.benchmark(group="meteor-one-system")
def test_one_system_fastamfm(benchmark, dstc6_refs, dstc6_systems, dstc6_objective):
    refs = fastamfm.References(dstc6_refs)
    result = benchmark(fastamfm.meteor, dstc6_systems["S_1"], refs)
    assert result.corpus == pytest.approx(dstc6_objective["S_1"]["METEOR"], abs=1e-4)


@pytest.mark.benchmark(group="meteor-20-systems")
def test_twenty_systems_jar(benchmark, java, dstc6_refs, dstc6_systems):
    from pycocoevalcap.meteor.meteor import Meteor

    def run():
        m = Meteor()
        scores = {s: jar_compute(m, h, dstc6_refs)[0] for s, h in dstc6_systems.items()}
        del m
        return scores

    scores = benchmark.pedantic(run, rounds=1, iterations=1)
    refs = fastamfm.References(dstc6_refs)
    for s, h in dstc6_systems.items():
        assert scores[s] == pytest.approx(fastamfm.meteor(h, refs).corpus, abs=1e-12)


@pytest.mark.benchmark(group="meteor-20-systems")
def test_twenty_systems_fastamfm(benchmark, dstc6_refs, dstc6_systems, dstc6_objective):
    meteor_resources.load()
    cached = sorted(meteor_resources.cache_dir().glob("meteor-1.5-en-*.bin"))[-1]

    def run():
        res = _core.MeteorResources.load(str(cached))
        refs = fastamfm.References(dstc6_refs)
        return {s: fastamfm.meteor(h, refs, resources=res).corpus for s, h in dstc6_systems.items()}

    scores = benchmark.pedantic(run, rounds=3, iterations=1)
    for s in dstc6_systems:
        assert scores[s] == pytest.approx(dstc6_objective[s]["METEOR"], abs=1e-4)
