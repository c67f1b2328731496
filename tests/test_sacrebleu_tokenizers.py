"""The tokenizer presets of the generation metrics against the tools they reproduce:
sacrebleu's 13a, intl, char and zh (after its rstrip), rouge-score's tokenizer, NLTK's
Porter stemmer, and the Unicode table behind intl."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings

from fastamfm import _core
from generation_data import text

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


@pytest.mark.slow
def test_intl_table_matches_the_regex_module_on_every_code_point():
    regex = pytest.importorskip("regex")
    classes = [("P", regex.compile(r"\p{P}")), ("S", regex.compile(r"\p{S}")), ("N", regex.compile(r"\p{N}"))]
    intl = _core.Tokenizer("intl", False)
    theirs = _sacrebleu("intl")
    wrong = []
    for cp in range(0x80, 0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        c = chr(cp)
        if any(r.match(c) for _, r in classes) or cp % 97 == 0:
            line = f"a{c}1{c}b"
            if intl.tokenize(line) != _expected(theirs, line):
                wrong.append(hex(cp))
    assert not wrong, f"intl differs from regex {regex.__version__} at {wrong[:20]} ({len(wrong)} code points): " \
                      "regenerate src/text/unicode_categories.cpp from this regex module"


@pytest.mark.parametrize("stem", [False, True])
@settings(max_examples=300, deadline=None)
@given(line=text)
def test_rouge_tokenizer_equals_rouge_score(stem, line):
    from rouge_score.tokenizers import DefaultTokenizer

    ours = _core.Tokenizer("rouge-stem" if stem else "rouge", False)
    # Non-ASCII text reaches the core lowercased by Python (fastamfm.tokenize.prepare_texts).
    from fastamfm.tokenize import prepare_texts

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

