"""Readable Python versions of the tokenizer presets, the oracle for the C++ tokenizer."""
from __future__ import annotations

import string
import unicodedata

KEPT_AS_TOKENS = "'-%"


def is_punctuation(ch: str) -> bool:
    if ch.isascii():
        return ch in string.punctuation
    return unicodedata.category(ch).startswith("P")


def tokenize(text: str, preset: str = "whitespace", lowercase: bool = False) -> list[str]:
    if preset == "whitespace":
        return (text.lower() if lowercase else text).split()
    assert preset == "amfm"
    text = unicodedata.normalize("NFKC", text).lower()
    pieces = []
    for ch in text:
        if ch in KEPT_AS_TOKENS:
            pieces.append(f" {ch} ")
        elif is_punctuation(ch):
            pieces.append(" ")
        else:
            pieces.append(ch)
    return "".join(pieces).split()
