"""pytest-benchmark: fastamfm AM-FM beside the toolkit-style pipeline (sklearn + numpy + kenlm).

    PYTHONPATH=python:benchmarks python -m pytest benchmarks/bench_amfm.py --benchmark-only

Groups put both sides of one task together; each benchmark asserts that its scores
equal the other side's. Needs ../shared/data (DSTC-6 and twcs_airlines).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "python"))

DATA = Path(os.environ.get("FASTAMFM_SHARED_DATA", HERE.parents[1] / "shared" / "data"))
pytestmark = pytest.mark.skipif(not (DATA / "dstc6_t2_evaluation").exists(),
                                reason=f"{DATA} is absent (the AM-FM benchmarks need DSTC-6 and twcs_airlines)")


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    from compare_amfm import setup as build

    return build(DATA, tmp_path_factory.mktemp("amfm"))


@pytest.fixture(scope="module")
def system(setup):
    scorer, peer, systems, refs = setup
    return systems["S_1"], refs


@pytest.fixture(scope="module")
def reward_batch(setup):
    scorer, peer, systems, refs = setup
    rng = np.random.default_rng(0)
    idx = rng.integers(0, len(refs), 64)
    return [systems["S_2"][i] for i in idx], [refs[i][:4] for i in idx]


def _check(ours_am, ours_fm, peer_out):
    np.testing.assert_allclose(ours_am, peer_out[0], atol=1e-5)
    np.testing.assert_allclose(ours_fm, peer_out[1], atol=1e-4)


@pytest.mark.benchmark(group="amfm-dstc6-one-system-2000x11")
def test_fastamfm_system(benchmark, setup, system):
    scorer, peer, _, _ = setup
    hyps, refs = system
    res = benchmark(scorer.score, hyps, refs)
    _check(res.am, res.fm, peer.score(hyps, refs))


@pytest.mark.benchmark(group="amfm-dstc6-one-system-2000x11")
def test_toolkit_peer_system(benchmark, setup, system):
    scorer, peer, _, _ = setup
    hyps, refs = system
    out = benchmark(peer.score, hyps, refs)
    res = scorer.score(hyps, refs)
    _check(res.am, res.fm, out)


@pytest.mark.benchmark(group="amfm-reward-64x4")
def test_fastamfm_reward(benchmark, setup, reward_batch):
    scorer, peer, _, _ = setup
    out = benchmark(scorer.reward, *reward_batch)
    np.testing.assert_allclose(out, peer.score(*reward_batch)[2], atol=1e-4)


@pytest.mark.benchmark(group="amfm-reward-64x4")
def test_toolkit_peer_reward(benchmark, setup, reward_batch):
    scorer, peer, _, _ = setup
    out = benchmark(peer.score, *reward_batch)
    np.testing.assert_allclose(scorer.reward(*reward_batch), out[2], atol=1e-4)
