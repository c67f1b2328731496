"""One scorer and one ``References`` shared by 16 threads at once give exactly the serial
results, for every registered metric (the neural ones with tiny random models): what a
server's scoring threads, a trainer's reward threads or an evaluation job's thread pool do.

Each metric is scored cold -- a fresh pipeline and a fresh ``References``, all 16 threads
released together by a barrier -- because the races that matter are in building what is
derived once (reference n-gram tables, LSI projections, reference embeddings, lazily loaded
models); the serial expectation comes from another fresh pair. Left out: ``learned`` (needs
a fitted scorer file: tests/test_learned.py) and ``evaluator`` (a trained evaluator
directory: tests/test_evaluator.py); METEOR where its resources are absent.
"""
from __future__ import annotations

import threading

import fastamfm
import numpy as np
import pytest
from available_metrics import NEURAL_METRICS, deep_available, meteor_available
from fastamfm import registry
from fastamfm.pipeline import Pipeline

THREADS = 16
HYPS = ["i can check the flight status for you", "we are boarding now", "sorry about the delay at the gate",
        "your bag is on the next flight", "thanks for flying with us today", "please send me your ticket number",
        "hello there", "the gate is open now"]
REFS = [["please send me your confirmation number", "happy to check on that flight"], ["boarding has started"],
        ["we apologise for the delay", "sorry for the wait at gate 4"], ["your bag will arrive on the next flight"],
        ["thank you for flying with us"], ["could you send your ticket number", "what is your ticket number"],
        ["hello", "hi there"], ["the gate has opened"]]
CONTEXTS = ["hello\nis my flight on time", "when do we board", "my flight is late", "where is my bag",
            "thanks for the help", "i need to change my ticket", "hi", "is the gate open"]
NEEDS_TRAINED_FILES = ("learned", "evaluator")
LM_METRICS = ("deep_fm", "followup", "lm_judge")


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict:
    """Options per kind of model: word vectors (a small text file) always; the tiny BERT and
    the tiny Llama when torch is installed."""
    vectors = tmp_path_factory.mktemp("vectors") / "vectors.txt"
    words = sorted({w for text in HYPS + [r for refs in REFS for r in refs] for w in text.split()})
    rng = np.random.default_rng(0)
    vectors.write_text("".join(f"{w} {' '.join(f'{x:.6f}' for x in rng.normal(size=8))}\n" for w in words))
    found = {"vectors": str(vectors)}
    if deep_available():
        from causal_models import make_model
        from deep_models import build_tiny_bert

        found["encoder"] = str(build_tiny_bert(tmp_path_factory.mktemp("thread_bert")))
        # lm_judge prompts a rating template around the dialogue: room for it beyond the default 256 positions
        found["lm"] = str(make_model(tmp_path_factory.mktemp("thread_llama"), "llama", max_positions=1024))
    return found


def _options(name: str, models: dict) -> dict:
    if name in ("embedding_average", "vector_extrema", "greedy_matching"):
        return {"vectors": models["vectors"]}
    options = {"device": "cpu"} if name in NEURAL_METRICS + LM_METRICS else {}
    if name in ("deep_am", "bertscore", "deep_amfm"):
        options["encoder"] = models["encoder"]
    if name in LM_METRICS + ("deep_amfm",):
        options["lm"] = models["lm"]
    return options


def _inputs(name: str) -> tuple:
    """(refs, contexts) the metric scores: references where it takes them, contexts where it needs them."""
    cls = registry.metric_class(name)
    refs = fastamfm.References(REFS) if cls.needs_references or name in NEURAL_METRICS else None
    return refs, CONTEXTS if cls.needs_contexts else None


def _scored(name: str, models: dict):
    return Pipeline.from_names([name], strict=True, **_options(name, models)), *_inputs(name)


def _same(result, expected) -> None:
    assert list(result.sentences) == list(expected.sentences)
    for column, values in expected.sentences.items():
        np.testing.assert_array_equal(result.sentences[column], values, column)
    assert result.corpus.keys() == expected.corpus.keys()
    for column, value in expected.corpus.items():
        assert result.corpus[column] == value or (np.isnan(value) and np.isnan(result.corpus[column])), column
    assert result.signature == expected.signature


@pytest.mark.parametrize("name", [n for n in registry.names() if n not in NEEDS_TRAINED_FILES])
def test_sixteen_threads_on_one_scorer_and_one_references_give_the_serial_results(name, models):
    if name == "meteor" and not meteor_available():
        pytest.skip("METEOR's resources are absent (tests/test_meteor.py says how to get them)")
    if (name in NEURAL_METRICS or name in LM_METRICS) and "encoder" not in models:
        pytest.skip("the neural metrics need torch and transformers (pip install '.[deep]')")
    pipeline, refs, contexts = _scored(name, models)
    expected = pipeline.score(HYPS, refs, contexts, progress=False)
    pipeline, refs, contexts = _scored(name, models)    # cold again: the threads race to build it all
    barrier = threading.Barrier(THREADS)
    results, errors = [None] * THREADS, []

    def score(k: int) -> None:
        try:
            barrier.wait()
            results[k] = pipeline.score(HYPS, refs, contexts, progress=False)
        except Exception as exc:      # reported below, with the thread that raised it
            errors.append((k, exc))

    threads = [threading.Thread(target=score, args=(k,)) for k in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for result in results:
        _same(result, expected)
