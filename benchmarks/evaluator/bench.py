"""pytest-benchmark: the evaluator's reference-free scoring beside DeepAMFM's and Deep AM's, on
the same DSTC-10 development responses with their contexts (CPU, packaged models).

    OMP_WAIT_POLICY=PASSIVE python3 benchmarks/run.py evaluator --benchmark-group-by=group
    FASTAMFM_EVALUATOR=DIR python3 benchmarks/run.py evaluator      # a trained directory instead

Group "evaluator-ref-free" (``N_RESPONSES`` responses spread over the five sets):

- ``Evaluator.score`` of a freshly loaded evaluator each round (the evaluator keeps the
  vectors of the texts it has seen: a reused one would time its cache; loading is not
  timed). Which evaluator: the directory in ``$FASTAMFM_EVALUATOR``, else a tiny one trained
  here in seconds (3 steps on a synthetic corpus) over the packaged all-MiniLM-L6-v2 — the
  head's weights do not change the work, so its speed is the shipped evaluator's;
- ``DeepAMFM.default().score`` (all-MiniLM-L6-v2 and the SmolLM2 fluency LM), reference-free;
- ``deep_am`` with contexts (the frozen encoder's cosine alone: the floor of any scorer
  reading that encoder).

Skips with the reason when torch, the packaged models or ../shared/data are absent. A few
minutes on two CPU cores, most of it DeepAMFM's. The side-by-side table with the ratio:
``python3 benchmarks/run.py evaluator compare``.
"""
from __future__ import annotations

import fastamfm
import numpy as np
import pytest

from benchmarks.evaluator import workloads as w
from benchmarks.shared_data import SHARED_DATA

N_RESPONSES = 40
ROUNDS = 3


@pytest.fixture(scope="module")
def dev_responses():
    if not (SHARED_DATA / "dstc10_dev").exists():
        pytest.skip(f"{SHARED_DATA / 'dstc10_dev'} is absent (this benchmark needs ../shared/data beside the checkout)")
    return w.responses(N_RESPONSES)


@pytest.fixture(scope="module")
def evaluator_dir(request, tmp_path_factory):
    """``$FASTAMFM_EVALUATOR``, else a tiny evaluator trained here over the packaged encoder."""
    try:
        found = w.evaluator_from_environment()
    except ValueError as exc:
        pytest.fail(str(exc))
    if found is not None:
        return found
    base = request.getfixturevalue("minilm_dir")          # skips without torch or the package
    from deep_models import (
        write_dialogue_corpus,  # tests/ (on the path: benchmarks/__init__.py)
    )

    root = tmp_path_factory.mktemp("evaluator")
    corpus = write_dialogue_corpus(root / "corpus.txt", 120)
    fastamfm.train_evaluator(str(corpus), out=root / "evaluator", base=str(base), max_steps=3, batch_size=16,
                             device="cpu", progress=False, blocklist=False)
    return root / "evaluator"


@pytest.fixture(scope="module")
def deep_amfm():
    pytest.importorskip("torch", reason="DeepAMFM needs the deep extra: pip install 'fastamfm[deep]'")
    from fastamfm.models.location import ModelNotFound

    try:
        return fastamfm.DeepAMFM.default(device="cpu")
    except ModelNotFound as exc:
        pytest.skip(str(exc))


@pytest.mark.benchmark(group="evaluator-ref-free")
def test_evaluator_score(benchmark, evaluator_dir, dev_responses):
    hyps, contexts = dev_responses

    def fresh():
        return (fastamfm.Evaluator.load(evaluator_dir, device="cpu"),), {}

    result = benchmark.pedantic(lambda ev: ev.score(hyps, contexts=contexts), setup=fresh, rounds=ROUNDS,
                                iterations=1)
    scores = result.sentences["evaluator"]
    assert scores.shape == (len(hyps),) and ((scores >= 0) & (scores <= 1)).all()


@pytest.mark.benchmark(group="evaluator-ref-free")
def test_deep_amfm_score(benchmark, deep_amfm, dev_responses):
    hyps, contexts = dev_responses
    result = benchmark.pedantic(deep_amfm.score, args=(hyps,), kwargs={"contexts": contexts}, rounds=ROUNDS,
                                iterations=1)
    assert np.isfinite(result.sentences["deep_amfm"]).all()


@pytest.mark.benchmark(group="evaluator-ref-free")
def test_deep_am_context_cosine(benchmark, deep_amfm, dev_responses):
    hyps, contexts = dev_responses
    encoder = deep_amfm.encoder
    result = benchmark.pedantic(fastamfm.deep_am, args=(hyps,), kwargs={"contexts": contexts, "encoder": encoder},
                                rounds=ROUNDS, iterations=1)
    scores = result.sentences["deep_am"]
    assert ((scores >= -1 - 1e-6) & (scores <= 1 + 1e-6)).all()
