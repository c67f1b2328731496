"""Our estimates equal a readable oracle of the published formulas, and every
context's distribution sums to 1 (both smoothings, pruned or not)."""
from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import fastamfm
import pytest
from lm_corpora import zipf_corpus
from oracles.lm import BackoffModel, context_sums, katz, kneser_ney, read_arpa

SMALL = zipf_corpus(400, vocabulary=150, seed=3)
TINY = ["a b c", "a b", "b c a", "c"]  # too small for KN discounts: the fallback is used


def _written(lm, tmp_path):
    path = tmp_path / "model.arpa"
    lm.save_arpa(path)
    return read_arpa(path)


def _assert_same_model(ours: dict, oracle: dict):
    assert set(ours) == set(oracle), (sorted(set(ours) ^ set(oracle)))[:5]
    for gram, (prob, backoff) in oracle.items():
        # Values are stored as float32 log10 (as KenLM stores them).
        assert ours[gram][0] == pytest.approx(prob, abs=1e-6, rel=1e-6), gram
        assert ours[gram][1] == pytest.approx(backoff, abs=1e-6, rel=1e-6), gram


@pytest.mark.parametrize("order", [1, 2, 3, 4])
@pytest.mark.parametrize("corpus", [SMALL, TINY], ids=["zipf", "tiny"])
def test_kneser_ney_equals_oracle(tmp_path, corpus, order):
    lm = fastamfm.NgramLM.train(corpus, order=order, smoothing="kneser-ney", tokenize="whitespace")
    _assert_same_model(_written(lm, tmp_path), kneser_ney(corpus, order))


@pytest.mark.parametrize("order", [1, 2, 3, 4])
@pytest.mark.parametrize("corpus", [SMALL, TINY], ids=["zipf", "tiny"])
def test_katz_equals_oracle(tmp_path, corpus, order):
    lm = fastamfm.NgramLM.train(corpus, order=order, smoothing="katz", tokenize="whitespace")
    _assert_same_model(_written(lm, tmp_path), katz(corpus, order))


def test_katz_settings_equal_oracle(tmp_path):
    lm = fastamfm.NgramLM.train(SMALL, order=3, smoothing="katz", gtmin=[1, 2, 3], gtmax=[3, 5, 5], tokenize="whitespace")
    _assert_same_model(_written(lm, tmp_path), katz(SMALL, 3, gtmin=[1, 2, 3], gtmax=[3, 5, 5]))


def test_kneser_ney_discounts_follow_count_of_counts():
    lm = fastamfm.NgramLM.train(SMALL, order=3, tokenize="whitespace")
    lines = lm.metadata["discounts"]
    assert len(lines) == 3 and not any("fallback" in line for line in lines)
    tiny = fastamfm.NgramLM.train(TINY, order=2, discount_fallback=(0.4, 0.8, 1.2), tokenize="whitespace")
    assert "D1=0.4 D2=0.8 D3+=1.2 (fallback)" in tiny.metadata["discounts"][1]


def _assert_sums_to_one(lm, tmp_path):
    sums = context_sums(BackoffModel(_written(lm, tmp_path)))
    assert len(sums) > 1
    worst = max(sums.items(), key=lambda item: abs(item[1] - 1.0))
    assert abs(worst[1] - 1.0) < 1e-6, worst


@pytest.mark.parametrize("smoothing", ["kneser-ney", "katz"])
@pytest.mark.parametrize("order", [2, 3])
def test_every_context_sums_to_one(tmp_path, smoothing, order):
    _assert_sums_to_one(fastamfm.NgramLM.train(SMALL, order=order, smoothing=smoothing, tokenize="whitespace"), tmp_path)


@pytest.mark.parametrize("smoothing", ["kneser-ney", "katz"])
def test_closed_vocabulary_sums_to_one(tmp_path, smoothing):
    vocab = sorted({w for s in SMALL for w in s.split()})[::2] + ["never-seen"]
    lm = fastamfm.NgramLM.train(SMALL, order=3, smoothing=smoothing, vocab=vocab, tokenize="whitespace")
    assert set(lm.vocabulary) == set(vocab) | {"<unk>", "<s>", "</s>"}
    _assert_sums_to_one(lm, tmp_path)


@pytest.mark.parametrize("smoothing", ["kneser-ney", "katz"])
def test_pruning_keeps_a_normalised_smaller_model(tmp_path, smoothing):
    full = fastamfm.NgramLM.train(SMALL, order=3, smoothing=smoothing, tokenize="whitespace")
    pruned = fastamfm.NgramLM.train(SMALL, order=3, smoothing=smoothing, prune=1e-4, tokenize="whitespace")
    assert pruned.counts[0] == full.counts[0]
    assert pruned.counts[1] < full.counts[1] and pruned.counts[2] < full.counts[2]
    assert pruned.metadata["prune"] == "0.0001"
    _assert_sums_to_one(pruned, tmp_path)
    # Pruning trades likelihood of the training text for size, less so at a lower threshold.
    mild = fastamfm.NgramLM.train(SMALL, order=3, smoothing=smoothing, prune=1e-6, tokenize="whitespace")
    assert pruned.counts[2] < mild.counts[2] < full.counts[2]
    assert full.perplexity(SMALL) < mild.perplexity(SMALL) < pruned.perplexity(SMALL)


def test_results_do_not_depend_on_threads(tmp_path):
    one = fastamfm.NgramLM.train(SMALL, order=4, workers=1, tokenize="whitespace")
    two = fastamfm.NgramLM.train(SMALL, order=4, workers=2, tokenize="whitespace")
    assert one.fingerprint == two.fingerprint
    assert math.isfinite(one.perplexity(SMALL))


@pytest.mark.parametrize("smoothing", ["kneser-ney", "katz"])
def test_many_workers_and_python_threads_train_the_same_model(smoothing):
    """More workers than cores (a 16-core machine's default), and trainings started
    from several Python threads at once (one that waits on its workers for over 50 ms
    polls for Ctrl-C from its own thread, where Python >= 3.12 may run the garbage
    collector but never a signal handler)."""
    corpus = SMALL + ["I like hiking and reading books.", "Yes, a dog named Max and two cats.", "hello , how are you ?"]

    def fingerprints(workers):
        return [fastamfm.NgramLM.train(corpus, order=order, smoothing=smoothing, workers=workers).fingerprint
                for order in (2, 3)]

    expected = fingerprints(1)
    assert fingerprints(16) == expected
    with ThreadPoolExecutor(4) as pool:
        trainings = [pool.submit(fingerprints, 16) for _ in range(4)]
        assert [training.result() for training in trainings] == [expected] * 4
