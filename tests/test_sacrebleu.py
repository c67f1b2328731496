"""fastamfm.sacrebleu / the registry metric "sacrebleu": sacrebleu's BLEU, corpus and
sentence, on DSTC-6 (20 systems x 2000 responses x 11 references) and Topical-Chat, every
tokenizer, smoothing and effective-order setting; its signature; summable statistics;
its paired bootstrap; bad input."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastamfm
from generation_data import corpus, text, topical_chat_pairs, words
from oracles import generation as oracle

sacrebleu_metrics = pytest.importorskip("sacrebleu.metrics")
BLEU = sacrebleu_metrics.BLEU


def _streams(refs):
    """sacrebleu's reference streams: None where a segment has fewer references."""
    k = max(len(r) for r in refs)
    return [[r[j] if j < len(r) else None for r in refs] for j in range(k)]


def _sentence_scores(metric, hyps, refs):
    """sacrebleu's sentence scores via its own per-segment statistics and compute path
    (what sentence_score runs), the references prepared once."""
    metric._ref_cache = metric._cache_references(_streams(refs))
    stats = metric._extract_corpus_statistics(hyps, None)
    return np.array([metric._compute_score_from_stats(s).score for s in stats])


@pytest.mark.slow
def test_dstc6_every_system_corpus_and_sentences(dstc6_systems, dstc6_refs):
    refs = fastamfm.References(dstc6_refs)
    corpus_metric = BLEU(references=_streams(dstc6_refs))
    sentence_metric = BLEU(effective_order=True)
    sentence_metric._ref_cache = corpus_metric._ref_cache
    for name, hyps in dstc6_systems.items():
        ours = fastamfm.sacrebleu(hyps, refs)
        # Bit for bit, on every Python: sacrebleu sums its logs with sum(), compensated
        # from Python 3.12 on, and fastamfm sums them as the running interpreter does.
        assert ours.corpus["sacreBLEU"] == corpus_metric.corpus_score(hyps, None).score, name
        stats = sentence_metric._extract_corpus_statistics(hyps, None)
        theirs = np.array([sentence_metric._compute_score_from_stats(s).score for s in stats])
        assert np.abs(ours.sentences["sacreBLEU"] - theirs).max() == 0, name


def test_sentence_scores_are_sentence_score_calls(dstc6_systems, dstc6_refs):
    hyps, refs = dstc6_systems["S_4"][:150], dstc6_refs[:150]
    expected = [BLEU(effective_order=True).sentence_score(h, r).score for h, r in zip(hyps, refs)]
    assert fastamfm.sacrebleu(hyps, refs).sentences["sacreBLEU"].tolist() == expected


@pytest.mark.parametrize("smooth", ["exp", "floor", "add-k", "none"])
def test_bit_identical_under_this_pythons_sum(dstc6_systems, dstc6_refs, smooth):
    """On Python 3.12+ sum() of floats is compensated (Neumaier); before, it rounds at each
    step. 46 of these 150 sentence scores of S_4 differed in the last 1-4 ulps on 3.12 while
    fastamfm summed plainly. Every smoothing, sentence and corpus, pairwise too: no difference."""
    import sys

    hyps, refs = dstc6_systems["S_4"][:150], dstc6_refs[:150]
    metric = BLEU(effective_order=True, smooth_method=smooth)
    expected = np.array([metric.sentence_score(h, r).score for h, r in zip(hyps, refs)])
    ours = fastamfm.sacrebleu(hyps, refs, smooth_method=smooth)
    difference = np.abs(ours.sentences["sacreBLEU"] - expected).max()
    print(f"Python {sys.version.split()[0]}, smooth={smooth}: max |fastamfm - sacrebleu| = {difference}")
    assert difference == 0
    assert ours.corpus["sacreBLEU"] == BLEU(smooth_method=smooth).corpus_score(hyps, _streams(refs)).score
    single = [r[0] for r in refs[:40]]
    pairwise = fastamfm.pairwise(hyps[:40], single, metric="sacrebleu", smooth_method=smooth)
    pairs = np.array([[metric.sentence_score(h, [r]).score for r in single] for h in hyps[:40]], dtype=np.float32)
    assert np.array_equal(pairwise, pairs)


@pytest.mark.parametrize("tokenize, lowercase", [("13a", False), ("13a", True), ("intl", False), ("intl", True),
                                                 ("char", False), ("zh", False), ("none", False)])
def test_topical_chat_every_tokenizer(topical_chat_dir, tokenize, lowercase):
    hyps, refs = topical_chat_pairs(topical_chat_dir, 1500)
    ours = fastamfm.sacrebleu(hyps, refs, tokenize=tokenize, lowercase=lowercase)
    corpus_metric = BLEU(tokenize=tokenize, lowercase=lowercase)
    assert abs(ours.corpus["sacreBLEU"] - corpus_metric.corpus_score(hyps, _streams(refs)).score) <= 1e-9
    theirs = _sentence_scores(BLEU(tokenize=tokenize, lowercase=lowercase, effective_order=True), hyps, refs)
    assert np.abs(ours.sentences["sacreBLEU"] - theirs).max() <= 1e-9
    assert ours.extra["sacrebleu_signature"] == corpus_metric.get_signature().format()


@pytest.mark.parametrize("smooth", ["exp", "floor", "add-k", "none"])
@settings(max_examples=40, deadline=None)
@given(data=corpus(st.one_of(text, words)), effective_order=st.booleans(),
       order=st.integers(1, 5), value=st.sampled_from([None, 0.5, 2]))
def test_generated_text_every_setting(smooth, data, effective_order, order, value):
    hyps, refs = data
    value = None if smooth not in ("floor", "add-k") else value
    options = dict(smooth_method=smooth, smooth_value=value, max_ngram_order=order, effective_order=effective_order)
    ours = fastamfm.sacrebleu(hyps, refs, layout="responses", **options)
    metric = BLEU(**options)
    assert ours.corpus["sacreBLEU"] == pytest.approx(metric.corpus_score(hyps, _streams(refs)).score, rel=1e-12,
                                                     abs=1e-12)
    expected = [metric.sentence_score(h, r).score for h, r in zip(hyps, refs)]
    assert ours.sentences["sacreBLEU"].tolist() == expected
    # The readable oracle on the same tokens.
    tok = fastamfm._core.Tokenizer("13a", False)
    for h, r, got in zip(hyps, refs, ours.sentences["sacreBLEU"]):
        stats = oracle.bleu_statistics(tok.tokenize(h), [tok.tokenize(x) for x in r], order)
        assert got == pytest.approx(oracle.sacrebleu_score(*stats, smooth, value, effective_order), rel=1e-12,
                                    abs=1e-12)


def test_signature_as_sacrebleu_prints_it():
    hyps, refs = ["a b c", "d e"], [["a b c", "x"], ["d e f"]]
    ours = fastamfm.sacrebleu(hyps, refs, tokenize="intl", lowercase=True, smooth_method="floor", smooth_value=0.2)
    metric = BLEU(tokenize="intl", lowercase=True, smooth_method="floor", smooth_value=0.2)
    metric.corpus_score(hyps, _streams(refs))
    assert ours.extra["sacrebleu_signature"] == metric.get_signature().format()
    assert "nrefs:var" in ours.extra["sacrebleu_signature"]
    assert ours.extra["sentence_signature"].startswith("nrefs:var|case:lc|eff:yes|tok:intl|smooth:floor[0.20]")


def test_chunks_add_up_to_the_whole_corpus(dstc6_systems, dstc6_refs):
    hyps, refs = dstc6_systems["S_2"][:700], dstc6_refs[:700]
    whole = fastamfm.sacrebleu(hyps, refs)
    total = None
    for start in range(0, 700, 97):
        part = fastamfm.sacrebleu(hyps[start:start + 97], refs[start:start + 97]).extra["statistics"]
        total = part if total is None else total + part
    assert total == whole.extra["statistics"]
    metric = fastamfm.registry.build("sacrebleu")
    assert metric.compute(total)["sacreBLEU"] == whole.corpus["sacreBLEU"]
    assert metric.compute(metric.statistics_from_json(total.to_json()))["sacreBLEU"] == whole.corpus["sacreBLEU"]


def test_paired_bootstrap_equals_sacrebleu(dstc6_systems, dstc6_refs, monkeypatch):
    """compare_systems resamples sacrebleu's statistics with sacrebleu's draws (seed 12345):
    the same p-values as ``sacrebleu --paired-bs`` on raw text."""
    from sacrebleu.significance import PairedTest

    n = 400
    systems = {s: dstc6_systems[s][:n] for s in ("S_1", "S_5", "S_12")}
    refs = dstc6_refs[:n]
    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    test = PairedTest(list(systems.items()), {"BLEU": BLEU(force=True)}, _streams(refs), test_type="bs",
                      n_samples=1000)
    _, scores = test()
    theirs = dict(zip(scores["System"], scores["BLEU"]))
    ours = fastamfm.compare_systems(systems, refs, metrics=["sacrebleu"], seed=12345, correction="none")
    for s in ("S_5", "S_12"):
        assert ours[s, "sacreBLEU"].score == pytest.approx(theirs[s].score, rel=1e-9)
        assert ours.p_value(s, "sacreBLEU") == pytest.approx(theirs[s].p_value, abs=1e-12)


def test_an_empty_reference_is_a_reference_of_length_zero():
    ours = fastamfm.sacrebleu(["a b", ""], [["", "a b c"], [""]])
    metric = BLEU()
    assert ours.corpus["sacreBLEU"] == metric.corpus_score(["a b", ""], [["", ""], ["a b c", None]]).score
    assert ours.sentences["sacreBLEU"][1] == 0.0


@pytest.mark.parametrize("kwargs, error, message", [
    ({"tokenize": "moses"}, ValueError, "tokenize must be one of"),
    ({"smooth_method": "laplace"}, ValueError, "smooth_method must be one of"),
    ({"smooth_method": "exp", "smooth_value": 0.1}, ValueError, "smooth_value applies to"),
    ({"smooth_method": "floor", "smooth_value": -1}, ValueError, "smooth_value must be a number >= 0"),
    ({"max_ngram_order": 0}, ValueError, "max_ngram_order must be an int in 1..16"),
    ({"effective_order": "yes"}, TypeError, "effective_order must be"),
])
def test_bad_options(kwargs, error, message):
    with pytest.raises(error, match=message):
        fastamfm.sacrebleu(["a"], [["a"]], **kwargs)


def test_bad_input_names_the_place():
    with pytest.raises(ValueError, match="sacrebleu: hyps is empty"):
        fastamfm.sacrebleu([], [])
    with pytest.raises(ValueError, match="2 hypotheses but 1 reference lists"):
        fastamfm.sacrebleu(["a", "b"], [["a"]])
    with pytest.raises(TypeError, match=r"hyps\[1\] is int"):
        fastamfm.sacrebleu(["a", 1], [["a"], ["b"]])
    with pytest.raises(ValueError, match=r"refs\[0\] has no reference"):
        fastamfm.sacrebleu(["a"], [[]])


def test_all_empty_corpus_scores_zero_as_sacrebleu_does():
    ours = fastamfm.sacrebleu(["", " "], [[""], ["  "]])
    assert ours.corpus["sacreBLEU"] == BLEU().corpus_score(["", " "], [["", "  "]]).score == 0.0
    assert ours.sentences["sacreBLEU"].tolist() == [0.0, 0.0]
