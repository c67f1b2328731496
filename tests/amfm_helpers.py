"""Tiny generated data and models for the AM-FM tests (trained in well under a second)."""
from __future__ import annotations

import random

SUBJECTS = ["we", "i", "our team", "the agent", "my colleague", "the crew", "you", "they"]
VERBS = ["can check", "will look into", "are sorry about", "can rebook", "will refund", "need", "found",
         "are tracking", "can confirm", "will update"]
OBJECTS = ["your flight", "the delayed bag", "your booking", "the refund", "your seat", "the gate change",
           "your confirmation number", "the missed connection", "your ticket", "the upgrade"]
TAILS = ["for you", "right now", "today", "as soon as possible", "please dm us", "thank you", "", "",
         "sorry for the wait", "with the airport team"]


def sentence(rng: random.Random) -> str:
    parts = [rng.choice(SUBJECTS), rng.choice(VERBS), rng.choice(OBJECTS), rng.choice(TAILS)]
    return " ".join(p for p in parts if p) + " ."


def tiny_corpus(n: int = 3000, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [sentence(rng) for _ in range(n)]


def tiny_pairs(n: int, n_refs: int = 3, seed: int = 1) -> tuple[list[str], list[list[str]]]:
    """n hypotheses with n_refs references each; some hypotheses have unknown words or are empty."""
    rng = random.Random(seed)
    hyps = [sentence(rng) for _ in range(n)]
    for i in range(0, n, 7):
        hyps[i] = "zzqx unknownword"  # no vocabulary word: AM 0
    if n > 3:
        hyps[3] = ""
    refs = [[sentence(rng) for _ in range(n_refs)] for _ in range(n)]
    return hyps, refs


def train_tiny(**settings):
    from fastamfm import AMFM

    options = dict(dims=8, order=3, tokenize="whitespace", workers=2)
    options.update(settings)
    return AMFM.train(tiny_corpus(), **options)
