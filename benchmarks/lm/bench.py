"""pytest-benchmark: the language model beside kenlm, correctness asserted inside.

    python3 benchmarks/run.py lm --benchmark-group-by=group

Groups: lm-query (NgramLM.score vs a kenlm.Model.score loop on the DSTC-6 responses,
same ARPA file), lm-load (binary vs ARPA vs kenlm), lm-train (orders 2 and 5 on the
twcs_airlines agent turns). compare.py prints the same comparisons as ratios, with
CPU time, peak memory and the 10M-token synthetic corpus. Workloads: workloads.py.
"""
from __future__ import annotations

import fastamfm
import numpy as np
import pytest
from lm_corpora import twcs_agent_turns

from benchmarks.lm import workloads as w

pytest.importorskip("kenlm")


@pytest.fixture(scope="module")
def turns(twcs_dir):
    return twcs_agent_turns(twcs_dir)


@pytest.fixture(scope="module")
def sentences(dstc6_systems):
    return [s for hyps in dstc6_systems.values() for s in hyps]


@pytest.fixture(scope="module")
def model_files(tmp_path_factory, turns):
    return w.train_models(turns, tmp_path_factory.mktemp("lm"), order=5)


@pytest.fixture(scope="module")
def expected(model_files, sentences):
    return w.kenlm_full_scores(w.kenlm_model(model_files[0]), sentences)


@pytest.mark.benchmark(group="lm-query")
def test_query_kenlm_loop(benchmark, model_files, sentences, expected):
    model = w.kenlm_model(model_files[0])
    scores = benchmark(w.kenlm_score_loop, model, sentences)
    np.testing.assert_allclose(scores, expected, atol=1e-3)


@pytest.mark.benchmark(group="lm-query")
@pytest.mark.parametrize("workers", [1, -1])
def test_query_fastamfm(benchmark, model_files, sentences, expected, workers):
    lm = fastamfm.NgramLM.load(model_files[1])
    scores = benchmark(lambda: lm.score(sentences, workers=workers))
    np.testing.assert_allclose(scores, expected, atol=1e-4)


@pytest.mark.benchmark(group="lm-load")
def test_load_kenlm_arpa(benchmark, model_files):
    model = benchmark.pedantic(w.kenlm_model, args=(model_files[0],), rounds=3)
    assert model.order == 5


@pytest.mark.benchmark(group="lm-load")
@pytest.mark.parametrize("kind", ["arpa", "binary"])
def test_load_fastamfm(benchmark, model_files, sentences, expected, kind):
    path = model_files[0] if kind == "arpa" else model_files[1]
    lm = benchmark.pedantic(lambda: fastamfm.NgramLM.load(path), rounds=3)
    np.testing.assert_allclose(lm.score(sentences[:1000]), expected[:1000], atol=1e-4)


@pytest.mark.benchmark(group="lm-train")
@pytest.mark.parametrize("order", [2, 5])
@pytest.mark.parametrize("smoothing", ["kneser-ney", "katz"])
def test_train_on_twcs(benchmark, turns, order, smoothing, tmp_path):
    lm = benchmark.pedantic(lambda: fastamfm.NgramLM.train(turns, order=order, smoothing=smoothing,
                                                           tokenize="whitespace"), rounds=1)
    lm.save_arpa(tmp_path / "model.arpa")
    probe = turns[:200]
    np.testing.assert_allclose(lm.score(probe), w.kenlm_full_scores(w.kenlm_model(tmp_path / "model.arpa"), probe),
                               atol=1e-4)
