"""The tokenizer presets of the generation metrics against the tools they reproduce:
sacrebleu's 13a, intl, char and zh (after its rstrip), rouge-score's tokenizer, NLTK's
Porter stemmer, and the Unicode table behind intl."""
from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import pytest
from fastamfm import _core
from generation_data import text
from hypothesis import given, settings

sacrebleu_tokenizers = pytest.importorskip("sacrebleu.tokenizers")

SACREBLEU = {
    "13a": "sacrebleu.tokenizers.tokenizer_13a:Tokenizer13a",
    "intl": "sacrebleu.tokenizers.tokenizer_intl:TokenizerV14International",
    "char": "sacrebleu.tokenizers.tokenizer_char:TokenizerChar",
    "zh": "sacrebleu.tokenizers.tokenizer_zh:TokenizerZh",
}


def _sacrebleu(name):
    import importlib

    module, cls = SACREBLEU[name].split(":")
    return getattr(importlib.import_module(module), cls)()


def _expected(tokenizer, line: str) -> list:
    # What sacrebleu's BLEU counts: the tokenizer on the right-stripped line, split.
    return tokenizer(line.rstrip()).split()


@pytest.mark.parametrize("name", list(SACREBLEU))
@settings(max_examples=300, deadline=None)
@given(line=text)
def test_sacrebleu_tokenizers_on_generated_text(name, line):
    assert _core.Tokenizer(name, False).tokenize(line) == _expected(_sacrebleu(name), line)


@pytest.mark.parametrize("name", list(SACREBLEU))
def test_sacrebleu_tokenizers_on_topical_chat(name, topical_chat_dir):
    from generation_data import topical_chat_pairs

    hyps, _ = topical_chat_pairs(topical_chat_dir)
    ours, theirs = _core.Tokenizer(name, False), _sacrebleu(name)
    assert [ours.tokenize(h) for h in hyps] == [_expected(theirs, h) for h in hyps]


def test_lowercasing_comes_before_13a():
    # sacrebleu lowercases, then tokenizes: '&QUOT;' becomes an entity it decodes.
    assert _core.Tokenizer("13a", True).tokenize("A &QUOT;B&QUOT;") == ["a", '"', "b", '"']


def test_zh_reads_the_two_bounds_python_misreads():
    # sacrebleu's '\u20000' is U+2000 followed by '0': its range starts after U+2000.
    zh = _core.Tokenizer("zh", False)
    theirs = _sacrebleu("zh")
    for cp in (0x2000, 0x2001, 0x2A6D, 0x2A6E, 0x20000, 0x2F80, 0x2F81, 0x2FA1, 0x2FA2, 0x4E00):
        line = f"x{chr(cp)}y"
        assert zh.tokenize(line) == _expected(theirs, line), hex(cp)


TABLE = Path(__file__).resolve().parents[1] / "src" / "text" / "unicode_categories.cpp"
_TABLE_SOURCE = re.compile(r"from the `regex` module (\S+) ")
_CLASSES = (("P", "kPunct"), ("S", "kSymbol"), ("N", "kNumber"))


def _table_regex_version() -> str:
    return _TABLE_SOURCE.search(TABLE.read_text()).group(1)


def _unassigned(regex, cp: int) -> bool:
    """Unassigned in the installed regex module's Unicode or in Python's own (``unicodedata``)."""
    import unicodedata

    return bool(regex.match(r"\p{Cn}", chr(cp))) or unicodedata.category(chr(cp)) == "Cn"


@pytest.mark.slow
def test_intl_table_matches_the_regex_module_on_every_code_point():
    """intl splits on the code points the ``regex`` module puts in \\p{P}, \\p{S}, \\p{N}. The table is
    generated from one regex release (``python3 tests/test_sacrebleu_tokenizers.py --write``);
    with that release every code point must agree. Another release may know another Unicode
    version, which only assigns code points that were unassigned: those are the ones let
    through then (unassigned in the installed module's Unicode or in Python's), and no other."""
    regex = pytest.importorskip("regex")
    classes = [regex.compile(rf"\p{{{name}}}") for name, _ in _CLASSES]
    intl = _core.Tokenizer("intl", False)
    theirs = _sacrebleu("intl")
    same_release = regex.__version__ == _table_regex_version()
    wrong, newer_unicode = [], []
    for cp in range(0x80, 0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        c = chr(cp)
        if any(r.match(c) for r in classes) or cp % 97 == 0:
            line = f"a{c}1{c}b"
            if intl.tokenize(line) != _expected(theirs, line):
                (newer_unicode if not same_release and _unassigned(regex, cp) else wrong).append(hex(cp))
    assert not wrong, f"intl differs from regex {regex.__version__} at {wrong[:20]} ({len(wrong)} code points): " \
                      "regenerate src/text/unicode_categories.cpp: python3 tests/test_sacrebleu_tokenizers.py --write"
    assert same_release or len(newer_unicode) < 2000   # a Unicode version's additions, not a broken table


def _write_table() -> None:
    """Rewrite the ranges of src/text/unicode_categories.cpp from the installed regex module."""
    import regex

    classes = [(regex.compile(rf"\p{{{name}}}"), constant) for name, constant in _CLASSES]
    ranges = []
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        cls = next((constant for r, constant in classes if r.match(chr(cp))), None)
        if cls is None:
            continue
        if ranges and ranges[-1][1] == cp - 1 and ranges[-1][2] == cls:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp, cls])
    lines, line = [], "   "
    for first, last, cls in ranges:
        item = f" {{0x{first:X}, 0x{last:X}, {cls}}},"
        if len(line) + len(item) > 118:
            lines.append(line)
            line = "   "
        line += item
    lines.append(line)
    text = TABLE.read_text()
    start = text.index("constexpr Range kRanges[] = {\n") + len("constexpr Range kRanges[] = {\n")
    end = text.index("\n};\n", start)
    text = text[:start] + "\n".join(lines) + text[end:]
    text = _TABLE_SOURCE.sub(f"from the `regex` module {regex.__version__} ", text)
    TABLE.write_text(text)
    print(f"wrote {len(ranges)} ranges from regex {regex.__version__} into {TABLE}")


@pytest.mark.parametrize("stem", [False, True])
@settings(max_examples=300, deadline=None)
@given(line=text)
def test_rouge_tokenizer_equals_rouge_score(stem, line):
    from rouge_score.tokenizers import DefaultTokenizer

    ours = _core.Tokenizer("rouge-stem" if stem else "rouge", False)
    # Non-ASCII text reaches the core lowercased by Python (fastamfm.tokenization.prepare_texts).
    from fastamfm.tokenization import prepare_texts

    assert ours.tokenize(prepare_texts([line], ours)[0]) == DefaultTokenizer(stem).tokenize(line)


def test_porter_stemmer_equals_nltk_on_words_and_random_strings(dstc6_refs):
    from nltk.stem.porter import PorterStemmer

    nltk_stem = PorterStemmer().stem
    plain = _core.Tokenizer("rouge", False)
    words = {w for refs in dstc6_refs[:1000] for r in refs for w in plain.tokenize(r)}
    rng = random.Random(0)
    letters = "aeiouybcdlstnrgmzwx"
    words |= {"".join(rng.choice(letters) for _ in range(rng.randint(1, 14))) for _ in range(30000)}
    words |= {"skies", "dying", "innings", "generalizations", "happily", "agreed", "feed", "hopping", "controlling",
              "relational", "conditional", "analogi", "fulli", "ally", "sky", "news", "howe", "proceed", "ies"}
    stemmed = _core.Tokenizer("rouge-stem", False)
    wrong = [w for w in sorted(words) if stemmed.tokenize(w) != [nltk_stem(w) if len(w) > 3 else w]]
    assert not wrong, wrong[:20]



if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        _write_table()
    else:
        sys.exit("usage: python3 tests/test_sacrebleu_tokenizers.py --write")
