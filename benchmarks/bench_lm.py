"""pytest-benchmark: the language model beside kenlm, correctness asserted inside.

    PYTHONPATH=python python -m pytest benchmarks/bench_lm.py --benchmark-group-by=group

Groups: lm-query (NgramLM.score vs a kenlm.Model.score loop on the DSTC-6 responses,
same ARPA file), lm-load (binary vs ARPA vs kenlm), lm-train (orders 2 and 5 on the
twcs_airlines agent turns). benchmarks/compare_lm.py prints the same comparisons as
ratios, with peak memory and the 10M-token synthetic corpus.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import fastamfm  # noqa: E402
from conftest import DSTC6, TWCS  # noqa: E402
from lm_corpora import twcs_agent_turns  # noqa: E402

kenlm = pytest.importorskip("kenlm")

if not (DSTC6.exists() and TWCS.exists()):
    pytest.skip("the LM benchmarks need ../shared/data (dstc6_t2_evaluation, twcs_airlines)", allow_module_level=True)


@pytest.fixture(scope="module")
def turns():
    return twcs_agent_turns(TWCS)


@pytest.fixture(scope="module")
def sentences():
    from fastamfm.io import read_lines

    return [s for i in range(1, 21) for s in read_lines(DSTC6 / "hypotheses" / f"S_{i}.txt")]


@pytest.fixture(scope="module")
def model_files(tmp_path_factory, turns):
    directory = tmp_path_factory.mktemp("lm")
    lm = fastamfm.NgramLM.train(turns, order=5, tokenize="whitespace")
    lm.save_arpa(directory / "model.arpa")
    lm.save(directory / "model.bin")
    return directory / "model.arpa", directory / "model.bin"


@pytest.fixture(scope="module")
def expected(model_files, sentences):
    model = kenlm.Model(str(model_files[0]))
    return np.array([math.fsum(t[0] for t in model.full_scores(s)) for s in sentences])


@pytest.mark.benchmark(group="lm-query")
def test_query_kenlm_loop(benchmark, model_files, sentences, expected):
    model = kenlm.Model(str(model_files[0]))
    scores = benchmark(lambda: [model.score(s) for s in sentences])
    np.testing.assert_allclose(scores, expected, atol=1e-3)


@pytest.mark.benchmark(group="lm-query")
@pytest.mark.parametrize("workers", [1, -1])
def test_query_fastamfm(benchmark, model_files, sentences, expected, workers):
    lm = fastamfm.NgramLM.load(model_files[1])
    scores = benchmark(lambda: lm.score(sentences, workers=workers))
    np.testing.assert_allclose(scores, expected, atol=1e-4)


@pytest.mark.benchmark(group="lm-load")
def test_load_kenlm_arpa(benchmark, model_files):
    model = benchmark.pedantic(lambda: kenlm.Model(str(model_files[0])), rounds=3)
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
    lm = benchmark.pedantic(lambda: fastamfm.NgramLM.train(turns, order=order, smoothing=smoothing, tokenize="whitespace"), rounds=1)
    lm.save_arpa(tmp_path / "model.arpa")
    model = kenlm.Model(str(tmp_path / "model.arpa"))
    probe = turns[:200]
    ours = lm.score(probe)
    theirs = np.array([math.fsum(t[0] for t in model.full_scores(s)) for s in probe])
    np.testing.assert_allclose(ours, theirs, atol=1e-4)
