"""pytest-benchmark: the TRL reward function beside ``AMFM.reward``, 64 completions x 4 references.

    python3 benchmarks/run.py integrations --benchmark-only

One group: ``AMFM.reward(hyps, refs)`` called directly, and
``fastamfm.integrations.trl.reward_function("amfm")`` called as TRL calls it (plain and
conversational completions); each asserts that its rewards equal ``AMFM.reward``'s.
Needs DSTC-6 in ../shared/data. Workload: workloads.py.
"""
from __future__ import annotations

import numpy as np
import pytest

from benchmarks.integrations import workloads as w
from benchmarks.shared_data import DSTC6

pytestmark = pytest.mark.skipif(not DSTC6.exists(), reason="the reward benchmark needs DSTC-6 in ../shared/data")


@pytest.fixture(scope="module")
def setup():
    from fastamfm import AMFM
    from fastamfm.integrations.trl import reward_function

    hyps, refs = w.reward_batch()
    scorer = AMFM.default()
    return scorer, reward_function("amfm"), hyps, refs, scorer.reward(hyps, refs)


@pytest.mark.benchmark(group="trl-reward-amfm-64x4")
def test_amfm_reward_direct(benchmark, setup):
    scorer, _, hyps, refs, want = setup
    assert np.array_equal(benchmark(scorer.reward, hyps, refs), want)


@pytest.mark.benchmark(group="trl-reward-amfm-64x4")
@pytest.mark.parametrize("form", ["plain", "conversational"])
def test_reward_function_as_trl_calls_it(benchmark, setup, form):
    _, reward, hyps, refs, want = setup
    call = w.trl_call(hyps, refs, conversational=form == "conversational")
    assert np.array_equal(np.float32(benchmark(lambda: reward(**call))), want)
