"""Impossible values and corrupt files are refused with the file, line (or record) and
column, as ``fastamfm.FormatError``: the cases docs/bad-input.md lists that no other test
covers. ARPA's rules are kenlm's, checked against kenlm itself when it is installed."""
from __future__ import annotations

import json
import struct

import fastamfm
import numpy as np
import pytest
from amfm_helpers import train_tiny
from fastamfm.amfm.scorer import SETTINGS_FILE
from fastamfm.analysis.ratings import load_rated_turns
from fastamfm.cli import main
from vector_files import write_fasttext, write_word2vec


def _arpa(unigram_a: str, backoff_s: str = "-0.5") -> str:
    return ("\\data\\\nngram 1=4\nngram 2=1\n\n\\1-grams:\n-1.0\t<unk>\t0\n"
            f"-1.0\t<s>\t{backoff_s}\n{unigram_a}\ta\t-0.3\n-1.0\t</s>\t0\n\n"
            "\\2-grams:\n-0.5\t<s> a\n\n\\end\\\n")


ARPA_CASES = {
    "nan probability": (_arpa("nan"), 8, "log10 probability nan is not a number"),
    "positive probability": (_arpa("0.5"), 8, "log10 probability 0.5 is positive"),
    "infinite probability": (_arpa("inf"), 8, "log10 probability inf is positive"),
    "nan backoff": (_arpa("-1.0", "nan"), 7, "backoff nan is not a finite number"),
    "infinite backoff": (_arpa("-1.0", "-inf"), 7, "backoff -inf is not a finite number"),
}


@pytest.mark.parametrize("case", sorted(ARPA_CASES))
def test_arpa_impossible_values(case, tmp_path):
    text, line, message = ARPA_CASES[case]
    path = tmp_path / "m.arpa"
    path.write_text(text)
    with pytest.raises(fastamfm.FormatError, match=f"m.arpa:{line}: {message}") as info:
        fastamfm.NgramLM.load(path)
    assert info.value.path == str(path) and info.value.line == line
    kenlm = pytest.importorskip("kenlm")
    with pytest.raises(Exception):  # noqa: B017 - kenlm refuses it too (with its own exception types)
        kenlm.Model(str(path))


def test_arpa_minus_infinity_probability_is_accepted_as_by_kenlm(tmp_path):
    path = tmp_path / "m.arpa"
    path.write_text(_arpa("-inf"))
    lm = fastamfm.NgramLM.load(path)
    kenlm = pytest.importorskip("kenlm")
    assert lm.score(["a"])[0] == pytest.approx(kenlm.Model(str(path)).score("a"), rel=1e-6)


def test_glove_non_utf8_number_is_a_format_error(tmp_path):
    path = tmp_path / "g.txt"
    path.write_bytes(b"a 1 2\nb 1 \xff\xfe\n")
    with pytest.raises(fastamfm.FormatError, match=r"g.txt:2: word 'b': value 2 '\\xff\\xfe' is not a number") as info:
        fastamfm.WordVectors.load(path, cache=False)
    assert info.value.line == 2


@pytest.mark.parametrize("fmt", ["fasttext", "word2vec"])
def test_non_finite_vectors(fmt, tmp_path):
    path = tmp_path / "v"
    matrix = np.ones((3, 2), np.float32)
    matrix[1, 1] = np.nan
    (write_fasttext if fmt == "fasttext" else write_word2vec)(path, ["a", "b", "c"], matrix)
    with pytest.raises(fastamfm.FormatError, match="not finite"):
        fastamfm.WordVectors.load(path, format=fmt, cache=False)


def test_nan_written_into_a_vector_cache_is_caught(tmp_path):
    """The cache's body is checksummed: NaN scores can no longer come from a damaged cache."""
    source = tmp_path / "v.txt"
    source.write_text("".join(f"w{i} {i} 1 0.5\n" for i in range(20)))
    path = fastamfm.WordVectors.load(source, cache_dir=tmp_path / "cache").cache_path
    data = bytearray(path.read_bytes())
    data[192:196] = struct.pack("<f", float("nan"))  # the first vector value (64-byte aligned after the header)
    path.write_bytes(bytes(data))
    with pytest.raises(fastamfm.FormatError, match="corrupt word-vector cache .*checksum mismatch.*delete the file"):
        fastamfm.WordVectors.load(source, cache_dir=tmp_path / "cache")


RATINGS = {
    "NaN rating": ('{"hyp": "a", "rating": NaN}', "rating nan is not a finite number"),
    "huge rating": ('{"hyp": "a", "rating": ' + "9" * 400 + "}", "rating 9+ is not a finite number"),
    "rating of 5000 digits": ('{"hyp": "a", "rating": ' + "9" * 5000 + "}", "unreadable JSON"),
    "boolean rating": ('{"hyp": "a", "rating": true}', "rating True is not a finite number"),
    "text rating": ('{"hyp": "a", "rating": "4"}', "rating '4' is not a finite number"),
    "lone surrogate": ('{"hyp": "\\ud800", "rating": 1}', "hyp holds a lone surrogate"),
    "not JSON": ('{"hyp": "a", rating: 1}', "invalid JSON"),
}


@pytest.mark.parametrize("case", sorted(RATINGS))
def test_rating_records(case, tmp_path):
    line, message = RATINGS[case]
    path = tmp_path / "r.jsonl"
    path.write_text('{"hyp": "ok", "rating": 2}\n\n' + line + "\n")
    with pytest.raises(fastamfm.FormatError, match=f"r.jsonl:3(:\\d+)?: {message}") as info:
        load_rated_turns(path)
    assert info.value.line == 3


def test_rating_files_with_bad_bytes_or_values(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"hyp": "ok", "rating": 2}\n{"hyp": "\xff", "rating": 1}\n')
    with pytest.raises(fastamfm.FormatError, match=r"r.jsonl:2:10: invalid UTF-8"):
        load_rated_turns(path)
    path = tmp_path / "set_eval.json"
    path.write_text(json.dumps([{"response": "a", "context": "c", "annotations": {"Overall": [3, float("inf")]}}]))
    with pytest.raises(fastamfm.FormatError, match=r"set_eval.json: record 1: annotations\['Overall'\]: rater "
                                                   r"score inf is not a finite number") as info:
        load_rated_turns(path)
    assert info.value.record == 1
    path.write_bytes(b'[{"response": "a",\n "context": "\xff"}]')
    with pytest.raises(fastamfm.FormatError, match=r"set_eval.json:2:14: invalid UTF-8"):
        load_rated_turns(path)


@pytest.fixture(scope="module")
def saved_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("amfm") / "model"
    train_tiny().save(path)
    return path


@pytest.mark.parametrize("change, message", [
    (lambda m: m.update(sha256="abc"), "'sha256' and 'settings' must be JSON objects"),
    (lambda m: m["sha256"].update(lsi="abc"), "sha256 of lsi.model is 'abc', not a SHA-256 hex digest"),
    (lambda m: m["sha256"].update(lm=None), "sha256 of lm.model is None"),
    (lambda m: m.update(settings=[1]), "must be JSON objects"),
    (lambda m: m["settings"].update(lam="x"), r"invalid settings \(lam must be a number"),
    (lambda m: m["settings"].update(unknown=1), r"invalid settings \(.*unexpected keyword argument 'unknown'"),
    (lambda m: m["settings"].update(dims=10_000), r"invalid settings \(dims=10000 but the LSI model has only"),
])
def test_corrupt_amfm_json(saved_model, tmp_path, change, message):
    model = tmp_path / "model"
    for name in ("lsi.model", "lm.model", SETTINGS_FILE):
        (model / name).parent.mkdir(exist_ok=True)
        (model / name).write_bytes((saved_model / name).read_bytes())
    manifest = json.loads((model / SETTINGS_FILE).read_text())
    change(manifest)
    (model / SETTINGS_FILE).write_text(json.dumps(manifest))
    with pytest.raises(fastamfm.FormatError, match=message) as info:
        fastamfm.AMFM.load(model)
    assert info.value.path.endswith(SETTINGS_FILE)


def test_format_error_carries_the_place(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"ok\nfine\nba\xffd\n")
    with pytest.raises(fastamfm.FormatError) as info:
        fastamfm.io.read_lines(path)
    error = info.value
    assert isinstance(error, ValueError)
    assert (error.path, error.line, error.column, error.record) == (str(path), 3, 3, None)
    assert str(error).startswith(f"{path}:3:3: invalid UTF-8")


def test_correlate_names_the_file(tmp_path, capsys):
    scores = tmp_path / "s.jsonl"
    scores.write_text("".join(json.dumps({"id": i, "AM": 0.1 * i}) + "\n" for i in range(4)))
    human = tmp_path / "human.txt"
    human.write_text("1\n2\nnan\n4\n")
    assert main(["correlate", "--level", "utterance", "--human", str(human), "--system", f"S={scores}"]) == 1
    assert f"{human}:3: 'nan' is not a finite rating" in capsys.readouterr().err
    human.write_text("1\n2\n3\n")
    assert main(["correlate", "--level", "utterance", "--human", str(human), "--system", f"S={scores}"]) == 1
    assert f"{human} holds 3 ratings but the --system files hold 4 AM scores" in capsys.readouterr().err
    human.write_text("S_1\t0.5\nS_2\tinf\n")
    table = tmp_path / "t.tsv"
    table.write_text("system\tAM\nS_1\t0.1\nS_2\t0.2\n")
    assert main(["correlate", "--human", str(human), "--scores", str(table)]) == 1
    assert f"{human}:2: 'inf' is not a finite number" in capsys.readouterr().err


def test_vocabulary_items_are_named():
    with pytest.raises(TypeError, match=r"vocab\[1\] is NoneType, expected str"):
        fastamfm.NgramLM.train(["a b c"], order=2, vocab=["a", None])


@pytest.mark.parametrize("kind, exception, message", [
    ("format", fastamfm.FormatError, r"^data.bin:7:3: bad \\xff byte$"),
    ("input", ValueError, r"^texts\[2\]: bad \\xfe byte$"),
    ("bad_alloc", MemoryError, "fastamfm ran out of memory.*fastamfm.limits"),
    ("length_error", MemoryError, r"too large to hold in memory \(vector::reserve\)"),
])
def test_core_errors_reach_python_as_documented(kind, exception, message):
    """The bindings' mapping: place attributes kept, undecodable bytes escaped, and
    std::bad_alloc never shown raw."""
    hooks = pytest.importorskip("fastamfm._testing", reason="fastamfm was built without its test hooks (FASTAMFM_TEST_HOOKS=ON; the README's test command builds them)")
    with pytest.raises(exception, match=message) as info:
        hooks.throw_core_error(kind)
    if kind == "format":
        assert (info.value.path, info.value.line, info.value.column, info.value.record) == ("data.bin", 7, 3, None)
