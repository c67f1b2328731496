"""Reference layouts: fastamfm's per-response ``refs[i]`` against sacrebleu's / nlg-eval's
streams ``refs[j][i]``. Lists that fit both warn (never a silently wrong number);
``References.from_streams`` / ``layout="streams"`` read streams exactly as sacrebleu does."""
import warnings

import pytest

import fastamfm
from fastamfm import AmbiguousReferencesWarning, References

# sacrebleu's README example, cut to 2 hypotheses: 2 streams of 2 references each fit
# both layouts.
HYPS = ["The dog bit the man.", "It wasn't surprising."]
STREAMS = [["The dog bit the man.", "It was not unexpected."],
           ["The dog had bit the man.", "No one was surprised."]]


def ambiguous(record):
    return [w for w in record if issubclass(w.category, AmbiguousReferencesWarning)]


def score_recording(fn, *args, **kwargs):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        result = fn(*args, **kwargs)
    return result, ambiguous(record)


def test_per_response_reading_of_streams_warns_and_names_the_fix():
    result, caught = score_recording(fastamfm.sacrebleu, HYPS, STREAMS)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "per response" in message and "streams" in message
    assert "References.from_streams" in message and 'layout="responses"' in message
    assert caught[0].filename == __file__  # points at the caller's line
    # Read per response: hyps[1] was scored against stream 1, not its own references.
    per_response = fastamfm.sacrebleu(HYPS, [[STREAMS[0][0], STREAMS[0][1]], [STREAMS[1][0], STREAMS[1][1]]],
                                      layout="responses")
    assert result.corpus == per_response.corpus


def test_streams_give_sacrebleus_number():
    sacrebleu = pytest.importorskip("sacrebleu")
    expected = sacrebleu.corpus_bleu(HYPS, STREAMS).score
    wrong, _ = score_recording(fastamfm.sacrebleu, HYPS, STREAMS)
    assert wrong.corpus["sacreBLEU"] != pytest.approx(expected)
    for result in (fastamfm.sacrebleu(HYPS, References.from_streams(STREAMS)),
                   fastamfm.sacrebleu(HYPS, STREAMS, layout="streams"),
                   fastamfm.evaluate(HYPS, STREAMS, ["sacrebleu"], layout="streams")):
        assert result.corpus["sacreBLEU"] == pytest.approx(expected, abs=1e-9)
    chrf = sacrebleu.corpus_chrf(HYPS, STREAMS).score
    assert fastamfm.chrf(HYPS, STREAMS, layout="streams").corpus["chrF"] == pytest.approx(chrf, abs=1e-9)


@pytest.mark.parametrize("refs, kwargs", [
    ([["a b", "c d", "e f"], ["g h", "i j", "k l"]], {}),      # 2 hyps, 3 refs each
    ([["a b"], ["c d"]], {}),                                   # 2 hyps, 1 ref each
    ([["a b", "c d"], ["e f"]], {}),                            # ragged
    (References([["a b", "c d"], ["e f", "g h"]]), {}),        # a References says per response
    ([["a b", "c d"], ["e f", "g h"]], {"layout": "responses"}),
    ([["a b", "c d"], ["e f", "g h"]], {"layout": "streams"}),
])
def test_no_warning_when_the_layout_is_unambiguous_or_said(refs, kwargs):
    _, caught = score_recording(fastamfm.bleu, ["a b", "e f"], refs, **kwargs)
    assert caught == []


def test_single_hypothesis_never_warns():
    _, caught = score_recording(fastamfm.bleu, ["a b"], [["a b"]])
    assert caught == []


def test_warned_once_per_call_not_per_metric():
    _, caught = score_recording(fastamfm.evaluate, HYPS, STREAMS, ["bleu", "rouge_l", "cider", "sacrebleu", "chrf"])
    assert len(caught) == 1
    assert str(caught[0].message).startswith("evaluate:")


def test_compute_metrics_lists_warn_and_take_layout():
    _, caught = score_recording(fastamfm.compute_metrics, HYPS, STREAMS, metrics=["Bleu_1", "ROUGE_L"])
    assert len(caught) == 1 and str(caught[0].message).startswith("compute_metrics:")
    streams, caught = score_recording(fastamfm.compute_metrics, HYPS, STREAMS, metrics=["Bleu_1", "ROUGE_L"],
                                      layout="streams")
    assert caught == []
    # nlg-eval's NLGEval.compute_metrics takes ref_list as streams: no ambiguity, same numbers.
    nlgeval, caught = score_recording(fastamfm.NLGEval(no_glove=True, metrics_to_omit=["METEOR", "CIDEr"])
                                      .compute_metrics, STREAMS, HYPS)
    assert caught == []
    assert nlgeval["Bleu_1"] == pytest.approx(streams["Bleu_1"]) and nlgeval["ROUGE_L"] == pytest.approx(
        streams["ROUGE_L"])


def test_streams_with_none_as_sacrebleu():
    sacrebleu = pytest.importorskip("sacrebleu")
    hyps = ["the cat sat on the mat", "a dog barked", "nothing here"]
    streams = [["the cat sat on a mat", None, "nothing at all here"],
               ["a cat sat on the mat", "the dog barked loudly", ""]]
    refs = References.from_streams(streams)
    assert [list(r) for r in refs] == [[streams[0][0], streams[1][0]], ["the dog barked loudly"],
                                       ["nothing at all here", ""]]
    expected = sacrebleu.corpus_bleu(hyps, streams)
    result = fastamfm.sacrebleu(hyps, refs)
    assert result.corpus["sacreBLEU"] == pytest.approx(expected.score, abs=1e-9)
    assert result.extra["sacrebleu_signature"].startswith("nrefs:var|")
    assert fastamfm.sacrebleu(hyps, streams, layout="streams").corpus["sacreBLEU"] == pytest.approx(expected.score,
                                                                                                     abs=1e-9)


def test_unequal_stream_lengths_are_an_error_naming_the_stream():
    with pytest.raises(ValueError, match=r"reference stream 1 has 1 segments but stream 0 has 2"):
        References.from_streams([["a", "b"], ["c"]])
    with pytest.raises(ValueError, match=r"^sacrebleu: reference stream 2 has 3 segments but stream 0 has 2"):
        fastamfm.sacrebleu(["a", "b"], [["a", "b"], ["c", "d"], ["e", "f", "g"]], layout="streams")


def test_stream_errors():
    with pytest.raises(ValueError, match=r"segment 1 has no reference \(None in every stream\)"):
        References.from_streams([["a", None], ["b", None]])
    with pytest.raises(TypeError, match=r"reference stream 1, segment 0 is int, not a string or None"):
        References.from_streams([["a"], [3]])
    with pytest.raises(TypeError, match="reference stream 0 must be a sequence of strings"):
        References.from_streams(["abc"])
    with pytest.raises(ValueError, match="no reference stream"):
        References.from_streams([])
    with pytest.raises(ValueError, match=r"bleu: 3 hypotheses but the reference streams hold 2 entries each"):
        fastamfm.bleu(["a", "b", "c"], [["a", "b"]], layout="streams")
    with pytest.raises(ValueError, match=r"layout must be one of"):
        fastamfm.bleu(["a", "b"], [["a"], ["b"]], layout="columns")


def test_warning_can_be_made_an_error():
    with warnings.catch_warnings():
        warnings.simplefilter("error", AmbiguousReferencesWarning)
        with pytest.raises(AmbiguousReferencesWarning):
            fastamfm.bleu(HYPS, STREAMS)
