"""LsiModel: randomized SVD accuracy, oracle equality, reproducibility, out of core, files, bad input."""
from __future__ import annotations

import os

import fastamfm
import numpy as np
import pytest
import scipy.sparse
from fastamfm.amfm.lsi import sparse_randomized_svd
from oracles.lsi import (
    exact_lsi,
    fitted_vocabulary,
    project,
    subspace_cosines,
    weighted_matrix,
)
from sklearn.utils.extmath import randomized_svd


def topic_corpus(n_docs: int, seed: int = 0, n_topics: int = 8, words_per_topic: int = 40) -> list[str]:
    """Sentences drawn from a few word distributions ("topics") plus shared filler words,
    so the term-document matrix has a decaying spectrum like real text."""
    rng = np.random.default_rng(seed)
    topics = [[f"t{t}w{i}" for i in range(words_per_topic)] for t in range(n_topics)]
    filler = ["the", "a", "to", "and", "is", "it's", "-", "%"]
    weights = 1.0 / np.arange(1, words_per_topic + 1)
    weights /= weights.sum()
    docs = []
    for _ in range(n_docs):
        t = rng.integers(n_topics) if rng.random() < 0.9 else rng.integers(max(1, n_topics // 2))
        length = int(rng.integers(4, 16))
        words = list(rng.choice(topics[t], size=length, p=weights))
        words += list(rng.choice(filler, size=int(rng.integers(0, 4))))
        rng.shuffle(words)
        docs.append(" ".join(words) + (" ." if rng.random() < 0.5 else "!"))
    return docs


@pytest.fixture(scope="module")
def corpus() -> list[str]:
    return topic_corpus(1500)


def block_diagonal_matrix(seed: int = 0):
    """A sparse docs x terms matrix whose exact SVD is the union of its small dense blocks' SVDs."""
    rng = np.random.default_rng(seed)
    blocks = [rng.random((rng.integers(3, 9), rng.integers(2, 6))) * (0.8 ** i) for i in range(120)]
    matrix = scipy.sparse.block_diag(blocks, format="csr")
    values = np.concatenate([np.linalg.svd(b, compute_uv=False) for b in blocks])
    return matrix, np.sort(values)[::-1]


# --- the randomized SVD ---------------------------------------------------------
def test_singular_values_match_the_exact_svd_of_a_known_matrix():
    x, exact = block_diagonal_matrix()
    k = 20
    s, components = sparse_randomized_svd(x, k, oversampling=10, power_iterations=6, seed=3)
    assert np.max(np.abs(s - exact[:k]) / exact[:k]) <= 1e-3
    # Right singular vectors of x: orthonormal, spanning the exact top-k subspace.
    assert np.allclose(components.T @ components, np.eye(k), atol=1e-10)
    _, _, vt = np.linalg.svd(x.toarray(), full_matrices=False)
    assert subspace_cosines(components, vt[:k].T).min() > 1 - 1e-3
    # ... and as accurate as scikit-learn's randomized_svd with the same settings.
    _, s_sk, _ = randomized_svd(x, k, n_oversamples=10, n_iter=6, random_state=0)
    assert np.max(np.abs(s - s_sk) / s_sk) <= 1e-3


def test_more_power_iterations_converge_on_a_flat_spectrum():
    x = scipy.sparse.random(400, 300, density=0.05, random_state=1, format="csr")
    exact = np.linalg.svd(x.toarray(), compute_uv=False)
    errors = [np.max(np.abs(sparse_randomized_svd(x, 10, power_iterations=q)[0] - exact[:10]) / exact[:10])
              for q in (0, 2, 20)]
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] <= 1e-3


@pytest.mark.parametrize("weighting", ["counts", "tfidf", "log-entropy"])
def test_training_matches_the_exact_svd_of_the_weighted_matrix(corpus, weighting):
    k = 8
    model = fastamfm.LsiModel.train(corpus, dims=k, weighting=weighting, power_iterations=6, workers=2)
    assert model.vocabulary == fitted_vocabulary(corpus)
    s, u = exact_lsi(corpus, model.vocabulary, weighting, k)
    assert np.max(np.abs(model.singular_values - s) / s) <= 1e-3
    assert subspace_cosines(model.components.astype(np.float64), u).min() > 1 - 1e-3
    # The matrix it factorised is the one scikit-learn builds (checked through A^T A on U).
    x = weighted_matrix(corpus, model.vocabulary, weighting)
    xu = x @ model.components.astype(np.float64)
    assert np.allclose(np.linalg.norm(xu, axis=0), model.singular_values, rtol=2e-3)


def test_components_are_orthonormal_float32_in_vocabulary_order(corpus):
    model = fastamfm.LsiModel.train(corpus, dims=6)
    c = model.components
    assert c.dtype == np.float32 and c.shape == (len(model.vocabulary), 6)
    assert np.allclose(c.T.astype(np.float64) @ c, np.eye(6), atol=1e-5)
    assert not c.flags.writeable
    assert list(model.singular_values) == sorted(model.singular_values, reverse=True)
    assert model.vocabulary == sorted(model.vocabulary, key=lambda w: w.encode())


def test_min_count_and_max_vocab_choose_the_vocabulary(corpus):
    model = fastamfm.LsiModel.train(corpus, dims=5, min_count=20)
    assert model.vocabulary == fitted_vocabulary(corpus, min_count=20)
    capped = fastamfm.LsiModel.train(corpus, dims=5, max_vocab=30)
    assert len(capped.vocabulary) == 30
    assert set(capped.vocabulary) <= set(fitted_vocabulary(corpus))
    assert "the" in capped.vocabulary  # a filler word is among the most frequent


# --- projection -----------------------------------------------------------------
@pytest.mark.parametrize("weighting", ["counts", "tfidf", "log-entropy"])
def test_transform_equals_the_scikit_learn_projection(corpus, weighting):
    model = fastamfm.LsiModel.train(corpus, dims=8, weighting=weighting)
    sentences = corpus[:50] + ["", "no known words here", "THE T0W1, t0w1 t0w1!"]
    for dims in (3, 8):
        ours = model.transform(sentences, dims=dims)
        oracle = project(sentences, model.vocabulary, model.components, dims, weighting, model.global_weights)
        assert ours.shape == (len(sentences), dims)
        assert np.allclose(ours, oracle, atol=1e-6, rtol=1e-6)
    assert not model.transform(["no known words here"]).any()


# --- reproducibility and out of core ----------------------------------------------
def test_same_seed_gives_identical_bits_for_any_worker_count(corpus):
    a = fastamfm.LsiModel.train(corpus, dims=6, seed=7, workers=1)
    b = fastamfm.LsiModel.train(corpus, dims=6, seed=7, workers=2)
    c = fastamfm.LsiModel.train(corpus, dims=6, seed=7, workers=2)
    assert a.components.tobytes() == b.components.tobytes() == c.components.tobytes()
    assert a.singular_values.tobytes() == b.singular_values.tobytes()
    d = fastamfm.LsiModel.train(corpus, dims=6, seed=8, power_iterations=1)
    assert d.components.tobytes() != a.components.tobytes()


def test_out_of_core_training_equals_in_memory(corpus, tmp_path, caplog):
    memory = fastamfm.LsiModel.train(corpus, dims=6, weighting="tfidf")
    spill = tmp_path / "spill"
    spill.mkdir()
    updates = []
    disk = fastamfm.LsiModel.train(corpus, dims=6, weighting="tfidf", max_memory=64 << 10, tmp_dir=spill,
                                   progress=updates.append)
    stages = [(u.task.split(": ")[1], u.done, u.total) for u in updates]
    assert disk.components.tobytes() == memory.components.tobytes()
    assert disk.singular_values.tobytes() == memory.singular_values.tobytes()
    assert os.listdir(spill) == []  # chunk files are removed
    svd = [s for s in stages if s[0] == "svd"]
    assert len(svd) > 7 * 2  # several chunks per pass: the matrix really was split
    assert svd[-1][1] == svd[-1][2]
    assert ("build", 1, 1) in stages and stages[0][0] == "read"
    # 64 KiB cannot even hold the terms x l blocks: said, not hidden.
    assert "more than max_memory=0.1 MiB" in caplog.text


def test_file_generator_and_list_corpora_agree(corpus, tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(corpus) + "\n", encoding="utf-8")
    from_list = fastamfm.LsiModel.train(corpus, dims=5)
    from_file = fastamfm.LsiModel.train(path, dims=5)
    from_str_path = fastamfm.LsiModel.train(str(path), dims=5)
    from_generator = fastamfm.LsiModel.train((s for s in corpus), dims=5)
    for other in (from_file, from_str_path, from_generator):
        assert other.vocabulary == from_list.vocabulary
        assert other.components.tobytes() == from_list.components.tobytes()


def test_progress_reports_the_line_count_of_a_file(corpus, tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(corpus), encoding="utf-8")
    reads = []
    fastamfm.LsiModel.train(path, dims=3, progress=lambda u: reads.append((u.done, u.total, u.unit))
                            if u.task == "LsiModel.train: read" else None)
    assert reads[-1] == (len(corpus), len(corpus), "sentence")


def test_the_progress_protocol_before_0_2_still_works_with_a_warning(corpus):
    stages = []
    with pytest.warns(DeprecationWarning, match=r"f\(stage, done, total\).*removed in 0\.3"):
        fastamfm.LsiModel.train(corpus, dims=3, progress=lambda stage, done, total: stages.append(stage))
    assert stages[0] == "read" and "build" in stages and stages[-1] == "svd"


# --- files --------------------------------------------------------------------------
@pytest.mark.parametrize("mmap", [True, False])
def test_save_and_load_round_trip(corpus, tmp_path, mmap):
    model = fastamfm.LsiModel.train(corpus, dims=6, weighting="log-entropy", seed=5, min_count=2)
    path = tmp_path / "model.lsi"
    model.save(path)
    assert sorted(os.listdir(tmp_path)) == ["model.lsi"]  # written atomically, no temporary left
    loaded = fastamfm.LsiModel.load(path, mmap=mmap)
    assert loaded.vocabulary == model.vocabulary
    assert loaded.components.tobytes() == model.components.tobytes()
    assert loaded.singular_values.tobytes() == model.singular_values.tobytes()
    assert loaded.global_weights.tobytes() == model.global_weights.tobytes()
    assert loaded.settings == model.settings
    assert loaded.settings["seed"] == 5 and loaded.weighting == "log-entropy"
    assert loaded.fingerprint == model.fingerprint
    assert np.array_equal(loaded.transform(corpus[:20], dims=4), model.transform(corpus[:20], dims=4))


@pytest.fixture
def saved_model(corpus, tmp_path):
    path = tmp_path / "model.lsi"
    fastamfm.LsiModel.train(corpus, dims=4).save(path)
    return path


def test_truncated_model_file_is_a_format_error(saved_model):
    data = saved_model.read_bytes()
    for size in (len(data) - 1, len(data) // 2, 40):
        saved_model.write_bytes(data[:size])
        with pytest.raises(fastamfm.FormatError, match=r"model\.lsi: file is truncated"):
            fastamfm.LsiModel.load(saved_model)


def test_flipped_byte_is_a_checksum_error(saved_model):
    data = bytearray(saved_model.read_bytes())
    for position in (200, len(data) // 2, len(data) - 20):
        corrupt = bytearray(data)
        corrupt[position] ^= 0x10
        saved_model.write_bytes(bytes(corrupt))
        with pytest.raises(fastamfm.FormatError, match="checksum mismatch, the file is corrupt"):
            fastamfm.LsiModel.load(saved_model, mmap=False)


def test_foreign_and_future_files_are_format_errors(saved_model, tmp_path):
    data = saved_model.read_bytes()
    other = tmp_path / "other.bin"
    other.write_bytes(b"not a model at all")
    with pytest.raises(fastamfm.FormatError, match="not a fastamfm LSI model file"):
        fastamfm.LsiModel.load(other)
    other.write_bytes(data[:8] + (99).to_bytes(4, "little") + data[12:])
    with pytest.raises(fastamfm.FormatError, match="format version 99 is not supported"):
        fastamfm.LsiModel.load(other)
    other.write_bytes(data + b"extra")
    with pytest.raises(fastamfm.FormatError, match="5 unexpected bytes after the model"):
        fastamfm.LsiModel.load(other)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        fastamfm.LsiModel.load(tmp_path / "missing.lsi")
    assert issubclass(fastamfm.FormatError, ValueError)


# --- bad input ------------------------------------------------------------------------
def test_empty_corpus(tmp_path):
    with pytest.raises(ValueError, match=r"the corpus is empty \(no sentences\)"):
        fastamfm.LsiModel.train([], dims=2)
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(ValueError, match="the corpus is empty"):
        fastamfm.LsiModel.train(empty, dims=2)


def test_corpus_without_words():
    with pytest.raises(ValueError, match=r"the corpus has no words \(all 3 sentences are empty after tokenization\)"):
        fastamfm.LsiModel.train(["", "!!! ...", "?"], dims=1)
    with pytest.raises(ValueError, match="no word occurs at least min_count=5 times in the 2 sentences"):
        fastamfm.LsiModel.train(["a b", "c d"], dims=1, min_count=5)


def test_dims_larger_than_the_rank(corpus):
    with pytest.raises(ValueError, match=r"dims=5 exceeds the rank of the 4 x 3 term-document matrix \(at most 3\)"):
        fastamfm.LsiModel.train(["a b", "c d", "a d"], dims=5)
    # Rank 2 (two distinct sentences repeated) though the shape allows 3.
    with pytest.raises(ValueError, match=r"dims=3 exceeds the numerical rank \(2\)"):
        fastamfm.LsiModel.train(["a b c", "d e f"] * 5, dims=3)
    model = fastamfm.LsiModel.train(corpus, dims=4)
    with pytest.raises(ValueError, match=r"dims must be an integer in 1..4 .*got 5"):
        model.transform(["t0w1"], dims=5)


def test_bad_arguments_name_the_problem(tmp_path):
    with pytest.raises(ValueError, match="weighting must be one of"):
        fastamfm.LsiModel.train(["a b"], dims=1, weighting="bm25")
    with pytest.raises(ValueError, match="dims must be an integer >= 1, got 0"):
        fastamfm.LsiModel.train(["a b"], dims=0)
    with pytest.raises(ValueError, match="max_memory must be an integer >= 1"):
        fastamfm.LsiModel.train(["a b"], dims=1, max_memory=-5)
    with pytest.raises(ValueError, match="tokenize must be one of"):
        fastamfm.LsiModel.train(["a b"], dims=1, tokenize="spacy")
    with pytest.raises(TypeError, match=r"corpus\[70001\] is int, expected str"):
        fastamfm.LsiModel.train(["a b"] * 70001 + [5], dims=1)
    with pytest.raises(TypeError, match="corpus must be a path or an iterable of str"):
        fastamfm.LsiModel.train(42, dims=1)
    with pytest.raises(FileNotFoundError, match="corpus file .* does not exist"):
        fastamfm.LsiModel.train(tmp_path / "nope.txt", dims=1)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\nbad \xff byte\n")
    with pytest.raises(fastamfm.FormatError, match=r"bad\.txt:2:5: invalid UTF-8"):
        fastamfm.LsiModel.train(bad, dims=1)
