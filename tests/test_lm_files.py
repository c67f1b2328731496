"""Files and bad input: ARPA errors name file and line, corrupt binary files are
refused, training input is checked, and spilling counts to disk changes nothing."""
from __future__ import annotations

import re

import fastamfm
import numpy as np
import pytest
from lm_corpora import zipf_corpus

GOOD_ARPA = """\\data\\
ngram 1=5
ngram 2=3

\\1-grams:
-1.0\t<unk>\t0
0\t<s>\t-0.3
-0.5\t</s>
-0.7\ta\t-0.2
-0.8\tb\t-0.1

\\2-grams:
-0.2\t<s> a
-0.3\ta b
-0.4\tb </s>

\\end\\
"""


def _write(tmp_path, text, name="model.arpa"):
    path = tmp_path / name
    path.write_text(text)
    return path


def _load_error(tmp_path, text) -> str:
    path = _write(tmp_path, text)
    with pytest.raises(fastamfm.FormatError) as info:
        fastamfm.NgramLM.load(path)
    message = str(info.value)
    assert message.startswith(str(path)), message
    return message


def test_good_arpa_loads(tmp_path):
    lm = fastamfm.NgramLM.load(_write(tmp_path, GOOD_ARPA))
    assert lm.order == 2 and lm.counts == [5, 3] and lm.vocabulary_size == 5
    # <s> a b </s>: -0.2 + -0.3 + -0.4
    assert lm.score(["a b"])[0] == pytest.approx(-0.9, abs=1e-6)
    # <s> b: no bigram, backoff(<s>) + p(b); then b </s>
    assert lm.score(["b"])[0] == pytest.approx(-0.3 - 0.8 - 0.4, abs=1e-6)


@pytest.mark.parametrize("broken, line, what", [
    (GOOD_ARPA.replace("-0.7\ta\t-0.2", "-0.7"), 9, "needs a log10 probability, 1 word"),
    (GOOD_ARPA.replace("-0.3\ta b", "-0.3\ta"), 14, "needs a log10 probability, 2 words"),
    (GOOD_ARPA.replace("-0.3\ta b", "-0.3\ta b c"), 14, "found 4 fields"),
    (GOOD_ARPA.replace("-0.3\ta b", "x0.3\ta b"), 14, "cannot parse the probability 'x0.3'"),
    (GOOD_ARPA.replace("-0.3\ta b", "-0.3\ta zz"), 14, "the word 'zz' is not among the unigrams"),
    (GOOD_ARPA.replace("ngram 2=3", "ngram 2=4"), 16, "has 3 entries but \\data\\ declared 4"),
    (GOOD_ARPA.replace("ngram 2=3", "ngram 2=2"), 15, "more entries than the 2"),
    (GOOD_ARPA.replace("ngram 2=3", "ngram 3=3"), 3, "declares order 3 after order 1"),
    (GOOD_ARPA.replace("ngram 2=3", "ngram two"), 3, "malformed \\data\\ line"),
    (GOOD_ARPA.replace("\\2-grams:", "\\3-grams:"), 12, "expected '\\2-grams:'"),
    (GOOD_ARPA.replace("-0.8\tb\t-0.1", "-0.8\ta\t-0.1"), 10, "the unigram 'a' is listed twice"),
])
def test_malformed_arpa_names_file_and_line(tmp_path, broken, line, what):
    message = _load_error(tmp_path, broken)
    assert f":{line}: " in message and what in message, message


@pytest.mark.parametrize("cut", [
    GOOD_ARPA.index("-0.3\ta b"),  # inside the 2-grams
    GOOD_ARPA.index("\\2-grams:"),  # before a section
    GOOD_ARPA.index("\\end\\"),  # before \end\
])
def test_truncated_arpa_is_reported(tmp_path, cut):
    message = _load_error(tmp_path, GOOD_ARPA[:cut])
    assert "truncated?" in message and re.search(r":\d+: ", message), message


def test_order_mismatch_in_arpa(tmp_path):
    extra = GOOD_ARPA.replace("\\end\\", "\\3-grams:\n-0.1\t<s> a b\n\n\\end\\")
    message = _load_error(tmp_path, extra)
    assert ":17: section '\\3-grams:' is beyond the order 2 that \\data\\ declared" in message


def test_not_an_arpa_file(tmp_path):
    path = _write(tmp_path, "just some text\n")
    with pytest.raises(fastamfm.FormatError, match="no \\\\data\\\\ section: not an ARPA language model"):
        fastamfm.NgramLM.load(path)
    with pytest.raises(FileNotFoundError, match="no such language-model file"):
        fastamfm.NgramLM.load(tmp_path / "missing.arpa")


def test_arpa_without_unk_scores_unknown_words_like_kenlm(tmp_path):
    kenlm = pytest.importorskip("kenlm")
    text = GOOD_ARPA.replace("ngram 1=5", "ngram 1=4").replace("-1.0\t<unk>\t0\n", "")
    path = _write(tmp_path, text)
    lm = fastamfm.NgramLM.load(path)
    model = kenlm.Model(str(path))
    assert lm.score(["a zz"])[0] == pytest.approx(model.score("a zz"), abs=1e-4)  # <unk> = -100


@pytest.fixture
def binary_model(tmp_path):
    lm = fastamfm.NgramLM.train(zipf_corpus(300, vocabulary=80, seed=4), order=3, tokenize="whitespace")
    path = tmp_path / "model.bin"
    lm.save(path)
    return path


def _corrupt(path, offset, data):
    raw = bytearray(path.read_bytes())
    raw[offset:offset + len(data)] = data
    path.write_bytes(bytes(raw))


@pytest.mark.parametrize("damage, what", [
    (lambda p: _corrupt(p, p.stat().st_size // 2, b"\xff\xfe\xfd"), "checksum mismatch"),
    (lambda p: p.write_bytes(p.read_bytes()[:-16]), "truncated?"),
    (lambda p: p.write_bytes(p.read_bytes()[:40]), "file too short for the header"),
    (lambda p: _corrupt(p, 8, b"\x07\x00\x00\x00"), "format version 7; this fastamfm reads versions 1 to 2"),
    (lambda p: _corrupt(p, 0, b"NOTMAGIC"), ":1:18: invalid UTF-8"),  # then it is read as ARPA text
])
def test_corrupt_binary_file_is_refused(binary_model, damage, what):
    damage(binary_model)
    with pytest.raises(fastamfm.FormatError) as info:
        fastamfm.NgramLM.load(binary_model)
    assert what in str(info.value) and str(binary_model) in str(info.value)


def test_save_is_atomic_and_replaces(tmp_path, binary_model):
    lm = fastamfm.NgramLM.load(binary_model)
    lm.save(binary_model)  # over the mapped file it was loaded from
    lm.save_arpa(tmp_path / "model.arpa")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.arpa", "model.bin"]
    assert fastamfm.NgramLM.load(binary_model).fingerprint == lm.fingerprint


@pytest.mark.parametrize("corpus", [[], [""] * 3, ["<s> </s>", "<unk>"]])
def test_empty_corpus(corpus):
    with pytest.raises(ValueError, match="empty corpus: no tokens"):
        fastamfm.NgramLM.train(corpus, tokenize="whitespace")


@pytest.mark.parametrize("options, error, what", [
    ({"order": 7}, ValueError, "order must be an integer from 1 to 6"),
    ({"order": 0}, ValueError, "order must be an integer from 1 to 6"),
    ({"smoothing": "witten-bell"}, ValueError, "smoothing must be one of"),
    ({"max_memory": "lots"}, ValueError, "is not a size like"),
    ({"prune": -1}, ValueError, "prune must be a threshold"),
    ({"smoothing": "katz", "gtmin": [1, 2]}, ValueError, "gtmin needs one value per order"),
    ({"smoothing": "katz", "gtmin": [2, 1, 1]}, ValueError, "gtmin must not decrease"),
    ({"gtmax": [1, 7, 7]}, ValueError, "gtmin/gtmax apply to smoothing='katz' only"),
    ({"workers": -3}, ValueError, "workers must be -1"),
])
def test_bad_training_options(options, error, what):
    with pytest.raises(error, match=re.escape(what)):
        fastamfm.NgramLM.train(["a b c"], **options)


def test_bad_corpus_types(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such corpus file"):
        fastamfm.NgramLM.train(tmp_path / "missing.txt", tokenize="whitespace")
    with pytest.raises(TypeError, match=re.escape("corpus[1] is int, expected str")):
        fastamfm.NgramLM.train(["a b", 3], tokenize="whitespace")


def test_corpus_with_only_unknown_words_for_a_closed_vocabulary(tmp_path):
    # Every word maps to <unk>: a legitimate (if useless) model, still normalised.
    lm = fastamfm.NgramLM.train(["a b c", "c d"], order=2, vocab=["zz"], tokenize="whitespace")
    assert set(lm.vocabulary) == {"<unk>", "<s>", "</s>", "zz"}
    scores = lm.token_scores(["a b"])
    assert list(scores[0][1]) == [True, True, False]
    assert np.isfinite(lm.score(["a b", "zz"])).all()


def test_file_and_iterable_corpora_agree(tmp_path):
    corpus = zipf_corpus(1000, seed=5)
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(corpus) + "\n")
    from_file = fastamfm.NgramLM.train(path, order=3, tokenize="whitespace")
    from_iterable = fastamfm.NgramLM.train(iter(corpus), order=3, tokenize="whitespace")
    assert from_file.fingerprint == from_iterable.fingerprint


@pytest.mark.parametrize("smoothing", ["kneser-ney", "katz"])
def test_spilling_to_disk_gives_the_same_model(tmp_path, monkeypatch, smoothing):
    corpus = zipf_corpus(3000, vocabulary=500, seed=6)
    in_memory = fastamfm.NgramLM.train(corpus, order=4, smoothing=smoothing, tokenize="whitespace")
    assert in_memory.training_stats["spilled_runs"] == 0
    # A tiny budget and small chunks: the counts spill after every chunk.
    monkeypatch.setattr(fastamfm.amfm.lm, "CORPUS_CHUNK_LINES", 250)
    spilled = fastamfm.NgramLM.train(corpus, order=4, smoothing=smoothing, max_memory="64K", temp_dir=str(tmp_path), tokenize="whitespace")
    assert spilled.training_stats["spilled_runs"] == 3 * 12  # orders 2..4, 12 chunks
    assert spilled.fingerprint == in_memory.fingerprint
    assert list(tmp_path.iterdir()) == []  # spill files never outlive the run
