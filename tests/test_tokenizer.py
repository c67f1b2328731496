"""The C++ tokenizer against the readable Python oracle (tests/oracles/text.py)."""
from __future__ import annotations

import fastamfm
import pytest
from fastamfm import _core
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.text import tokenize as oracle

PRESETS = [("whitespace", False), ("whitespace", True), ("amfm", False)]

# Text mixing ASCII words, every kind of whitespace str.split() knows, ASCII and
# Unicode punctuation, accented/compatibility characters and emoji.
SPECIAL = list(" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
               "'-%.,!?;:\"()[]<>_/\\@#&*+=`~^|{}$"
               "éÉßİıﬁＡＢ１２“”‘’«»¿¡…—–·€™²½ÅΩω日本語😀\u0301")
texts = st.lists(st.one_of(st.sampled_from(SPECIAL), st.characters(blacklist_categories=("Cs",)),
                           st.text(alphabet="abcXYZ019", min_size=1, max_size=6)),
                 max_size=40).map("".join)


@pytest.mark.parametrize("preset,lowercase", PRESETS)
@settings(max_examples=300, deadline=None)
@given(batch=st.lists(texts, max_size=8))
def test_batch_equals_oracle(preset, lowercase, batch):
    got = fastamfm.tokenize(batch, preset=preset, lowercase=lowercase, workers=2)
    assert got == [oracle(t, preset, lowercase) for t in batch]


@pytest.mark.parametrize("preset,lowercase", PRESETS)
def test_fixed_examples(preset, lowercase):
    cases = [
        "",
        "   ",
        "Hello, World!",
        "it's 50% off-road…",
        "ＡＢＣ “quoted” déjà-vu",
        "<USER> thanks for the <URL> !",
        "a\u00a0b\u3000c\u2028d",
    ]
    assert fastamfm.tokenize(cases, preset=preset, lowercase=lowercase) == [oracle(c, preset, lowercase) for c in cases]


def test_amfm_rules_are_what_the_docs_say():
    assert fastamfm.tokenize(["Don't STOP-now, 100%!"], preset="amfm") == [
        ["don", "'", "t", "stop", "-", "now", "100", "%"]]


def test_very_long_line_and_many_lines_match_oracle():
    long_line = ("word, " * 200_000) + "END"
    many = [f"line {i} , with Punct!" for i in range(20_000)]
    batch = [long_line] + many
    for preset, lowercase in PRESETS:
        got = fastamfm.tokenize(batch, preset=preset, lowercase=lowercase)
        assert got[0] == oracle(long_line, preset, lowercase)
        assert got[1:] == [oracle(t, preset, lowercase) for t in many]


def test_result_does_not_depend_on_workers():
    batch = [f"tok{i % 97} Tok{i % 13} , x" for i in range(30_000)]
    one = fastamfm.tokenize(batch, preset="amfm", workers=1)
    assert fastamfm.tokenize(batch, preset="amfm", workers=2) == one
    assert fastamfm.tokenize(batch, preset="amfm", workers=7) == one


def test_bytes_inputs_are_decoded_and_invalid_utf8_names_the_index():
    assert fastamfm.tokenize([b"caf\xc3\xa9 ok"]) == [["café", "ok"]]
    with pytest.raises(ValueError, match=r"texts\[1\]: invalid UTF-8 at byte 3"):
        fastamfm.tokenize(["fine", b"bad\xff"])
    with pytest.raises(ValueError, match=r"texts\[0\]: invalid UTF-8 at byte 1"):
        fastamfm.tokenize([b"a\xc0\xaf"], preset="amfm")  # overlong '/'
    with pytest.raises(ValueError, match=r"texts\[0\]: invalid UTF-8"):
        fastamfm.tokenize([b"\xed\xa0\x80"])  # an encoded surrogate


def test_lone_surrogate_string_is_a_clear_error():
    with pytest.raises(ValueError, match=r"texts\[2\].*surrogate"):
        fastamfm.tokenize(["a", "b", "x\udcff"])


def test_non_string_items_and_single_string():
    with pytest.raises(TypeError, match=r"texts\[1\] is int, expected str"):
        fastamfm.tokenize(["a", 1])
    with pytest.raises(TypeError, match="not a single string"):
        fastamfm.tokenize("just one string")


def test_unknown_preset():
    with pytest.raises(ValueError, match="tokenize must be one of"):
        fastamfm.tokenize(["a"], preset="moses")
    with pytest.raises(ValueError, match="unknown tokenizer preset"):
        _core.Tokenizer("moses")


def test_tokenizer_description_is_stable():
    assert _core.Tokenizer("whitespace").describe() == "tok:whitespace"
    assert _core.Tokenizer("whitespace", True).describe() == "tok:whitespace+lc"
    assert _core.Tokenizer("amfm").describe() == "tok:amfm"


def test_non_ascii_punctuation_table_is_pythons():
    """The core's table of non-ASCII punctuation (the amfm preset removes it) equals the
    running Python's unicodedata; on a newer Unicode version, print the ranges to add."""
    import sys
    import unicodedata

    if unicodedata.unidata_version != _core.unicode_punctuation_version:
        pytest.skip(f"this Python has Unicode {unicodedata.unidata_version}, the table "
                    f"{_core.unicode_punctuation_version}")
    wrong = [cp for cp in range(128, sys.maxunicode + 1)
             if _core.is_non_ascii_punctuation(cp) != unicodedata.category(chr(cp)).startswith("P")]
    assert not wrong, [hex(cp) for cp in wrong[:20]]
    assert fastamfm.tokenize(["a\u2014b\u00bfc\u3001d"], preset="amfm") == [["a", "b", "c", "d"]]


def test_score_rows_print_numbers_as_python_does():
    import json

    import numpy as np

    values = np.array([0.0, -0.0, 1.0, 1 / 3, 2e-300, 123456789.123, 1e22, np.inf, -np.inf, np.nan, 5e-324])
    jsonl = _core.format_score_rows(7, [values, values[::-1].copy()], [json.dumps("A"), json.dumps("B\"x")],
                                    "jsonl", 2).decode()
    expected = "".join("{\"id\": %d, \"A\": %.9g, \"B\\\"x\": %.9g}\n" % (7 + i, a, b)
                       for i, (a, b) in enumerate(zip(values, values[::-1])))
    assert jsonl == expected
    tsv = _core.format_score_rows(0, [values], [], "tsv", 1).decode()
    assert tsv == "".join("%d\t%.9g\n" % (i, v) for i, v in enumerate(values))
    many = np.linspace(0, 1, 50_000)
    assert _core.format_score_rows(0, [many], [], "tsv", 2) == _core.format_score_rows(0, [many], [], "tsv", 1)
    with pytest.raises(ValueError, match="format must be 'jsonl' or 'tsv'"):
        _core.format_score_rows(0, [values], ["a"], "csv", 1)
