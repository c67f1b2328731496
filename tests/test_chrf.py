"""fastamfm.chrf / the registry metrics "chrf" and "chrf_plus": sacrebleu's chrF and
chrF++ on DSTC-6 and Topical-Chat, every option, the readable oracle, signature,
summable statistics, paired bootstrap rows, bad input."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastamfm
from generation_data import corpus, text, topical_chat_pairs, words
from oracles import generation as oracle

CHRF = pytest.importorskip("sacrebleu.metrics").CHRF


def _streams(refs):
    k = max(len(r) for r in refs)
    return [[r[j] if j < len(r) else None for r in refs] for j in range(k)]


def _sacrebleu(metric, hyps, refs):
    """(corpus score, sentence scores) by sacrebleu, the references prepared once."""
    metric._ref_cache = metric._cache_references(_streams(refs))
    stats = metric._extract_corpus_statistics(hyps, None)
    return metric._aggregate_and_compute(stats).score, np.array([metric._compute_score_from_stats(s).score
                                                               for s in stats])


@pytest.mark.slow
@pytest.mark.parametrize("word_order", [0, 2])
def test_dstc6_systems(dstc6_systems, dstc6_refs, word_order):
    """All 20 systems on their first 300 responses x 11 references (sacrebleu needs ~2 ms
    a response; benchmarks/generation/exactness.py compares all 40,000), chrF++ on three."""
    n = 300
    refs = fastamfm.References(dstc6_refs[:n])
    metric = CHRF(word_order=word_order)
    metric._ref_cache = metric._cache_references(_streams(dstc6_refs[:n]))
    systems = list(dstc6_systems) if word_order == 0 else ["S_1", "S_10", "S_20"]
    for name in systems:
        hyps = dstc6_systems[name][:n]
        ours = fastamfm.chrf(hyps, refs, word_order=word_order)
        (column,) = ours.columns
        stats = metric._extract_corpus_statistics(hyps, None)
        assert abs(ours.corpus[column] - metric._aggregate_and_compute(stats).score) <= 1e-9, name
        theirs = np.array([metric._compute_score_from_stats(s).score for s in stats])
        assert np.abs(ours.sentences[column] - theirs).max() <= 1e-9, name


def test_sentence_scores_are_sentence_score_calls(dstc6_systems, dstc6_refs):
    hyps, refs = dstc6_systems["S_9"][:100], dstc6_refs[:100]
    for options in ({}, {"word_order": 2}):
        metric = CHRF(**options)
        expected = [metric.sentence_score(h, r).score for h, r in zip(hyps, refs)]
        ours = fastamfm.chrf(hyps, refs, **options)
        (column,) = ours.columns
        assert ours.sentences[column].tolist() == expected


@pytest.mark.parametrize("options", [{}, {"word_order": 2}, {"lowercase": True, "word_order": 2},
                                     {"whitespace": True, "eps_smoothing": True}, {"char_order": 4, "beta": 1}])
def test_topical_chat(topical_chat_dir, options):
    hyps, refs = topical_chat_pairs(topical_chat_dir, 1500)
    ours = fastamfm.chrf(hyps, refs, **options)
    corpus_score, sentences = _sacrebleu(CHRF(**options), hyps, refs)
    (column,) = ours.columns
    assert abs(ours.corpus[column] - corpus_score) <= 1e-9
    assert np.abs(ours.sentences[column] - sentences).max() <= 1e-9


@settings(max_examples=60, deadline=None)
@given(data=corpus(st.one_of(text, words)), word_order=st.integers(0, 2), char_order=st.integers(0, 6),
       beta=st.sampled_from([1, 2, 3, 0.5]), whitespace=st.booleans(), eps=st.booleans(), lowercase=st.booleans())
def test_generated_text_every_option(data, word_order, char_order, beta, whitespace, eps, lowercase):
    if char_order + word_order == 0:
        char_order = 1
    hyps, refs = data
    options = dict(char_order=char_order, word_order=word_order, beta=beta, whitespace=whitespace,
                   eps_smoothing=eps, lowercase=lowercase)
    ours = fastamfm.chrf(hyps, refs, **options)
    metric = CHRF(**options)
    assert ours.corpus[ours.columns[0]] == pytest.approx(metric.corpus_score(hyps, _streams(refs)).score, rel=1e-12,
                                                         abs=1e-12)
    expected = [metric.sentence_score(h, r).score for h, r in zip(hyps, refs)]
    np.testing.assert_allclose(ours.sentences[ours.columns[0]], expected, rtol=1e-12, atol=1e-12)
    for h, r, got in zip(hyps, refs, ours.sentences[ours.columns[0]]):
        if lowercase:
            h, r = h.lower(), [x.lower() for x in r]
        want, _ = oracle.chrf_sentence(h, r, char_order=char_order, word_order=word_order, whitespace=whitespace,
                                       beta=beta, eps_smoothing=eps)
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_chrf_plus_is_word_order_two_and_signature():
    hyps, refs = ["the cat sat on the mat."], [["a cat sat on a mat!", "the cat is here"]]
    res = fastamfm.evaluate(hyps, refs, metrics=["chrf", "chrf++"])
    assert res.corpus["chrF++"] == fastamfm.chrf(hyps, refs, word_order=2).corpus["chrF++"]
    assert res.corpus["chrF"] == fastamfm.chrf(hyps, refs).corpus["chrF"]
    metric = CHRF(word_order=2)
    metric.corpus_score(hyps, _streams(refs))
    assert fastamfm.chrf(hyps, refs, word_order=2).extra["sacrebleu_signature"] == metric.get_signature().format()


def test_chunks_add_up_and_resample_rows_sum_to_the_corpus(dstc6_systems, dstc6_refs):
    hyps, refs = dstc6_systems["S_3"][:500], dstc6_refs[:500]
    whole = fastamfm.chrf(hyps, refs, word_order=2)
    total = None
    for start in range(0, 500, 77):
        part = fastamfm.chrf(hyps[start:start + 77], refs[start:start + 77], word_order=2).extra["statistics"]
        total = part if total is None else total + part
    assert total == whole.extra["statistics"]
    metric = fastamfm.registry.build("chrf_plus")
    assert metric.compute(total)["chrF++"] == whole.corpus["chrF++"]
    rows = whole.extra["segments"].sum(axis=0, keepdims=True).astype(np.float64)
    batch = fastamfm.pipeline.Pipeline([metric]).batch(hyps, refs)
    chunk = metric.update(batch)
    assert metric.sentence_statistics(batch, chunk).scores(rows)["chrF++"][0] == whole.corpus["chrF++"]


@pytest.mark.parametrize("kwargs, message", [
    ({"char_order": 0, "word_order": 0}, "cannot both be 0"),
    ({"char_order": 17}, "char_order must be an int in 0..16"),
    ({"beta": -1}, "beta must be a number >= 0"),
    ({"workers": 0.5}, "workers must be an int"),
])
def test_bad_options(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        fastamfm.chrf(["a"], [["a"]], **kwargs)


def test_empty_strings_score_as_sacrebleu_does():
    hyps, refs = ["", "abc", ""], [["abc"], [""], [""]]
    ours = fastamfm.chrf(hyps, refs)
    metric = CHRF()
    assert ours.sentences["chrF"].tolist() == [metric.sentence_score(h, r).score for h, r in zip(hyps, refs)] == [0, 0, 0]
    assert ours.corpus["chrF"] == metric.corpus_score(hyps, _streams(refs)).score
