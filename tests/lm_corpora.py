"""Training text for the language-model tests and benchmarks.

- ``twcs_agent_turns``: the agent (``<rep__ ... __rep>``) turns of the processed
  Twitter customer-support airline conversations, the closest public stand-in for
  the DSTC-6 training data (see ../shared/data/README.md).
- ``zipf_corpus``: deterministic synthetic sentences with Zipf-distributed words
  and some local structure, for tests that need no shared data and for the
  10M-token benchmark corpus.
"""
from __future__ import annotations

import bz2
import csv
import itertools
import random
import re
from pathlib import Path

_AGENT_TURN = re.compile(r"<rep__ (.*?) __rep>")


def twcs_agent_turns(twcs_dir: Path, limit: int | None = None) -> list[str]:
    """Agent turns in file order (at most ``limit``), stripped of their markers."""
    csv.field_size_limit(1 << 30)
    turns: list[str] = []
    with bz2.open(Path(twcs_dir) / "airlines_processed.csv.bz2", "rt", encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        for row in reader:
            for turn in _AGENT_TURN.findall(row["context"]):
                turn = turn.strip()
                if turn:
                    turns.append(turn)
                    if limit is not None and len(turns) >= limit:
                        return turns
    return turns


def zipf_corpus(n_sentences: int, vocabulary: int = 2000, seed: int = 0, max_len: int = 20) -> list[str]:
    """Sentences whose words follow a Zipf law; each word is often followed by one of
    a few favourite successors, so higher-order n-grams repeat as in real text."""
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(vocabulary)]
    cumulative = list(itertools.accumulate(1.0 / (i + 1) for i in range(vocabulary)))
    successors = {w: rng.choices(words, cum_weights=cumulative, k=3) for w in words}
    sentences = []
    for _ in range(n_sentences):
        length = rng.randint(1, max_len)
        sentence = rng.choices(words, cum_weights=cumulative, k=length)
        for i in range(1, length):
            if rng.random() < 0.6:
                sentence[i] = rng.choice(successors[sentence[i - 1]])
        sentences.append(" ".join(sentence))
    return sentences
