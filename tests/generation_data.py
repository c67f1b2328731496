"""Data the generation-metric tests share: Topical-Chat turn pairs (raw text: capitals,
punctuation, some Unicode) and hypothesis strategies for text that exercises sacrebleu's
and rouge-score's tokenizers."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from hypothesis import strategies as st

# Characters every tokenizer treats differently: ASCII punctuation and symbols, digits
# beside '.', ',' and '-', entities, newlines, non-ASCII letters, digits, punctuation,
# symbols, Chinese, whitespace of other kinds.
PIECES = ["a", "B", "c", "0", "7", " ", " ", ".", ",", "-", "'", '"', "&", ";", "(", ")", "$", "%", "/", "@", "!",
          "?", "\n", "\t", "&quot;", "&amp;", "&lt;", "&gt;", "<skipped>", "-\n", "é", "É", "ß", "İ", "K",
          "中", "文", "。", "、", "١", "٢", "€", "™", "\u00a0", "\u2028", "\u3000", "½", "—", "«", "»", "🙂", "Σ"]

text = st.lists(st.sampled_from(PIECES), max_size=25).map("".join)
words = st.lists(st.sampled_from(["the", "cat", "sat", "on", "mat", "a", "dog", "ran", "The", "Cat", "cats",
                                  "running", "ran.", "(mat)", "dogs,", "é", "1.5", "-"]), max_size=12).map(" ".join)


def corpus(texts=words, max_refs: int = 3, max_size: int = 8):
    """(hyps, refs) with 1..max_refs references each."""
    pair = st.tuples(texts, st.lists(texts, min_size=1, max_size=max_refs))
    return st.lists(pair, min_size=1, max_size=max_size).map(lambda ps: ([h for h, _ in ps], [r for _, r in ps]))


@lru_cache(maxsize=None)
def _turns(path: str) -> tuple:
    data = json.loads(Path(path).read_text())
    return tuple(tuple(turn["message"] for turn in conv["content"]) for conv in data.values())


def topical_chat_pairs(directory: Path, limit: int | None = None) -> tuple[list, list]:
    """Each turn of test_freq.json as a response, the turns before and after it as its two
    references (the first and last turn of a conversation: one reference)."""
    hyps, refs = [], []
    for turns in _turns(str(Path(directory) / "test_freq.json")):
        for t, turn in enumerate(turns):
            hyps.append(turn)
            refs.append([turns[k] for k in (t - 1, t + 1) if 0 <= k < len(turns)])
    if limit is not None:
        hyps, refs = hyps[:limit], refs[:limit]
    return hyps, refs
