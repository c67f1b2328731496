"""pytest-benchmark: fastamfm AM-FM beside the toolkit-style pipeline (sklearn + numpy + kenlm).

    python3 benchmarks/run.py amfm --benchmark-only

Groups put both sides of one task together; each benchmark asserts that its scores
equal the other side's. Needs ../shared/data (DSTC-6 and twcs_airlines). Workloads and
the peer: workloads.py.
"""
from __future__ import annotations

import numpy as np
import pytest

from benchmarks.amfm import workloads as w
from benchmarks.shared_data import DSTC6, TWCS

pytestmark = pytest.mark.skipif(not (DSTC6.exists() and TWCS.exists()),
                                reason="the AM-FM benchmarks need DSTC-6 and twcs_airlines in ../shared/data")


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    pytest.importorskip("kenlm")
    return w.setup(tmp_path_factory.mktemp("amfm"))


@pytest.fixture(scope="module")
def system(setup):
    _, _, systems, refs = setup
    return systems["S_1"], refs


@pytest.fixture(scope="module")
def reward_batch(setup):
    _, _, systems, refs = setup
    return w.reward_batches(systems, refs, count=1)[0]


@pytest.mark.benchmark(group="amfm-dstc6-one-system-2000x11")
def test_fastamfm_system(benchmark, setup, system):
    scorer, peer, _, _ = setup
    res = benchmark(scorer.score, *system)
    w.check(res, peer.score(*system))


@pytest.mark.benchmark(group="amfm-dstc6-one-system-2000x11")
def test_toolkit_peer_system(benchmark, setup, system):
    scorer, peer, _, _ = setup
    out = benchmark(peer.score, *system)
    w.check(scorer.score(*system), out)


@pytest.mark.benchmark(group="amfm-reward-64x4")
def test_fastamfm_reward(benchmark, setup, reward_batch):
    scorer, peer, _, _ = setup
    out = benchmark(scorer.reward, *reward_batch)
    np.testing.assert_allclose(out, peer.score(*reward_batch)[2], atol=w.FM_TOLERANCE)


@pytest.mark.benchmark(group="amfm-reward-64x4")
def test_toolkit_peer_reward(benchmark, setup, reward_batch):
    scorer, peer, _, _ = setup
    out = benchmark(peer.score, *reward_batch)
    np.testing.assert_allclose(scorer.reward(*reward_batch), out[2], atol=w.FM_TOLERANCE)
