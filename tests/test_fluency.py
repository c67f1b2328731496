"""fastamfm.fluency (FM) equals its definition computed from kenlm's sentence scores."""
from __future__ import annotations

import math
import re

import fastamfm
import numpy as np
import pytest
from lm_corpora import twcs_agent_turns, zipf_corpus


def fm_oracle(hyp_log10, ref_log10, hyp_words, ref_words, normalization, combine):
    """The AM-FM toolkit's FM from log10 sentence scores (N+1 predictions incl. </s>), with
    fastamfm's rule for a sentence without a scored word (N = 0): probability 0, so that
    an empty response never rates as fluent, and a ratio of 0 when both are 0."""
    def prob(log10, n):
        if n == 0:
            return 0.0
        divisor = n if normalization == "per-word" else n + 1
        return math.exp(log10 * math.log(10) / divisor)

    p_hyp = prob(hyp_log10, hyp_words)
    ratios = []
    for log10, n in zip(ref_log10, ref_words):
        p_ref = prob(log10, n)
        ratios.append(min(p_hyp, p_ref) / max(p_hyp, p_ref) if max(p_hyp, p_ref) > 0 else 0.0)
    if combine == "mean":
        return sum(ratios) / len(ratios)
    return max(ratios) if combine == "max" else max(ratios) - min(ratios)


def _oracle_scores(hyps, refs, stats_of, normalization, combine):
    """stats_of(sentence) -> (log10 P, N) as the OOV policy counts them."""
    def fm(h, rs):
        (hyp_log10, hyp_words), ref_stats = stats_of(h), [stats_of(r) for r in rs]
        return fm_oracle(hyp_log10, [s[0] for s in ref_stats], hyp_words, [s[1] for s in ref_stats],
                         normalization, combine)
    return np.array([fm(h, rs) for h, rs in zip(hyps, refs)])


def skip_oov_stats(token_log10, token_oov):
    """SRILM -ppl's counting: unknown words leave the sum and N (the last prediction is </s>)."""
    log10 = math.fsum(p for p, unknown in zip(token_log10, token_oov) if not unknown)
    return log10, sum(1 for unknown in token_oov[:-1] if not unknown)


@pytest.fixture(scope="module")
def small_lm():
    return fastamfm.NgramLM.train(zipf_corpus(2000, vocabulary=300, seed=11), order=3, tokenize="whitespace")


@pytest.mark.parametrize("normalization", ["per-word", "inverse-perplexity"])
@pytest.mark.parametrize("combine", ["mean", "max", "maxmin"])
@pytest.mark.parametrize("oov", ["skip", "score"])
def test_fluency_equals_definition(small_lm, normalization, combine, oov):
    hyps = zipf_corpus(200, vocabulary=350, seed=12) + ["", "unseenword", "w1 unseenword w2"]
    refs = [zipf_corpus(1 + i % 3, vocabulary=350, seed=100 + i) for i in range(len(hyps))]
    sentences = hyps + [r for rs in refs for r in rs]
    if oov == "score":
        stats = {s: (log10, len(s.split())) for s, log10 in zip(sentences, small_lm.score(sentences))}
    else:
        tokens = small_lm.token_scores(sentences)
        stats = {s: skip_oov_stats(*tokens[i]) for i, s in enumerate(sentences)}
    result = fastamfm.fluency(hyps, refs, small_lm, normalization=normalization, combine=combine, oov=oov)
    expected = _oracle_scores(hyps, refs, stats.__getitem__, normalization, combine)
    np.testing.assert_allclose(result.sentences["FM"], expected, rtol=1e-12, atol=1e-15)
    assert result.corpus["FM"] == pytest.approx(expected.mean())
    assert result.name == "fm" and f"normalization={normalization}" in result.signature
    assert f"combine={combine}" in result.signature and f"lm={small_lm.fingerprint}" in result.signature
    assert f"oov={oov}" in result.signature
    assert result.extra["hyp_prob"].shape == (len(hyps),)


@pytest.mark.shared_data
def test_fluency_on_dstc6_equals_definition_with_kenlm(tmp_path, twcs_dir, dstc6_systems, dstc6_refs):
    kenlm = pytest.importorskip("kenlm", reason="kenlm (the reference scorer) is not installed")
    lm = fastamfm.NgramLM.train(twcs_agent_turns(twcs_dir, limit=3000), order=2, smoothing="katz", tokenize="whitespace")
    lm.save_arpa(tmp_path / "fm.arpa")
    model = kenlm.Model(str(tmp_path / "fm.arpa"))
    hyps = dstc6_systems["S_3"][:500]
    refs = dstc6_refs[:500]
    # Sum kenlm's token scores in double (Model.score sums in float32).
    def kenlm_stats(s, oov):
        scores = list(model.full_scores(s))
        if oov == "score":
            return math.fsum(t[0] for t in scores), len(s.split())
        return skip_oov_stats([t[0] for t in scores], [t[2] for t in scores])

    references = fastamfm.References(refs)
    for oov in ("skip", "score"):
        expected = _oracle_scores(hyps, refs, lambda s: kenlm_stats(s, oov), "per-word", "mean")
        result = fastamfm.fluency(hyps, references, lm, oov=oov)
        np.testing.assert_allclose(result.sentences["FM"], expected, rtol=1e-4)
        np.testing.assert_array_equal(fastamfm.fluency(hyps, refs, lm, oov=oov).sentences["FM"], result.sentences["FM"])


def test_identical_sentences_score_one(small_lm):
    hyps = ["w1 w2 w3", "w9"]
    assert fastamfm.fluency(hyps, [[h] for h in hyps], small_lm).sentences["FM"].tolist() == [1.0, 1.0]
    assert fastamfm.fluency(hyps, [[h] for h in hyps], small_lm, combine="maxmin").sentences["FM"].tolist() == [0.0, 0.0]


def test_references_are_tokenized_as_the_lm_was(small_lm):
    shared = fastamfm.References([["w1 w2"]], tokenize="amfm")  # another preset prepared up front
    assert fastamfm.fluency(["w1"], shared, small_lm).sentences["FM"].tolist() == \
        fastamfm.fluency(["w1"], [["w1 w2"]], small_lm).sentences["FM"].tolist()


@pytest.mark.parametrize("args, options, error, what", [
    ((["a"], [["a"], ["b"]]), {}, ValueError, "1 hypotheses but 2 reference lists"),
    (([], []), {}, ValueError, "hyps is empty"),
    ((["a"], [[]]), {}, ValueError, "refs[0] has no reference"),
    ((["a"], [["a"]]), {"normalization": "per-token"}, ValueError, "normalization must be one of"),
    ((["a"], [["a"]]), {"combine": "min"}, ValueError, "combine must be one of"),
    (("a", [["a"]]), {}, TypeError, "hyps must be a sequence of strings, not a single string"),
])
def test_bad_input(small_lm, args, options, error, what):
    with pytest.raises(error, match=re.escape(what)):
        fastamfm.fluency(*args, small_lm, **options)


def test_lm_must_be_an_ngram_lm():
    with pytest.raises(TypeError, match="lm must be a fastamfm.NgramLM"):
        fastamfm.fluency(["a"], [["a"]], "model.arpa")


def test_unknown_words_are_skipped_by_default_and_scored_on_request(small_lm):
    hyps, refs = ["w1 w2 zzunknown"], [["w1 w2"]]
    skip = fastamfm.fluency(hyps, refs, small_lm)
    score = fastamfm.fluency(hyps, refs, small_lm, oov="score")
    assert "oov=skip" in skip.signature and skip.sentences["FM"][0] > score.sentences["FM"][0]
    with pytest.raises(ValueError, match="oov must be one of"):
        fastamfm.fluency(hyps, refs, small_lm, oov="drop")
