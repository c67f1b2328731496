"""fastamfm.compat's drop-ins against the real sacrebleu and rouge-score (installed in
the test environment; each group skips without its peer): reference streams, the
variable reference count (None in a stream), the transposition to fastamfm's
per-response layout, printed scores and signatures, significance tests, ROUGE scores
and their bootstrap aggregation, and clear errors on bad input.

Equality is exact (==) everywhere but in one place: the bootstrap means and intervals
(``corpus_score(n_bootstrap=...)``, ``PairedTest``'s ``mean``/``ci``). sacrebleu resamples
its statistics as float32 numpy arrays, so its resampled precisions are rounded to
float32 before the log; fastamfm computes them in double precision from the same
integer sums. Those two agree to a relative 1e-6; the scores, the draws and the p-values
are identical.
"""
from __future__ import annotations

import logging
import math

import numpy as np
import pytest
from hypothesis import given, settings

import fastamfm
from fastamfm.compat import sacrebleu as ours
from fastamfm.compat.rouge_score import rouge_scorer as our_rouge_scorer
from fastamfm.compat.rouge_score import scoring as our_scoring
from fastamfm.compat.rouge_score import tokenize as our_tokenize
from fastamfm.compat.rouge_score import tokenizers as our_tokenizers
from fastamfm.compat.sacrebleu import significance as our_significance
from generation_data import corpus

# Dialogue-like sentences: capitals, punctuation, contractions, numbers, some Unicode.
SENTENCES = [
    "Hi! How are you doing today?",
    "I'm doing great, thanks for asking. How about you?",
    "Not bad. I just got back from a trip to Paris.",
    "Oh nice, did you see the Eiffel Tower?",
    "Yes, we went up to the top at sunset; the view was amazing.",
    "I've always wanted to go there, but flights are so expensive.",
    "We found tickets for 320 euros, which isn't too bad.",
    "That's a good deal. Did you try the croissants?",
    "Every morning! The bakery near our hotel was the best.",
    "Do you remember its name? I'd love to visit it someday.",
    "It was called \"Le Petit Four\", right next to the metro.",
    "Cool, I'll write that down.",
    "Have you read any good books lately?",
    "I'm reading a novel about a detective in 1920s London.",
    "Sounds interesting. Is it part of a series?",
    "Yes, it's the third book; the first two were even better.",
    "I prefer science fiction, especially stories about space travel.",
    "Did you watch the new movie about the mission to Mars?",
    "Not yet, but my friends said the special effects are incredible.",
    "We should go together this weekend.",
    "Sure, Saturday evening works for me.",
    "Great, I'll book the tickets online.",
    "By the way, café prices went up again — €4.50 for a latte!",
    "That's crazy. I make my coffee at home now.",
    "Me too, it saves a lot of money over a year.",
    "What kind of coffee machine do you have?",
    "Just a simple French press, nothing fancy.",
    "Running every day helps me wake up even more than coffee.",
    "How far do you usually run?",
    "About five kilometers, sometimes ten on Sundays.",
    "Wow, I can barely run two.",
    "Everyone starts somewhere; just keep running regularly.",
    "Thanks, that's encouraging.\nI'll try tomorrow morning.",
    "The weather was terrible yesterday.\nIt rained all day long.",
    "Ça va? Ünïcödé tëxt should not break anything.",
    "OK.",
]


def _pairs(k: int = 1):
    """(hyps, stream_a, stream_b): sentence i against its neighbours."""
    n = len(SENTENCES)
    hyps = SENTENCES
    return hyps, [SENTENCES[(i + k) % n] for i in range(n)], [SENTENCES[(i - k) % n] for i in range(n)]


def _same_bleu(a, b):
    assert a.score == b.score
    assert (list(a.counts), list(a.totals), a.precisions, a.bp, a.sys_len, a.ref_len, a.ratio) == \
           (list(b.counts), list(b.totals), b.precisions, b.bp, b.sys_len, b.ref_len, b.ratio)
    assert str(a) == str(b)


# --- sacrebleu ----------------------------------------------------------------------------
try:
    import sacrebleu as real
    from sacrebleu import significance as real_significance
except ImportError:
    real = None
needs_sacrebleu = pytest.mark.skipif(real is None, reason="sacrebleu is not installed (the peer compared with)")

BLEU_SETTINGS = [
    {}, {"tokenize": "intl"}, {"tokenize": "char"}, {"tokenize": "zh"}, {"tokenize": "none"},
    {"lowercase": True}, {"smooth_method": "floor"}, {"smooth_method": "floor", "smooth_value": 0.5},
    {"smooth_method": "add-k"}, {"smooth_method": "add-k", "smooth_value": 2}, {"smooth_method": "none"},
    {"effective_order": True}, {"max_ngram_order": 2}, {"max_ngram_order": 6}, {"trg_lang": "zh"},
]
CHRF_SETTINGS = [{}, {"word_order": 2}, {"char_order": 4, "beta": 3}, {"lowercase": True}, {"whitespace": True},
                 {"eps_smoothing": True}, {"word_order": 2, "eps_smoothing": True}]


@needs_sacrebleu
@pytest.mark.parametrize("options", BLEU_SETTINGS, ids=str)
def test_bleu_on_two_streams_equals_sacrebleu(options):
    hyps, a, b = _pairs()
    mine, theirs = ours.metrics.BLEU(**options), real.metrics.BLEU(**options)
    _same_bleu(mine.corpus_score(hyps, [a, b]), theirs.corpus_score(hyps, [a, b]))
    assert str(mine.get_signature()) == str(theirs.get_signature())
    assert mine.get_signature().format(short=True) == theirs.get_signature().format(short=True)
    for i in (0, 7, 22, 35):
        _same_bleu(mine.sentence_score(hyps[i], [a[i], b[i]]), theirs.sentence_score(hyps[i], [a[i], b[i]]))


@needs_sacrebleu
@pytest.mark.parametrize("options", CHRF_SETTINGS, ids=str)
def test_chrf_on_two_streams_equals_sacrebleu(options):
    hyps, a, b = _pairs()
    mine, theirs = ours.metrics.CHRF(**options), real.metrics.CHRF(**options)
    x, y = mine.corpus_score(hyps, [a, b]), theirs.corpus_score(hyps, [a, b])
    assert (x.score, x.name, str(x)) == (y.score, y.name, str(y))
    assert mine.get_signature().format(short=True) == theirs.get_signature().format(short=True)
    assert str(mine.get_signature()) == str(theirs.get_signature())
    for i in (1, 13, 34):
        assert mine.sentence_score(hyps[i], [a[i], b[i]]).score == theirs.sentence_score(hyps[i], [a[i], b[i]]).score


@needs_sacrebleu
def test_functions_equal_sacrebleus():
    hyps, a, b = _pairs(2)
    _same_bleu(ours.corpus_bleu(hyps, [a, b]), real.corpus_bleu(hyps, [a, b]))
    _same_bleu(ours.raw_corpus_bleu(hyps, [a]), real.raw_corpus_bleu(hyps, [a]))
    _same_bleu(ours.sentence_bleu(hyps[3], [a[3]]), real.sentence_bleu(hyps[3], [a[3]]))
    assert ours.corpus_chrf(hyps, [a, b], word_order=2).score == real.corpus_chrf(hyps, [a, b], word_order=2).score
    assert ours.sentence_chrf(hyps[5], [a[5], b[5]], remove_whitespace=False).score == \
        real.sentence_chrf(hyps[5], [a[5], b[5]], remove_whitespace=False).score
    assert ours.__version__ == real.__version__


@needs_sacrebleu
def test_streams_are_transposed_to_fastamfms_per_response_layout():
    hyps, a, b = _pairs()
    per_response = [[x, y] for x, y in zip(a, b)]
    assert ours.corpus_bleu(hyps, [a, b]).score == fastamfm.sacrebleu(hyps, per_response).corpus["sacreBLEU"]
    assert ours.corpus_chrf(hyps, [a, b]).score == fastamfm.chrf(hyps, per_response).corpus["chrF"]
    # One stream is one reference per response.
    assert ours.corpus_bleu(hyps, [a]).score == fastamfm.sacrebleu(hyps, [[x] for x in a]).corpus["sacreBLEU"]


@needs_sacrebleu
def test_none_in_a_stream_is_a_missing_reference():
    hyps, a, b = _pairs()
    b = [None if i % 3 == 0 else ref for i, ref in enumerate(b)]
    for Metric in ("BLEU", "CHRF"):
        mine, theirs = getattr(ours.metrics, Metric)(), getattr(real.metrics, Metric)()
        assert mine.corpus_score(hyps, [a, b]).score == theirs.corpus_score(hyps, [a, b]).score
        assert str(mine.get_signature()) == str(theirs.get_signature())
        assert "nrefs:var" in str(mine.get_signature())
    per_response = [[x] if y is None else [x, y] for x, y in zip(a, b)]
    assert ours.corpus_bleu(hyps, [a, b]).score == fastamfm.sacrebleu(hyps, per_response).corpus["sacreBLEU"]
    # A reference missing from the first stream and present in the second.
    assert ours.corpus_bleu(hyps, [b, a]).score == real.corpus_bleu(hyps, [b, a]).score


@needs_sacrebleu
def test_empty_string_is_a_reference_of_length_zero_as_in_sacrebleu():
    """sacrebleu 2.6.0 drops only None: '' is a reference (length 0, nrefs counts it)."""
    hyps, a, _ = _pairs()
    empty = ["" if i % 4 == 0 else ref for i, ref in enumerate(a)]
    for streams in ([a, empty], [empty]):
        _same_bleu(ours.corpus_bleu(hyps, streams), real.corpus_bleu(hyps, streams))
        assert ours.corpus_chrf(hyps, streams).score == real.corpus_chrf(hyps, streams).score
    mine, theirs = ours.metrics.BLEU(), real.metrics.BLEU()
    mine.corpus_score(hyps, [a, empty]), theirs.corpus_score(hyps, [a, empty])
    assert str(mine.get_signature()) == str(theirs.get_signature())


@needs_sacrebleu
@settings(max_examples=60, deadline=None)
@given(corpus(max_refs=3, max_size=6))
def test_generated_corpora_with_variable_reference_counts(data):
    hyps, refs = data
    k = max(len(r) for r in refs)
    streams = [[r[j] if j < len(r) else None for r in refs] for j in range(k)]
    _same_bleu(ours.corpus_bleu(hyps, streams), real.corpus_bleu(hyps, streams))
    assert ours.corpus_chrf(hyps, streams, word_order=2).score == real.corpus_chrf(hyps, streams, word_order=2).score
    per_response = fastamfm.sacrebleu(hyps, refs, effective_order=False, layout="responses")
    assert ours.corpus_bleu(hyps, streams).score == per_response.corpus["sacreBLEU"]


@needs_sacrebleu
def test_cached_references_score_many_systems():
    hyps, a, b = _pairs()
    mine = ours.metrics.BLEU(references=[a, b])
    theirs = real.metrics.BLEU(references=[a, b])
    for k in range(1, 4):
        system = hyps[k:] + hyps[:k]
        _same_bleu(mine.corpus_score(system, None), theirs.corpus_score(system, None))
    assert str(mine.get_signature()) == str(theirs.get_signature())
    assert ours.metrics.CHRF(references=[a]).corpus_score(hyps, None).score == \
        real.metrics.CHRF(references=[a]).corpus_score(hyps, None).score


@needs_sacrebleu
def test_compute_bleu_from_statistics():
    rng = np.random.default_rng(0)
    for _ in range(200):
        total = rng.integers(0, 12, 4).tolist()
        correct = [int(rng.integers(0, t + 1)) for t in total]
        sys_len, ref_len = int(rng.integers(0, 15)), int(rng.integers(0, 15))
        for method, value in (("exp", None), ("floor", None), ("floor", 0.3), ("add-k", None), ("add-k", 2),
                              ("none", None)):
            for eff in (False, True):
                args = (list(correct), list(total), sys_len, ref_len, method, value, eff)
                _same_bleu(ours.metrics.BLEU.compute_bleu(*args), real.metrics.BLEU.compute_bleu(*args))


@needs_sacrebleu
def test_printed_forms_equal_sacrebleus():
    hyps, a, b = _pairs()
    for name in ("BLEU", "CHRF"):
        mine, theirs = getattr(ours.metrics, name)(), getattr(real.metrics, name)()
        x, y = mine.corpus_score(hyps, [a, b]), theirs.corpus_score(hyps, [a, b])
        signature = str(theirs.get_signature())
        for options in ({}, {"width": 4}, {"score_only": True}, {"signature": signature},
                        {"signature": signature, "is_json": True}):
            assert x.format(**options) == y.format(**options)
        assert repr(x) == repr(y)


@needs_sacrebleu
def test_bootstrap_interval_equals_sacrebleus(monkeypatch):
    monkeypatch.setenv("SACREBLEU_SEED", "7")
    hyps, a, b = _pairs()
    for name in ("BLEU", "CHRF"):
        mine, theirs = getattr(ours.metrics, name)(), getattr(real.metrics, name)()
        x, y = mine.corpus_score(hyps, [a, b], n_bootstrap=300), theirs.corpus_score(hyps, [a, b], n_bootstrap=300)
        assert x.score == y.score
        # sacrebleu resamples float32 statistics (see the module docstring).
        assert math.isclose(x._mean, y._mean, rel_tol=1e-6) and math.isclose(x._ci, y._ci, rel_tol=1e-5)
        assert x.format() == y.format()
        assert str(mine.get_signature()) == str(theirs.get_signature())


@needs_sacrebleu
@pytest.mark.parametrize("test_type", ["bs", "ar"])
def test_paired_test_equals_sacrebleus(test_type):
    hyps, a, b = _pairs()
    systems = [(f"S{k}", hyps[k:] + hyps[:k]) for k in (0, 1, 2)] + [("same", hyps)]
    outcomes = []
    for module, significance in ((ours, our_significance), (real, real_significance)):
        metrics = {"BLEU": module.metrics.BLEU(references=[a, b]), "chrF": module.metrics.CHRF(references=[a, b])}
        outcomes.append(significance.PairedTest(systems, metrics, None, test_type=test_type, n_samples=400,
                                                n_ar_confidence=100 if test_type == "ar" else -1)())
    (our_sigs, our_scores), (their_sigs, their_scores) = outcomes
    assert {k: str(v) for k, v in our_sigs.items()} == {k: str(v) for k, v in their_sigs.items()}
    assert our_scores["System"] == their_scores["System"]
    for metric in ("BLEU", "chrF2"):
        for x, y in zip(our_scores[metric], their_scores[metric]):
            assert (x.score, x.p_value) == (y.score, y.p_value)
            assert math.isclose(x.mean, y.mean, rel_tol=1e-6) and math.isclose(x.ci, y.ci, rel_tol=1e-4)
    # A system compared with itself: the smallest p-value counts none as different.
    assert our_scores["BLEU"][-1].p_value == 1 / 401


@needs_sacrebleu
def test_bad_input_names_the_stream_and_its_length():
    hyps, a, b = _pairs()
    with pytest.raises(ValueError, match=r"BLEU: reference stream 1 has 35 segments but stream 0 has 36"):
        ours.corpus_bleu(hyps, [a, b[:-1]])
    with pytest.raises(ValueError, match=r"CHRF: the reference streams hold 37 segments but there are 36 hypotheses"):
        ours.corpus_chrf(hyps, [a + ["x"]])
    with pytest.raises(ValueError, match=r"reference stream 1 has 2 segments but stream 0 has 3"):
        ours.metrics.BLEU(references=[["a", "b", "c"], ["a", "b"]])
    with pytest.raises(ValueError, match=r"segment 0 has no reference"):
        ours.corpus_bleu(["x", "y"], [[None, "y"], [None, None]])
    with pytest.raises(TypeError, match=r"hypothesis 1 is NoneType.*undefined line"):
        ours.corpus_bleu(["x", None], [["x", "y"]])
    with pytest.raises(TypeError, match=r"reference stream 0, segment 1 is int"):
        ours.corpus_bleu(["x", "y"], [["x", 3]])
    with pytest.raises(TypeError, match=r"reference streams"):
        ours.corpus_bleu(["x"], "x")
    with pytest.raises(TypeError, match=r"reference stream 0 must be a sequence"):
        ours.corpus_bleu(["x"], ["x"])
    with pytest.raises(RuntimeError, match=r"no references given and none cached"):
        ours.metrics.BLEU().corpus_score(["x"], None)
    with pytest.raises(ValueError, match=r"2 hypotheses but the cached references .* hold 36 segments"):
        ours.metrics.BLEU(references=[a]).corpus_score(["x", "y"], None)
    with pytest.raises(ValueError, match="Number of references unknown"):
        ours.metrics.BLEU().get_signature()


@needs_sacrebleu
def test_what_is_out_of_scope_says_so():
    with pytest.raises(NotImplementedError, match="ja-mecab"):
        ours.metrics.BLEU(tokenize="ja-mecab")
    with pytest.raises(NotImplementedError, match="ko-mecab"):
        ours.metrics.BLEU(trg_lang="ko")
    with pytest.raises(NotImplementedError, match="TER"):
        ours.corpus_ter(["x"], [["x"]])
    with pytest.raises(NotImplementedError, match="TER"):
        ours.metrics.TER()
    with pytest.raises(ValueError, match="unknown tokenize"):
        ours.metrics.BLEU(tokenize="moses")


@needs_sacrebleu
def test_warnings_go_to_sacrebleus_logger(caplog):
    with caplog.at_level(logging.WARNING, logger="sacrebleu"):
        ours.metrics.BLEU().sentence_score("a b", ["a b"])
        ours.metrics.BLEU(tokenize="13a", trg_lang="zh")
        ours.corpus_bleu(["tokenized ."] * 100, [["tokenized ."] * 100])
    messages = " ".join(r.getMessage() for r in caplog.records)
    assert "effective_order" in messages and "'zh'" in messages and "tokenized period" in messages


# --- rouge-score ------------------------------------------------------------------------------
try:
    from rouge_score import rouge_scorer as real_rouge_scorer
    from rouge_score import scoring as real_scoring
except ImportError:
    real_rouge_scorer = None
needs_rouge_score = pytest.mark.skipif(real_rouge_scorer is None,
                                       reason="rouge-score is not installed (the peer compared with)")

ROUGE_TYPES = ["rouge1", "rouge2", "rouge3", "rougeL", "rougeLsum"]


@needs_rouge_score
@pytest.mark.parametrize("use_stemmer", [False, True])
def test_rouge_scores_equal_rouge_scores(use_stemmer):
    mine = our_rouge_scorer.RougeScorer(ROUGE_TYPES, use_stemmer=use_stemmer)
    theirs = real_rouge_scorer.RougeScorer(ROUGE_TYPES, use_stemmer=use_stemmer)
    n = len(SENTENCES)
    for i, prediction in enumerate(SENTENCES):
        for target in (SENTENCES[(i + 1) % n], SENTENCES[(i + 5) % n], prediction, "", "?!"):
            assert mine.score(target, prediction) == theirs.score(target, prediction), (target, prediction)
        targets = [SENTENCES[(i + k) % n] for k in (1, 2, 3)] + [prediction.upper()]
        assert mine.score_multi(targets, prediction) == theirs.score_multi(targets, prediction)


@needs_rouge_score
def test_score_multi_keeps_the_first_of_equal_targets():
    mine, theirs = our_rouge_scorer.RougeScorer(ROUGE_TYPES), real_rouge_scorer.RougeScorer(ROUGE_TYPES)
    targets = ["a b c d", "c d a b", "a b x y", "x y a b"]      # equal F1, different precision paths
    for prediction in ("a b", "c d a", "b"):
        assert mine.score_multi(targets, prediction) == theirs.score_multi(targets, prediction)


@needs_rouge_score
def test_a_custom_tokenizer_scores_its_own_tokens():
    class Characters:
        def tokenize(self, text):
            return [c for c in text if not c.isspace()]

    mine = our_rouge_scorer.RougeScorer(ROUGE_TYPES, tokenizer=Characters())
    theirs = real_rouge_scorer.RougeScorer(ROUGE_TYPES, tokenizer=Characters())
    for target, prediction in zip(SENTENCES, SENTENCES[3:]):
        assert mine.score(target, prediction) == theirs.score(target, prediction)


@needs_rouge_score
def test_split_summaries_uses_nltks_punkt(monkeypatch):
    nltk = pytest.importorskip("nltk")
    # The sentence splitter is NLTK's; replaced here by a rule so no punkt model is needed.
    monkeypatch.setattr(nltk, "sent_tokenize", lambda text: [s + "." for s in text.split(". ") if s])
    mine = our_rouge_scorer.RougeScorer(["rouge1", "rougeLsum"], split_summaries=True)
    theirs = real_rouge_scorer.RougeScorer(["rouge1", "rougeLsum"], split_summaries=True)
    for target, prediction in zip(SENTENCES, SENTENCES[1:]):
        target, prediction = f"{target}. {prediction}", f"{prediction}. {target}"
        assert mine.score(target, prediction) == theirs.score(target, prediction)


@needs_rouge_score
def test_bootstrap_aggregation_equals_rouge_scores_under_one_seed():
    mine, theirs = our_scoring.BootstrapAggregator(), real_scoring.BootstrapAggregator(confidence_interval=0.95)
    scorer = our_rouge_scorer.RougeScorer(ROUGE_TYPES)
    for target, prediction in zip(SENTENCES, SENTENCES[2:]):
        scores = scorer.score(target, prediction)
        mine.add_scores(scores)
        theirs.add_scores({k: real_scoring.Score(*v) for k, v in scores.items()})
    np.random.seed(123)
    ours_aggregate = mine.aggregate()
    np.random.seed(123)
    their_aggregate = theirs.aggregate()
    assert {k: tuple(map(tuple, v)) for k, v in ours_aggregate.items()} == \
        {k: tuple(map(tuple, v)) for k, v in their_aggregate.items()}


@needs_rouge_score
def test_tokenizers_equal_rouge_scores():
    from nltk.stem import porter
    from rouge_score import tokenize as real_tokenize

    stemmer = porter.PorterStemmer()
    for text in SENTENCES:
        assert our_tokenize.tokenize(text, None) == real_tokenize.tokenize(text, None)
        assert our_tokenize.tokenize(text, stemmer) == real_tokenize.tokenize(text, stemmer)
        assert our_tokenizers.DefaultTokenizer(True).tokenize(text) == real_tokenize.tokenize(text, stemmer)


@needs_rouge_score
def test_rouge_bad_input():
    with pytest.raises(ValueError, match="rouge10"):
        our_rouge_scorer.RougeScorer(["rouge10"])
    with pytest.raises(TypeError, match="list of types"):
        our_rouge_scorer.RougeScorer("rouge1")
    scorer = our_rouge_scorer.RougeScorer(["rouge1"])
    with pytest.raises(ValueError, match="no target"):
        scorer.score_multi([], "x")
    with pytest.raises(TypeError, match="prediction must be a string"):
        scorer.score("x", None)
    with pytest.raises(ValueError, match="confidence_interval"):
        our_scoring.BootstrapAggregator(confidence_interval=1.5)
