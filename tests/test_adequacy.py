"""fastamfm.adequacy (AM): equality with a scikit-learn/numpy oracle on DSTC-6 and on
generated data, References reuse, zero-vector conventions and bad input."""
from __future__ import annotations

import fastamfm
import numpy as np
import pytest
from fastamfm.amfm.adequacy import Adequacy
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.lsi import am_scores, project, twcs_agent_turns, unit_rows

COMBINE = ["max", "mean", "centroid"]


@pytest.fixture(scope="module")
def twcs_model(twcs_dir):
    """A model trained on the first 4000 agent turns of the TWCS airline conversations."""
    return fastamfm.LsiModel.train(twcs_agent_turns(twcs_dir, limit=4000), dims=50, seed=1)


@pytest.fixture(scope="module")
def small_model():
    corpus = ["the flight is delayed", "your bag is lost", "we are sorry for the delay", "the bag arrived",
              "please dm us your confirmation number", "the gate changed", "sorry about your bag"] * 3
    return fastamfm.LsiModel.train(corpus, dims=5, seed=0)


# --- conformance on real data -------------------------------------------------------
@pytest.mark.shared_data
@pytest.mark.parametrize("system", ["S_1", "S_20"])
def test_dstc6_am_equals_the_sklearn_oracle(twcs_model, dstc6_refs, dstc6_systems, system):
    hyps = dstc6_systems[system]
    refs = fastamfm.References(dstc6_refs, tokenize="amfm")
    for dims in (10, 50):
        for combine in COMBINE:
            ours = fastamfm.adequacy(hyps, refs, twcs_model, dims=dims, combine=combine)
            oracle = am_scores(hyps, dstc6_refs, twcs_model.vocabulary, twcs_model.components, dims, combine)
            assert np.max(np.abs(ours.sentences["AM"] - oracle)) <= 1e-5, (system, dims, combine)
            assert ours.corpus["AM"] == pytest.approx(oracle.mean(), abs=1e-6)
    assert 0.0 < ours.corpus["AM"] < 1.0


@pytest.mark.shared_data
def test_dstc6_raw_refs_and_references_agree(twcs_model, dstc6_refs, dstc6_systems):
    hyps = dstc6_systems["S_5"][:300]
    refs = dstc6_refs[:300]
    encoded = fastamfm.References(refs, tokenize="amfm")
    a = fastamfm.adequacy(hyps, refs, twcs_model, dims=20)
    b = fastamfm.adequacy(hyps, encoded, twcs_model, dims=20)
    c = fastamfm.adequacy(hyps, encoded, twcs_model, dims=20, workers=1)  # cached projections reused
    assert np.array_equal(a.sentences["AM"], b.sentences["AM"]) and np.array_equal(b.sentences["AM"], c.sentences["AM"])
    assert "dims=20" in a.signature and "combine=max" in a.signature and twcs_model.fingerprint in a.signature


# --- generated data ---------------------------------------------------------------------
WORDS = ["the", "flight", "is", "delayed", "your", "bag", "lost", "we", "are", "sorry", "for", "delay",
         "arrived", "please", "dm", "us", "gate", "changed", "unknown", "zebra"]


@settings(max_examples=40, deadline=None)
@given(data=st.data(), combine=st.sampled_from(COMBINE), dims=st.integers(1, 5))
def test_random_sentences_equal_the_oracle(small_model, data, combine, dims):
    sentence = st.lists(st.sampled_from(WORDS), min_size=0, max_size=8).map(" ".join)
    n = data.draw(st.integers(1, 6))
    hyps = data.draw(st.lists(sentence, min_size=n, max_size=n))
    refs = data.draw(st.lists(st.lists(sentence, min_size=1, max_size=4), min_size=n, max_size=n))
    ours = fastamfm.adequacy(hyps, refs, small_model, dims=dims, combine=combine)
    oracle = am_scores(hyps, refs, small_model.vocabulary, small_model.components, dims, combine)
    assert np.allclose(ours.sentences["AM"], oracle, atol=1e-6)
    assert ((ours.sentences["AM"] >= 0) & (ours.sentences["AM"] <= 1)).all()


@pytest.mark.parametrize("weighting", ["tfidf", "log-entropy"])
def test_weighted_models_equal_the_oracle(weighting):
    corpus = [" ".join(np.random.default_rng(i).choice(WORDS, size=6)) for i in range(300)]
    model = fastamfm.LsiModel.train(corpus, dims=6, weighting=weighting)
    hyps = corpus[:40]
    refs = [[corpus[i + 1], corpus[i + 2]] for i in range(40)]
    ours = fastamfm.adequacy(hyps, refs, model)
    oracle = am_scores(hyps, refs, model.vocabulary, model.components, 6, "max", weighting, model.global_weights)
    assert np.allclose(ours.sentences["AM"], oracle, atol=1e-6)


def test_identical_sentences_score_one_and_unknown_words_score_zero(small_model):
    result = fastamfm.adequacy(
        ["the flight is delayed", "zebra quokka", "", "your bag"],
        [["the flight is delayed"], ["the flight is delayed"], ["your bag"], ["wombat", "!!!"]],
        small_model)
    assert result.sentences["AM"][0] == pytest.approx(1.0, abs=1e-6)
    # A hypothesis without vocabulary words, an empty one, and one whose references
    # have no vocabulary words all score 0 by definition.
    assert list(result.sentences["AM"][1:]) == [0.0, 0.0, 0.0]
    assert result.corpus["AM"] == pytest.approx(result.sentences["AM"].mean())


def test_mean_and_centroid_combine(small_model):
    hyps = ["the bag arrived"]
    refs = [["the bag arrived", "the gate changed"]]
    best = fastamfm.adequacy(hyps, refs, small_model, combine="max").sentences["AM"][0]
    mean = fastamfm.adequacy(hyps, refs, small_model, combine="mean").sentences["AM"][0]
    centroid = fastamfm.adequacy(hyps, refs, small_model, combine="centroid").sentences["AM"][0]
    assert best == pytest.approx(1.0, abs=1e-6)
    assert mean < best and centroid < best


def test_thread_count_does_not_change_scores(small_model):
    hyps = [" ".join(WORDS[i % 7:i % 7 + 4]) for i in range(500)]
    refs = [[" ".join(WORDS[(i + 3) % 9:(i + 3) % 9 + 5]), "sorry for the delay"] for i in range(500)]
    one = fastamfm.adequacy(hyps, refs, small_model, workers=1)
    two = fastamfm.adequacy(hyps, refs, small_model, workers=2)
    assert np.array_equal(one.sentences["AM"], two.sentences["AM"])


def test_unit_vectors_and_projected_references_are_what_scoring_compares(small_model):
    hyps = ["the flight is delayed", "zebra", "sorry sorry for the bag"]
    refs = [["the gate changed", "your bag is lost"], ["dm us"], ["the delay", "zebra", "we are sorry"]]
    oracle_h = unit_rows(project(hyps, small_model.vocabulary, small_model.components, 4))
    h = small_model.unit_vectors(hyps, dims=4)
    assert h.dtype == np.float32 and h.shape == (3, 4)
    assert np.allclose(h, oracle_h, atol=1e-6)
    encoded = fastamfm.References(refs, tokenize="amfm")
    am = Adequacy(lsi=small_model, dims=4)
    vectors, offsets = am.reference_vectors(encoded), encoded.offsets_array
    assert list(offsets) == [0, 2, 3, 6]
    flat = [r for group in refs for r in group]
    assert np.allclose(vectors, unit_rows(project(flat, small_model.vocabulary, small_model.components, 4)), atol=1e-6)
    assert am.reference_vectors(encoded) is vectors  # kept on the References


# --- bad input --------------------------------------------------------------------------
def test_bad_input_names_the_problem(small_model):
    with pytest.raises(ValueError, match="adequacy: 2 hypotheses but 1 reference lists"):
        fastamfm.adequacy(["a", "b"], [["a"]], small_model)
    with pytest.raises(ValueError, match="hyps is empty"):
        fastamfm.adequacy([], [], small_model)
    with pytest.raises(ValueError, match=r"refs\[0\] has no reference"):
        fastamfm.adequacy(["a"], [[]], small_model)
    with pytest.raises(ValueError, match="combine must be one of"):
        fastamfm.adequacy(["a"], [["a"]], small_model, combine="min")
    with pytest.raises(ValueError, match=r"adequacy: dims must be an integer in 1..5 .*got 6"):
        fastamfm.adequacy(["a"], [["a"]], small_model, dims=6)
    with pytest.raises(TypeError, match="model must be a fastamfm.LsiModel"):
        fastamfm.adequacy(["a"], [["a"]], "model.lsi")
    # References prepared for the whitespace preset are tokenized as the model asks.
    whitespace_refs = fastamfm.References([["a"]])
    assert fastamfm.adequacy(["a"], whitespace_refs, small_model).sentences["AM"].tolist() == \
        fastamfm.adequacy(["a"], [["a"]], small_model).sentences["AM"].tolist()


@pytest.mark.skipif(fastamfm.HAS_CUDA, reason="checks the error raised when no CUDA device is present")
def test_cuda_device_without_gpu_is_a_clear_error(small_model):
    with pytest.raises(RuntimeError, match="device='cuda' requested but CUDA is unavailable"):
        fastamfm.adequacy(["a b"], [["a b"]], small_model, device="cuda")


@pytest.mark.gpu
@pytest.mark.skipif(not fastamfm.HAS_CUDA, reason="needs a CUDA device")
@pytest.mark.parametrize("combine", ["max", "mean"])
def test_cuda_scores_equal_the_cpu_path(twcs_model, dstc6_refs, dstc6_systems, combine):
    hyps = dstc6_systems["S_1"]
    cpu = fastamfm.adequacy(hyps, dstc6_refs, twcs_model, combine=combine)
    gpu = fastamfm.adequacy(hyps, dstc6_refs, twcs_model, combine=combine, device="cuda")
    np.testing.assert_allclose(gpu.sentences["AM"], cpu.sentences["AM"], atol=1e-5)
    with pytest.raises(ValueError, match="centroid' has no CUDA kernel"):
        fastamfm.adequacy(hyps, dstc6_refs, twcs_model, combine="centroid", device="cuda")
