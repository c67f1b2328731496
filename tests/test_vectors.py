"""WordVectors: the three file formats, the memory-mapped cache, and every bad-input case."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import fastamfm
import numpy as np
import pytest
from fastamfm import FormatError, WordVectors
from fastamfm.metrics.vectors import CACHE_SUFFIX, cache_path_for

sys.path.insert(0, str(Path(__file__).parent))
from vector_files import SUFFIX, WRITERS, write_fasttext, write_glove, write_word2vec  # noqa: E402

FORMATS = ("glove", "fasttext", "word2vec")


def sample(n=50, dim=7, seed=0):
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(n - 3)] + ["The", "the", "café"]
    matrix = rng.normal(size=(n, dim)).astype(np.float32)
    matrix[3, 2] = 0.0
    return words, matrix


def written(tmp_path, fmt, words=None, matrix=None, name="vecs"):
    if words is None:
        words, matrix = sample()
    path = tmp_path / (name + SUFFIX[fmt])
    WRITERS[fmt](path, words, matrix)
    return path


# --- the formats --------------------------------------------------------------------
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("requested", ["auto", "explicit"])
def test_each_format_loads_exactly(tmp_path, fmt, requested):
    words, matrix = sample()
    path = written(tmp_path, fmt, words, matrix)
    wv = WordVectors.load(path, format=fmt if requested == "explicit" else "auto")
    assert wv.format == fmt
    assert wv.vocabulary == words
    assert np.array_equal(wv.vectors, matrix)
    assert (len(wv), wv.dim) == matrix.shape
    np.testing.assert_allclose(wv.mean, matrix.astype(np.float64).mean(axis=0), rtol=0, atol=1e-12)


def test_lookup_is_case_sensitive_and_lowercase_option(tmp_path):
    words, matrix = sample()
    path = written(tmp_path, "glove", words, matrix)
    wv = WordVectors.load(path)
    assert wv.index("The") == words.index("The") and wv.index("the") == words.index("the")
    assert wv.index("THE") is None and "café" in wv and "cafe" not in wv
    lower = WordVectors.load(path, lowercase=True)
    np.testing.assert_array_equal(lower.vector("THE"), matrix[words.index("the")])
    np.testing.assert_array_equal(lower.vector("CAFÉ"), matrix[words.index("café")])


def test_oov_policies(tmp_path):
    path = written(tmp_path, "glove")
    mean = WordVectors.load(path, oov="mean")
    np.testing.assert_allclose(mean.vector("unknown"), mean.mean.astype(np.float32))
    assert not WordVectors.load(path, oov="zero").vector("unknown").any()
    with pytest.raises(KeyError, match="oov='skip'"):
        WordVectors.load(path, oov="skip").vector("unknown")
    with pytest.raises(ValueError, match="oov must be one of"):
        WordVectors.load(path, oov="drop")
    with pytest.raises(ValueError, match="format must be one of"):
        WordVectors.load(path, format="gensim")


def test_repeated_word_keeps_its_first_vector(tmp_path):
    words = ["a", "b", "a", "c"]
    matrix = np.arange(8, dtype=np.float32).reshape(4, 2) + 1
    wv = WordVectors.load(written(tmp_path, "glove", words, matrix))
    assert wv.vocabulary == ["a", "b", "c"] and wv.duplicates_dropped == 1
    np.testing.assert_array_equal(wv.vector("a"), matrix[0])
    np.testing.assert_allclose(wv.mean, matrix[[0, 1, 3]].mean(axis=0))


def test_from_arrays_and_uncached_load_agree_with_cached(tmp_path):
    words, matrix = sample()
    path = written(tmp_path, "fasttext", words, matrix)
    cached = WordVectors.load(path)
    uncached = WordVectors.load(path, cache=False)
    memory = WordVectors.from_arrays(words, matrix)
    assert uncached.cache_path is None and memory.cache_path is None
    for wv in (uncached, memory):
        assert wv.vocabulary == cached.vocabulary
        assert np.array_equal(wv.vectors, cached.vectors)
        assert np.array_equal(wv.mean, cached.mean)


def test_from_arrays_rejects_bad_matrices():
    with pytest.raises(ValueError, match="2 words but 3 vector rows"):
        WordVectors.from_arrays(["a", "b"], np.zeros((3, 2)))
    with pytest.raises(ValueError, match=r"vectors\[1, 0\] \(word 'b'\) is not finite"):
        WordVectors.from_arrays(["a", "b"], np.array([[1.0, 2.0], [np.nan, 1.0]]))
    with pytest.raises(ValueError, match=r"vocabulary\[0\] is an empty word"):
        WordVectors.from_arrays(["", "b"], np.ones((2, 2)))


# --- the cache --------------------------------------------------------------------------
def test_cache_is_written_beside_the_file_and_reused(tmp_path):
    path = written(tmp_path, "glove")
    first = WordVectors.load(path)
    cache = Path(str(path) + CACHE_SUFFIX)
    assert first.cache_path == cache and cache.exists()
    stamp = cache.stat().st_mtime_ns, cache.stat().st_ino
    second = WordVectors.load(path)
    assert (cache.stat().st_mtime_ns, cache.stat().st_ino) == stamp  # opened, not rebuilt
    assert np.array_equal(first.vectors, second.vectors)
    assert not any(p.name.endswith(".tmp") or ".tmp." in p.name for p in tmp_path.iterdir())


def test_vectors_are_a_read_only_view_of_the_mapped_cache(tmp_path):
    wv = WordVectors.load(written(tmp_path, "word2vec"))
    assert not wv.vectors.flags.writeable
    with pytest.raises(ValueError):
        wv.vectors[0, 0] = 1.0
    maps = Path("/proc/self/maps")
    if not maps.exists():
        pytest.skip("no /proc/self/maps on this platform to see the mapping")
    assert str(wv.cache_path) in maps.read_text()


def test_changed_source_rebuilds_the_cache(tmp_path):
    words, matrix = sample()
    path = written(tmp_path, "glove", words, matrix)
    WordVectors.load(path)
    write_glove(path, words, matrix * 2)  # same words, new values
    os.utime(path, ns=(1, 1))             # and a different modification time
    reloaded = WordVectors.load(path)
    assert np.array_equal(reloaded.vectors, matrix * 2)


def test_format_is_part_of_the_cache_key(tmp_path):
    words, matrix = sample()
    path = tmp_path / "vecs.vec"
    write_fasttext(path, words, matrix)
    assert WordVectors.load(path).format == "fasttext"
    with pytest.raises(FormatError, match="expected 'word v1 v2 ...'|load it with format='fasttext'"):
        WordVectors.load(path, format="glove")


def test_cache_dir_and_environment_fallback(tmp_path, monkeypatch):
    path = written(tmp_path, "glove")
    explicit = WordVectors.load(path, cache_dir=tmp_path / "explicit")
    assert explicit.cache_path.parent == tmp_path / "explicit" and explicit.cache_path.exists()
    # A source directory that is not writable sends the cache to $FASTAMFM_CACHE_DIR.
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p) == tmp_path else real_access(p, mode))
    monkeypatch.setenv("FASTAMFM_CACHE_DIR", str(tmp_path / "env"))
    fallback = WordVectors.load(path)
    assert fallback.cache_path.parent == tmp_path / "env" and fallback.cache_path.exists()
    assert cache_path_for(path) == fallback.cache_path


def test_unwritable_beside_location_falls_back_to_the_cache_dir(tmp_path, monkeypatch):
    import fastamfm.metrics.vectors as vectors_module

    path = written(tmp_path, "glove")
    real_ensure = vectors_module._ensure_cache

    def read_only_beside(source, fmt, cache_file, workers):
        if cache_file.parent == tmp_path:  # what a read-only mount does to root, whom os.access lets through
            raise RuntimeError(f"{cache_file}: cannot create {cache_file}.tmp: Read-only file system")
        real_ensure(source, fmt, cache_file, workers)

    monkeypatch.setattr(vectors_module, "_ensure_cache", read_only_beside)
    monkeypatch.setenv("FASTAMFM_CACHE_DIR", str(tmp_path / "env"))
    wv = WordVectors.load(path)
    assert wv.cache_path.parent == tmp_path / "env" and len(wv) == 50


def test_same_named_sources_in_two_directories_get_two_caches(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert cache_path_for(tmp_path / "a" / "v.txt", tmp_path) != cache_path_for(tmp_path / "b" / "v.txt", tmp_path)


@pytest.mark.parametrize("damage, message", [
    ("magic", "not a fastamfm cache"),
    ("header", "header checksum mismatch"),
    ("truncate", r"size \d+ bytes, the header says \d+"),
    ("short", "shorter than its header"),
])
def test_corrupt_cache_is_a_clear_error(tmp_path, damage, message):
    path = written(tmp_path, "glove")
    cache = WordVectors.load(path).cache_path
    data = bytearray(cache.read_bytes())
    if damage == "magic":
        data[0:8] = b"NOTACACH"
    elif damage == "header":
        data[16] ^= 0xFF  # the row count
    elif damage == "truncate":
        data = data[:-64]
    else:
        data = data[:20]
    cache.write_bytes(bytes(data))
    with pytest.raises(FormatError, match=f"{cache}: corrupt word-vector cache .*{message}.*delete the file"):
        WordVectors.load(path)


# --- bad input files ----------------------------------------------------------------------
def _text_file(tmp_path, text, name="bad.txt"):
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


@pytest.mark.parametrize("cache", [True, False])
def test_truncated_glove_file_names_the_line(tmp_path, cache):
    path = _text_file(tmp_path, "a 1 2 3\nb 4 5 6\nc 7 8")
    with pytest.raises(FormatError, match=rf"{path}:3: word 'c': expected 3 values after the word, found 2"):
        WordVectors.load(path, cache=cache)


def test_truncated_fasttext_file_names_the_count(tmp_path):
    path = _text_file(tmp_path, "4 3\na 1 2 3\nb 4 5 6\nc 7 8 9\n", "bad.vec")
    with pytest.raises(FormatError, match=rf"{path}:4: the header declares 4 vectors but the file holds 3 "
                                          r"\(truncated file\?\)"):
        WordVectors.load(path)


def test_truncated_word2vec_file_names_the_vector(tmp_path):
    words, matrix = sample(n=5, dim=4)
    path = tmp_path / "cut.bin"
    write_word2vec(path, words, matrix)
    path.write_bytes(path.read_bytes()[:-7])
    with pytest.raises(FormatError, match=rf"{path}: vector 5 of 5 \(word 'café'\) at byte \d+: the file ends 6 "
                                          r"bytes before the vector does \(truncated file\?\)"):
        WordVectors.load(path)
    header_only = _text_file(tmp_path, b"3 4\n", "header.bin")
    with pytest.raises(FormatError, match="more than the file's 4 bytes can hold"):
        WordVectors.load(header_only, format="word2vec")


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN", "1e39"])
def test_non_finite_text_values_are_rejected(tmp_path, value):
    path = _text_file(tmp_path, f"a 1 2 3\nb 4 {value} 6\n")
    with pytest.raises(FormatError, match=rf"{path}:2: word 'b': value 2 '{value}' is not finite"):
        WordVectors.load(path)


@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_non_finite_binary_values_are_rejected(tmp_path, value):
    words, matrix = sample(n=4, dim=3)
    matrix[2, 1] = value
    path = tmp_path / "nan.bin"
    write_word2vec(path, words, matrix)
    with pytest.raises(FormatError, match=rf"{path}: vector 3 of 4 \(word 'the'\) at byte \d+: value 2 is not finite"):
        WordVectors.load(path)


def test_rows_of_differing_length_are_rejected(tmp_path):
    longer = _text_file(tmp_path, "a 1 2 3\nb 4 5 6 7 8\nc 1 2 3\n")
    with pytest.raises(FormatError, match=rf"{longer}:2: word 'b': expected 3 values after the word, found 5 "
                                          r"\(rows of differing length\)"):
        WordVectors.load(longer)
    shorter = _text_file(tmp_path, "2 3\na 1 2 3\nb 4 5\n", "short.vec")
    with pytest.raises(FormatError, match=rf"{shorter}:3: word 'b': expected 3 values after the word, found 2"):
        WordVectors.load(shorter)


def test_line_numbers_stay_right_across_parallel_parts(tmp_path):
    rows = [f"w{i} 1 2 3" for i in range(600_000)]
    rows[500_000] = "broken 1 2"
    assert len("\n".join(rows[:500_000])) > 4 << 20  # beyond the first 4 MiB part
    path = _text_file(tmp_path, "\n".join(rows) + "\n")
    with pytest.raises(FormatError, match=rf"{path}:500001: word 'broken': expected 3 values"):
        WordVectors.load(path, cache=False)


def test_other_malformed_files(tmp_path):
    cases = [
        ("empty.txt", b"", "empty file"),
        ("number.txt", b"a 1 2\nb 1 x\n", "word 'b': value 2 'x' is not a number"),
        ("utf8.txt", b"a 1 2\n\xff\xfe 1 2\n", ":2: invalid UTF-8 at byte 0 of the word"),
        ("header.txt", b"2 3\n", "looks like a 'count dim' header: load it with format='fasttext'"),
        ("noheader.vec", b"a 1 2\n", "expected a 'count dim' header line"),
    ]
    for name, data, message in cases:
        path = _text_file(tmp_path, data, name)
        fmt = "fasttext" if name.endswith(".vec") else ("glove" if name == "header.txt" else "auto")
        with pytest.raises(FormatError, match=message):
            WordVectors.load(path, format=fmt)


def test_missing_file():
    with pytest.raises(FileNotFoundError, match="no such file"):
        WordVectors.load("/nonexistent/vectors.txt")


def test_format_error_is_a_value_error():
    assert issubclass(fastamfm.FormatError, ValueError)
