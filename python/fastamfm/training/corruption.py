"""Corrupted turns: a real response damaged so that it is no longer a valid utterance
(the negatives of USL-H's valid-utterance prediction). Each takes the words of a turn and
a ``random.Random`` and returns the damaged text, never the turn itself. Turns of fewer
than ``MIN_WORDS`` words are not corrupted (``corrupt`` returns None): too little to
damage recognisably.

- ``shuffle``: the words in another order (grammar broken, content kept);
- ``truncate``: only the first 20-60% of the words (an utterance cut short);
- ``repeat``: a span of one to three words repeated two to four times (a decoder loop);
- ``drop``: about 40% of the words left out (disfluent, incomplete).
"""
from __future__ import annotations

import random

CORRUPTIONS = ("shuffle", "truncate", "repeat", "drop")
MIN_WORDS = 3


def shuffle(words: list, rng: random.Random) -> list:
    out = list(words)
    if len(set(out)) < 2:           # "no no no": no other order exists; one word more
        return out + out[:1]
    while out == words:
        rng.shuffle(out)
    return out


def truncate(words: list, rng: random.Random) -> list:
    return words[:max(1, min(len(words) - 1, int(len(words) * rng.uniform(0.2, 0.6))))]


def repeat(words: list, rng: random.Random) -> list:
    start = rng.randrange(len(words))
    end = min(len(words), start + rng.randint(1, 3))
    return words[:end] + words[start:end] * rng.randint(2, 4) + words[end:]


def drop(words: list, rng: random.Random) -> list:
    kept = [w for w in words if rng.random() > 0.4]
    if len(kept) == len(words):
        kept.pop(rng.randrange(len(kept)))
    return kept or words[:1]


_BY_NAME = {"shuffle": shuffle, "truncate": truncate, "repeat": repeat, "drop": drop}


def corrupt(kind: str, text: str, rng: random.Random) -> str | None:
    """``text`` damaged by corruption ``kind`` (one of ``CORRUPTIONS``); None when it has
    fewer than ``MIN_WORDS`` words."""
    if kind not in _BY_NAME:
        raise ValueError(f"unknown corruption {kind!r}; choose from {CORRUPTIONS}")
    words = text.split()
    if len(words) < MIN_WORDS:
        return None
    return " ".join(_BY_NAME[kind](words, rng))
