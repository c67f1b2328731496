"""References: ragged references encoded once (tokens, n-gram counts, lengths)."""
from __future__ import annotations

import json
from collections import Counter

import fastamfm
import pytest
from fastamfm import _core
from hypothesis import given, settings
from hypothesis import strategies as st


def oracle_ngrams(tokens: list[str], n: int) -> Counter:
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


words = st.sampled_from(["a", "b", "the", "cat", "Über", "日本", "x-y", "'s"])
sentences = st.lists(words, max_size=12).map(" ".join)
ragged = st.lists(st.lists(sentences, min_size=1, max_size=5), min_size=1, max_size=6)


@settings(max_examples=100, deadline=None)
@given(refs=ragged, max_order=st.integers(1, 5))
def test_encoding_equals_oracle(refs, max_order):
    r = fastamfm.References(refs, max_order=max_order, workers=2)
    assert len(r) == len(refs)
    assert r.num_references == sum(len(g) for g in refs)
    flat = [s for g in refs for s in g]
    assert list(r.encoded.lengths) == [len(s.split()) for s in flat]
    for i, text in enumerate(flat):
        toks = text.split()
        assert r.encoded.tokens(i) == toks
        for n in range(1, max_order + 1):
            expected = {_core.ReferenceSet.ngram_key(list(g)): c for g, c in oracle_ngrams(toks, n).items()}
            assert r.encoded.ngram_counts(i, n) == expected
    assert [list(seg) for seg in r] == refs


def test_ngram_keys_distinguish_order_and_position():
    key = _core.ReferenceSet.ngram_key
    assert key(["a", "b"]) != key(["b", "a"])
    assert key(["a"]) != key(["a", "a"])
    assert key(["ab"]) != key(["a", "b"])


def test_tokenizer_options_apply_to_references():
    r = fastamfm.References([["Hello, World!"]], tokenize="amfm")
    assert r.tokens(0) == [["hello", "world"]]
    r = fastamfm.References([["Hello World"]], lowercase=True)
    assert r.tokens(0) == [["hello", "world"]]


def test_one_references_serves_every_tokenizer_and_order():
    r = fastamfm.References([["a b"], ["c"]], max_order=2)
    with pytest.raises(ValueError, match="3 hypotheses but References holds 2 segments"):
        fastamfm.References.of(r, 3)
    assert fastamfm.References.of(r, 2) is r
    first = r.encoded_with("whitespace", 2)
    assert r.encoded_with("whitespace", 1) is first  # an encoding with enough orders serves
    assert r.encoded_with("whitespace", 4).max_order == 4  # a higher order re-encodes once
    assert r.encoded_with("amfm").tokenizer.describe() == "tok:amfm"
    # BLEU-4 (whitespace) and AM (amfm) both score against the same References.
    fastamfm.bleu(["a b", "c"], r)
    fastamfm.adequacy(["a b", "c"], r, fastamfm.AMFM.default().lsi)


@pytest.mark.parametrize("refs,exc,msg", [
    ([], ValueError, "refs is empty"),
    ([["a"], []], ValueError, r"refs\[1\] has no reference"),
    (["a", "b"], TypeError, r"refs\[0\] is a single string"),
    ("abc", TypeError, "not a single string"),
    ([["a"], ["b", 3]], TypeError, r"refs\[1\]\[1\] is int"),
    ([[b"\xff"]], ValueError, r"refs\[0\]\[0\]: invalid UTF-8"),
    ([None], TypeError, r"refs\[0\] is NoneType"),
])
def test_bad_references(refs, exc, msg):
    with pytest.raises(exc, match=msg):
        fastamfm.References(refs)


def test_length_mismatch_with_hypotheses():
    with pytest.raises(ValueError, match="3 hypotheses but 2 reference lists"):
        fastamfm.References.of([["a"], ["b"]], 3)


def test_from_parallel_files_and_jsonl(tmp_path):
    (tmp_path / "r1.txt").write_text("a b\nc d\n")
    (tmp_path / "r2.txt").write_text("a c\nd\n")
    r = fastamfm.References.from_files([tmp_path / "r1.txt", tmp_path / "r2.txt"])
    assert [list(s) for s in r] == [["a b", "a c"], ["c d", "d"]]
    lines = [json.dumps({"hyp": "h1", "refs": ["x y", "z"]}), json.dumps({"hyp": "h2", "refs": ["w"]})]
    (tmp_path / "d.jsonl").write_text("\n".join(lines) + "\n")
    r = fastamfm.References.from_jsonl(tmp_path / "d.jsonl")
    assert [list(s) for s in r] == [["x y", "z"], ["w"]]


def test_dstc6_references_encode(dstc6_refs):
    r = fastamfm.References(dstc6_refs)
    assert len(r) == 2000 and r.num_references == 22000
    assert r.tokens(0)[0] == dstc6_refs[0][0].split()
