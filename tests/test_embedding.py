"""Embedding Average, Vector Extrema, Greedy Matching against the numpy port of nlg-eval's formulas."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import fastamfm
import numpy as np
import pytest
from fastamfm import (
    References,
    WordVectors,
    embedding_average,
    greedy_matching,
    vector_extrema,
)
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from oracles.embedding import Lookup, sentence_scores  # noqa: E402
from vector_files import SUFFIX, WRITERS  # noqa: E402

TOLERANCE = 1e-6
METRICS = {"average": embedding_average, "extrema": vector_extrema, "greedy": greedy_matching}
# each metric's one column
COLUMNS = {"average": "EmbeddingAverageCosineSimilarity", "extrema": "VectorExtremaCosineSimilarity",
           "greedy": "GreedyMatchingScore"}


def fast_scores(hyps, refs, vectors, **options):
    return {name: fn(hyps, refs, vectors=vectors, **options).sentences[COLUMNS[name]] for name, fn in METRICS.items()}


def assert_matches_oracle(hyps, refs, vectors, lookup, **options):
    fast = fast_scores(hyps, refs, vectors, **options)
    slow = sentence_scores(hyps, refs, lookup)
    worst = 0.0
    for name in METRICS:
        np.testing.assert_allclose(fast[name], slow[name], rtol=0, atol=TOLERANCE, err_msg=name)
        assert abs(fast[name].mean() - slow[name].mean()) <= TOLERANCE
        worst = max(worst, float(np.abs(fast[name] - slow[name]).max()))
    return worst


# --- generated vectors (property test) -----------------------------------------------------
WORDS = ["a", "b", "c", "D", "e", "F", "gg"]
TEXT_WORDS = WORDS + ["d", "f", "zz", "Q"]  # lowercase variants and unknown words too


@st.composite
def problems(draw):
    dim = draw(st.integers(1, 6))
    # Small integers give exact zeros and ties, the edge cases of the extrema rule.
    values = draw(st.lists(st.integers(-3, 3), min_size=len(WORDS) * dim, max_size=len(WORDS) * dim))
    matrix = np.array(values, dtype=np.float32).reshape(len(WORDS), dim) * 0.5
    sentence = st.lists(st.sampled_from(TEXT_WORDS), min_size=1, max_size=6).map(" ".join)
    n = draw(st.integers(1, 5))
    hyps = draw(st.lists(sentence, min_size=n, max_size=n))
    refs = draw(st.lists(st.lists(sentence, min_size=1, max_size=3), min_size=n, max_size=n))
    return matrix, hyps, refs


@settings(max_examples=150, deadline=None)
@given(problem=problems(), oov=st.sampled_from(["mean", "zero", "skip"]), lowercase=st.booleans())
def test_equals_numpy_port_on_generated_vectors(problem, oov, lowercase):
    matrix, hyps, refs = problem
    vectors = WordVectors.from_arrays(WORDS, matrix, oov=oov, lowercase=lowercase)
    lookup = Lookup(WORDS, matrix, oov=oov, lowercase=lowercase)
    assert_matches_oracle(hyps, refs, vectors, lookup, empty="zero", workers=2)


def test_random_float_vectors_many_sentences():
    rng = np.random.default_rng(7)
    words = [f"w{i}" for i in range(300)]
    matrix = rng.normal(size=(300, 50)).astype(np.float32)
    vocab = words + ["unk1", "unk2"]
    sent = lambda: " ".join(rng.choice(vocab, size=rng.integers(1, 15)))  # noqa: E731
    hyps = [sent() for _ in range(400)]
    refs = [[sent() for _ in range(rng.integers(1, 6))] for _ in range(400)]
    worst = assert_matches_oracle(hyps, refs, WordVectors.from_arrays(words, matrix), Lookup(words, matrix))
    assert worst < 1e-12


@pytest.mark.parametrize("oov", ["mean", "zero", "skip"])
def test_reused_references_keep_sentence_vectors_with_identical_scores(oov):
    # A References is looked up once and keeps its sentence vectors; raw lists are
    # summed on the fly. Both paths, and a second call on the cache, must agree bit for bit.
    rng = np.random.default_rng(3)
    words = [f"w{i}" for i in range(80)]
    matrix = rng.normal(size=(80, 12)).astype(np.float32)
    vocab = words + ["unk"]
    sent = lambda: " ".join(rng.choice(vocab, size=rng.integers(0, 8)))  # noqa: E731  (some empty)
    hyps = [sent() or "w1" for _ in range(120)]
    refs = [[sent() for _ in range(rng.integers(1, 5))] for _ in range(120)]
    vectors = WordVectors.from_arrays(words, matrix, oov=oov)
    raw = fast_scores(hyps, refs, vectors, empty="zero")
    encoded = References(refs)
    for _ in range(2):
        kept = fast_scores(hyps, encoded, vectors, empty="zero")
        for name in METRICS:
            assert np.array_equal(raw[name], kept[name]), name
    assert_matches_oracle(hyps, refs, vectors, Lookup(words, matrix, oov=oov), empty="zero")


def test_hand_computed_values():
    vectors = WordVectors.from_arrays(["a", "b", "c"], np.array([[0, 1], [2, 3], [1, 0]], dtype=np.float32))
    # Extrema of "a b": dimension 0 has min exactly 0 -> 0 (nlg-eval's rule), dimension 1 -> 3.
    assert vector_extrema(["a b"], [["b"]], vectors=vectors).corpus["VectorExtremaCosineSimilarity"] == \
        pytest.approx(9 / (3 * np.sqrt(13)))
    # Average: cos((2, 4), (1, 0)) = 2 / sqrt(20).
    assert embedding_average(["a b"], [["c"]], vectors=vectors).corpus["EmbeddingAverageCosineSimilarity"] == \
        pytest.approx(2 / np.sqrt(20))
    # Greedy "a" vs "c": orthogonal -> 0; "a c" vs "c": (mean(0, 1) + 1) / 2 = 0.75.
    assert greedy_matching(["a", "a c"], [["c"], ["c"]], vectors=vectors).sentences["GreedyMatchingScore"].tolist() == \
        [0.0, 0.75]
    # The max over references: the second reference matches exactly.
    assert greedy_matching(["a"], [["c", "a"]], vectors=vectors).corpus["GreedyMatchingScore"] == 1.0


# --- DSTC-6 text with vectors made from twcs_airlines ------------------------------------
@pytest.fixture(scope="module")
def twcs_svd_vectors(twcs_dir):
    """word -> 32-dim vector from a TruncatedSVD of a CountVectorizer on 4000 agent turns."""
    import bz2
    import csv
    import itertools

    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import CountVectorizer

    with bz2.open(twcs_dir / "airlines_processed.csv.bz2", "rt", encoding="utf-8", newline="") as f:
        contexts = [row["context"] for row in itertools.islice(csv.DictReader(f), 2500)]
    turns = [t.strip() for context in contexts for t in re.findall(r"<rep__(.*?)__rep>", context)][:4000]
    counts = CountVectorizer(token_pattern=r"\S+", lowercase=False)
    matrix = counts.fit_transform(turns)
    svd = TruncatedSVD(n_components=32, random_state=0).fit(matrix)
    words = counts.get_feature_names_out().tolist()
    return words, svd.components_.T.astype(np.float32)


@pytest.mark.shared_data
@pytest.mark.parametrize("fmt", ["glove", "word2vec", "fasttext"])
def test_equals_numpy_port_on_dstc6_with_twcs_vectors(tmp_path, twcs_svd_vectors, dstc6_systems, dstc6_refs, fmt):
    words, matrix = twcs_svd_vectors
    path = tmp_path / ("twcs_svd" + SUFFIX[fmt])
    WRITERS[fmt](path, words, matrix)
    vectors = WordVectors.load(path)
    assert vectors.format == fmt and np.array_equal(vectors.vectors, matrix)
    # One full system for one format, a slice of another system for the others (CI time).
    system = dstc6_systems["S_1"] if fmt == "glove" else dstc6_systems["S_7"][:400]
    refs = dstc6_refs[:len(system)]
    worst = assert_matches_oracle(system, refs, vectors, Lookup(words, matrix))
    assert worst < 1e-9
    # The corpus scores are plausible similarities, not degenerate.
    scores = fastamfm.evaluate(system, refs, metrics=[fn.__name__ for fn in METRICS.values()], vectors=vectors).corpus
    assert all(0.2 < value < 1.0 for value in scores.values())


@pytest.mark.shared_data
def test_dstc6_references_object_workers_and_chunks_agree(twcs_svd_vectors, dstc6_systems, dstc6_refs):
    words, matrix = twcs_svd_vectors
    vectors = WordVectors.from_arrays(words, matrix)
    hyps = dstc6_systems["S_3"][:600]
    raw = dstc6_refs[:600]
    encoded = References(raw)
    whole = fast_scores(hyps, raw, vectors, workers=-1)
    for other in (fast_scores(hyps, encoded, vectors, workers=1), fast_scores(hyps, encoded, vectors, workers=2)):
        for name in METRICS:
            assert np.array_equal(whole[name], other[name])
    first, second = fast_scores(hyps[:250], raw[:250], vectors), fast_scores(hyps[250:], raw[250:], vectors)
    for name in METRICS:
        assert np.array_equal(whole[name], np.concatenate([first[name], second[name]]))


# --- results, options and errors ---------------------------------------------------------------
@pytest.fixture()
def small_vectors():
    return WordVectors.from_arrays(["a", "b", "c"], np.array([[1, 0], [0.5, 0.5], [0, 1]], dtype=np.float32))


def test_result_shape_signature_and_nlgeval_dict(small_vectors):
    hyps, refs = ["a b", "c"], [["a"], ["b", "c a"]]
    result = embedding_average(hyps, refs, vectors=small_vectors)
    assert isinstance(result, fastamfm.result.MetricResult)
    column = "EmbeddingAverageCosineSimilarity"
    assert list(result.sentences) == [column] and result.sentences[column].shape == (2,)
    assert result.corpus[column] == pytest.approx(result.sentences[column].mean())
    assert "vectors=memory:3x2:" in result.signature and "oov=mean" in result.signature
    assert "tok=tok:whitespace" in result.signature and "empty=error" in result.signature
    combined = fastamfm.evaluate(hyps, refs, metrics=[fn.__name__ for fn in METRICS.values()],
                                 vectors=small_vectors).corpus
    assert list(combined) == ["EmbeddingAverageCosineSimilarity", "VectorExtremaCosineSimilarity",
                              "GreedyMatchingScore"]
    for name, key in zip(METRICS, combined):
        assert combined[key] == METRICS[name](hyps, refs, vectors=small_vectors).corpus[key]


@pytest.mark.parametrize("fn", list(METRICS.values()))
def test_empty_hypothesis_is_a_clear_error(fn, small_vectors):
    name = fn.__name__
    with pytest.raises(ValueError, match=rf"{name}: hyps\[1\] has no tokens; nlg-eval fails on such texts -- "
                                         r"pass empty='zero' to score them 0"):
        fn(["a", "  "], [["a"], ["b"]], vectors=small_vectors)
    with pytest.raises(ValueError, match=rf"{name}: refs\[1\]\[0\] has no tokens"):
        fn(["a", "b"], [["a"], ["", "b"]], vectors=small_vectors)


def test_empty_texts_score_zero_on_request(small_vectors):
    for name, fn in METRICS.items():
        result = fn(["a", "", "b"], [["a"], ["b"], ["", "b"]], vectors=small_vectors, empty="zero")
        assert result.sentences[COLUMNS[name]].tolist() == pytest.approx([1.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="empty must be one of"):
        embedding_average(["a"], [["a"]], vectors=small_vectors, empty="skip")


def test_all_unknown_words_under_skip_count_as_empty():
    vectors = WordVectors.from_arrays(["a"], np.ones((1, 2)), oov="skip")
    with pytest.raises(ValueError, match=r"greedy_matching: hyps\[0\] has no word with a vector \(oov='skip'"):
        greedy_matching(["zz yy"], [["a"]], vectors=vectors)


def test_argument_errors(small_vectors):
    with pytest.raises(TypeError, match="vectors must be a fastamfm.WordVectors"):
        embedding_average(["a"], [["a"]], vectors={"a": [1, 0]})
    with pytest.raises(ValueError, match="2 hypotheses but 1 reference lists"):
        vector_extrema(["a", "b"], [["a"]], vectors=small_vectors)
    with pytest.raises(ValueError, match="hyps is empty"):
        greedy_matching([], [], vectors=small_vectors)
    with pytest.raises(ValueError, match="workers must be -1"):
        greedy_matching(["a"], [["a"]], vectors=small_vectors, workers=-5)
    lowercased = WordVectors.from_arrays(["a"], np.ones((1, 2)), lowercase=True)
    # References prepared for another tokenizer are re-tokenized as the vectors ask.
    assert embedding_average(["A"], References([["A"]]), vectors=lowercased).corpus[
        "EmbeddingAverageCosineSimilarity"] == pytest.approx(1.0)


def test_lowercase_vectors_lowercase_the_text(small_vectors):
    vectors = WordVectors.from_arrays(["a", "c"], np.array([[1, 0], [0, 1]], dtype=np.float32), lowercase=True)
    assert greedy_matching(["A"], [["a"]], vectors=vectors).corpus["GreedyMatchingScore"] == 1.0
    assert greedy_matching(["A"], [["C"]], vectors=vectors).corpus["GreedyMatchingScore"] == 0.0


# --- from_lsi -------------------------------------------------------------------------------------
class _TrainedLsiLike:
    """An object with the two documented attributes of a trained LsiModel."""

    def __init__(self, vocabulary, components):
        self.vocabulary = vocabulary
        self.components = components


def test_from_lsi_uses_vocabulary_and_components():
    components = np.array([[0.5, -0.5], [0.1, 0.9], [0.0, 1.0]], dtype=np.float32)
    wv = WordVectors.from_lsi(_TrainedLsiLike(["x", "y", "z"], components))
    assert wv.vocabulary == ["x", "y", "z"] and np.array_equal(wv.vectors, components)
    assert wv.format == "lsi" and wv.describe().startswith("lsi:3x2:")
    assert greedy_matching(["y z"], [["z"]], vectors=wv).corpus["GreedyMatchingScore"] == pytest.approx(
        sentence_scores(["y z"], [["z"]], Lookup(["x", "y", "z"], components))["greedy"][0])
    with pytest.raises(TypeError, match="from_lsi needs a trained LSI model .* has no .vocabulary"):
        WordVectors.from_lsi(object())


def test_from_lsi_with_a_real_lsi_model():
    if not hasattr(fastamfm, "LsiModel"):
        pytest.skip("fastamfm.LsiModel is not in this build (built by the AM issue; merged separately)")
    corpus = ["the flight is late", "the flight was cancelled", "my bag is lost", "we are sorry about the bag",
              "please send a dm with your flight number", "the crew is late"] * 5
    lsi = fastamfm.LsiModel.train(corpus, dims=3)
    wv = WordVectors.from_lsi(lsi)
    assert wv.vocabulary == list(lsi.vocabulary)
    assert np.array_equal(wv.vectors, np.asarray(lsi.components, dtype=np.float32))
    hyps, refs = ["the flight is late", "sorry"], [["the crew is late"], ["we are sorry"]]
    assert_matches_oracle(hyps, refs, wv, Lookup(list(lsi.vocabulary), lsi.components))


# --- the CUDA path: its inputs are checked here, its kernels on a GPU ---------------------------
def _glue_scores(hyps, refs, vectors):
    """Score the token rows cuda_inputs builds with the GPU oracle (numpy)."""
    from fastamfm.metrics.embedding import cuda_inputs
    from oracles import gpu as oracles_gpu

    (hyp_ids, hyp_off), (ref_ids, ref_off), ref_offsets, table = cuda_inputs(hyps, refs, vectors, "test")
    table = table.astype(np.float64)
    hyp_rows = [list(hyp_ids[hyp_off[i]:hyp_off[i + 1]]) for i in range(len(hyp_off) - 1)]
    ref_rows = [list(ref_ids[ref_off[j]:ref_off[j + 1]]) for j in range(len(ref_off) - 1)]
    groups = [ref_rows[ref_offsets[i]:ref_offsets[i + 1]] for i in range(len(hyp_rows))]
    return {"average": oracles_gpu.embedding_average(hyp_rows, groups, table),
            "extrema": oracles_gpu.vector_extrema(hyp_rows, groups, table),
            "greedy": oracles_gpu.greedy_matching(hyp_rows, groups, table)}


@pytest.mark.parametrize("oov", ["mean", "zero", "skip"])
def test_cuda_token_rows_reproduce_the_cpu_scores(oov):
    rng = np.random.default_rng(3)
    words = [f"w{i}" for i in range(40)]
    vectors = WordVectors.from_arrays(words, rng.normal(size=(40, 8)).astype(np.float32), oov=oov)
    vocab = words + ["unknown1", "unknown2"]
    texts = [" ".join(rng.choice(words, 2)) + " " + " ".join(rng.choice(vocab, rng.integers(0, 5)))
             for _ in range(60)]
    hyps, refs = texts[:20], [[texts[20 + 2 * i], texts[21 + 2 * i]] for i in range(20)]
    glue = _glue_scores(hyps, refs, vectors)
    for name, fn in (("average", embedding_average), ("extrema", vector_extrema), ("greedy", greedy_matching)):
        np.testing.assert_allclose(glue[name], fn(hyps, refs, vectors=vectors).sentences[COLUMNS[name]], atol=1e-6)


def test_cuda_path_errors(small_vectors):
    if not fastamfm.HAS_CUDA:
        with pytest.raises(RuntimeError, match="device='cuda' requested but CUDA is unavailable"):
            embedding_average(["a"], [["b"]], vectors=small_vectors, device="cuda")
    from fastamfm.metrics.embedding import cuda_inputs

    with pytest.raises(ValueError, match=r"refs\[1\]\[0\] has no token with a vector"):
        cuda_inputs(["a", "b"], [["a"], [""]], small_vectors, "test")


@pytest.mark.gpu
@pytest.mark.skipif(not fastamfm.HAS_CUDA, reason="needs a CUDA device")
def test_cuda_scores_equal_the_cpu_path(twcs_svd_vectors, dstc6_systems, dstc6_refs):
    vectors = WordVectors.from_arrays(*twcs_svd_vectors)
    hyps = dstc6_systems["S_1"][:500]
    refs = dstc6_refs[:500]
    for name, fn in METRICS.items():
        cpu = fn(hyps, refs, vectors=vectors)
        gpu = fn(hyps, refs, vectors=vectors, device="cuda")
        np.testing.assert_allclose(gpu.sentences[COLUMNS[name]], cpu.sentences[COLUMNS[name]], atol=1e-5)
