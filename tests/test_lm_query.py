"""Queries equal kenlm.Model.score on the DSTC-6 responses, for ARPA files we write
and for one written by another toolkit (IRSTLM), and the binary format answers
exactly as the ARPA file does."""
from __future__ import annotations

import math
import subprocess
from pathlib import Path

import fastamfm
import numpy as np
import pytest
from lm_corpora import twcs_agent_turns, zipf_corpus

kenlm = pytest.importorskip("kenlm", reason="kenlm (the reference scorer) is not installed")

TOLERANCE = 1e-4  # log10, per sentence
IRSTLM_BIN = Path("/usr/lib/irstlm/bin")


@pytest.fixture(scope="module")
def training_turns(twcs_dir) -> list[str]:
    return twcs_agent_turns(twcs_dir, limit=4000)


@pytest.fixture(scope="module")
def dstc6_sentences(dstc6_systems, dstc6_refs) -> list[str]:
    """Two systems' responses and the first reference of every context."""
    return dstc6_systems["S_1"] + dstc6_systems["S_2"] + [refs[0] for refs in dstc6_refs]


def _assert_matches_kenlm(lm, path, sentences, bos=True, eos=True):
    """Every sentence within 1e-4 of kenlm. kenlm.Model.score adds the token scores
    in float32, which alone errs by more than 1e-4 on long sentences with many -99
    OOV scores; so the 1e-4 check is against kenlm's token scores summed in double,
    and Model.score itself must agree up to its float32 rounding as well."""
    model = kenlm.Model(str(path))
    ours = lm.score(sentences, bos=bos, eos=eos)
    summed = np.array([math.fsum(t[0] for t in model.full_scores(s, bos=bos, eos=eos)) for s in sentences])
    score = np.array([model.score(s, bos=bos, eos=eos) for s in sentences])
    worst = int(np.argmax(np.abs(ours - summed)))
    assert abs(ours[worst] - summed[worst]) <= TOLERANCE, (sentences[worst], ours[worst], summed[worst])
    predictions = np.array([len(s.split()) + 1 for s in sentences])
    float32_rounding = predictions * np.abs(score) * 2.0 ** -24
    assert np.all(np.abs(ours - score) <= TOLERANCE + float32_rounding)


@pytest.mark.shared_data
@pytest.mark.parametrize("smoothing, order, prune", [
    ("kneser-ney", 2, None), ("kneser-ney", 3, None), ("kneser-ney", 5, None),
    ("katz", 2, None), ("katz", 3, None), ("katz", 2, 1e-6),
])
def test_our_arpa_scores_equal_kenlm_on_dstc6(tmp_path, training_turns, dstc6_sentences, smoothing, order, prune):
    lm = fastamfm.NgramLM.train(training_turns, order=order, smoothing=smoothing, prune=prune, tokenize="whitespace")
    arpa = tmp_path / "model.arpa"
    lm.save_arpa(arpa)
    _assert_matches_kenlm(lm, arpa, dstc6_sentences)
    # The model read back from its ARPA file answers identically.
    np.testing.assert_array_equal(fastamfm.NgramLM.load(arpa).score(dstc6_sentences), lm.score(dstc6_sentences))


@pytest.mark.shared_data
@pytest.mark.parametrize("bos, eos", [(False, True), (True, False), (False, False)])
def test_sentence_boundaries_equal_kenlm(tmp_path, training_turns, dstc6_sentences, bos, eos):
    lm = fastamfm.NgramLM.train(training_turns, order=3, tokenize="whitespace")
    arpa = tmp_path / "model.arpa"
    lm.save_arpa(arpa)
    _assert_matches_kenlm(lm, arpa, dstc6_sentences[:2000], bos, eos)


@pytest.mark.shared_data
def test_token_scores_equal_kenlm_full_scores(tmp_path, training_turns, dstc6_sentences):
    lm = fastamfm.NgramLM.train(training_turns, order=4, tokenize="whitespace")
    arpa = tmp_path / "model.arpa"
    lm.save_arpa(arpa)
    model = kenlm.Model(str(arpa))
    sentences = dstc6_sentences[:500]
    scores = lm.token_scores(sentences)
    assert len(scores) == len(sentences)
    for i, sentence in enumerate(sentences):
        theirs = list(model.full_scores(sentence))
        log10, oov = scores[i]
        span = slice(int(scores.offsets[i]), int(scores.offsets[i + 1]))
        np.testing.assert_allclose(log10, [t[0] for t in theirs], atol=1e-5)
        assert list(scores.ngram_length[span]) == [t[1] for t in theirs]
        assert list(oov) == [t[2] for t in theirs]


def _irstlm_arpa(corpus: list[str], directory: Path, order: int) -> Path:
    tlm = IRSTLM_BIN / "tlm"
    if not tlm.exists():
        pytest.skip("IRSTLM is not installed (apt-get install irstlm) — no second toolkit to build an ARPA with")
    text = directory / "train.txt"
    text.write_text("".join(f"<s> {s} </s>\n" for s in corpus))
    arpa = directory / "irstlm.arpa"
    subprocess.run([str(tlm), f"-tr={text}", f"-n={order}", "-lm=msb", "-bo=yes", f"-o={arpa}"],
                   check=True, capture_output=True)
    return arpa


@pytest.mark.shared_data
def test_irstlm_arpa_scores_equal_kenlm_on_dstc6(tmp_path, training_turns, dstc6_sentences):
    arpa = _irstlm_arpa(training_turns, tmp_path, order=3)
    lm = fastamfm.NgramLM.load(arpa)
    assert lm.order == 3 and lm.smoothing is None
    _assert_matches_kenlm(lm, arpa, dstc6_sentences)


def test_binary_file_answers_like_the_arpa_file(tmp_path):
    corpus = zipf_corpus(2000, vocabulary=500, seed=7)
    test = zipf_corpus(300, vocabulary=600, seed=8) + ["", "w1", "unknown words only"]
    lm = fastamfm.NgramLM.train(corpus, order=4, tokenize="whitespace", lowercase=True)
    lm.save(tmp_path / "model.bin")
    lm.save_arpa(tmp_path / "model.arpa")
    binary = fastamfm.NgramLM.load(tmp_path / "model.bin")
    arpa = fastamfm.NgramLM.load(tmp_path / "model.arpa")
    assert binary.fingerprint == lm.fingerprint
    assert binary.tokenizer.describe() == "tok:whitespace+lc" and binary.metadata == lm.metadata
    assert binary.vocabulary == lm.vocabulary and binary.counts == lm.counts
    np.testing.assert_array_equal(binary.score(test), lm.score(test))
    np.testing.assert_array_equal(arpa.score(test), lm.score(test))
    _assert_matches_kenlm(lm, tmp_path / "model.arpa", test)


def test_only_unknown_words(tmp_path):
    lm = fastamfm.NgramLM.train(zipf_corpus(500, vocabulary=100, seed=1), order=3, tokenize="whitespace")
    lm.save_arpa(tmp_path / "model.arpa")
    sentences = ["zz yy xx", "qq"]
    _assert_matches_kenlm(lm, tmp_path / "model.arpa", sentences)
    scores = lm.token_scores(sentences)
    assert list(scores[0][1]) == [True, True, True, False]  # </s> is known
    assert np.all(np.isfinite(lm.score(sentences)))


def test_scores_do_not_depend_on_threads():
    lm = fastamfm.NgramLM.train(zipf_corpus(1000, seed=2), order=3, tokenize="whitespace")
    sentences = zipf_corpus(5000, seed=9)
    np.testing.assert_array_equal(lm.score(sentences, workers=1), lm.score(sentences, workers=2))
    assert lm.score([]).shape == (0,)
