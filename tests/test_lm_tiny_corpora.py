"""NgramLM.train on generated tiny corpora (empty lines, one word, repeated and
marker tokens), every order, both smoothings, pruning, a closed vocabulary and
worker counts far above the core count: never a crash, a clear ValueError only for
a corpus without words, and the one-worker model for every worker count (the
segfault once seen on a 16-core Python 3.12 machine was in this call)."""
from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings, strategies as st

import fastamfm

WORDS = ["a", "b", "c", "the", "ça", "<s>", "</s>", "<unk>"]
sentences = st.lists(st.sampled_from(WORDS), max_size=8).map(" ".join)
corpora = st.lists(sentences, max_size=12)
options = st.fixed_dictionaries({
    "order": st.integers(1, 6),
    "smoothing": st.sampled_from(["kneser-ney", "katz"]),
    "prune": st.sampled_from([None, 1e-6, 1e-2, 0.5]),
    "vocab": st.sampled_from([None, ["a", "the"]]),
})


def _train(corpus, workers, opts):
    return fastamfm.NgramLM.train(corpus, tokenize="whitespace", workers=workers, **opts)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpus=corpora, opts=options, workers=st.sampled_from([2, 3, 16, 33]))
def test_tiny_corpora_train_the_one_worker_model(corpus, opts, workers):
    words = [w for line in corpus for w in line.split() if w not in ("<s>", "</s>", "<unk>")]
    if not words:
        try:
            _train(corpus, workers, opts)
        except ValueError as exc:
            assert "empty corpus" in str(exc)
            return
        raise AssertionError("a corpus without words trained a model")
    one = _train(corpus, 1, opts)
    many = _train(corpus, workers, opts)
    assert many.fingerprint == one.fingerprint
    assert many.order == opts["order"]
    text = [line for line in corpus if line.strip()] or ["a"]
    assert not math.isnan(many.perplexity(text))
