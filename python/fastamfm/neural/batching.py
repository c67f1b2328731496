"""How sentences are grouped for the model: identical sentences encoded once, the rest
sorted by token count and cut into batches of similar length, so that padding (work
spent on nothing) stays small, under a budget of padded tokens per batch."""
from __future__ import annotations

import numpy as np


def unique_sentences(texts: list) -> tuple[list, np.ndarray]:
    """(distinct texts in first-seen order, index of each input text among them)."""
    first_index: dict = {}
    inverse = np.fromiter((first_index.setdefault(t, len(first_index)) for t in texts), dtype=np.int64,
                          count=len(texts))
    return list(first_index), inverse


def length_batches(lengths: np.ndarray, max_sentences: int, max_tokens: int) -> list:
    """Index arrays of batches: sentences sorted by length (stable), each batch at most
    ``max_sentences`` sentences and at most ``max_tokens`` padded tokens (a single
    sentence longer than the budget gets a batch of its own)."""
    order = np.argsort(lengths, kind="stable")
    batches, start = [], 0
    while start < len(order):
        end = start + 1
        # Sorted ascending: the padded size of order[start:end] is (end - start) * lengths[order[end - 1]].
        while (end < len(order) and end - start < max_sentences
               and (end + 1 - start) * int(lengths[order[end]]) <= max_tokens):
            end += 1
        batches.append(order[start:end])
        start = end
    return batches


def padded_batches(lengths: list, max_tokens: int, max_padding: float | None = None) -> list:
    """Batches (lists of indices) of rows whose ``lengths`` are sorted longest first: each
    batch padded to its first row, within ``max_tokens`` padded tokens (a row longer than
    that alone). ``max_padding``: the largest share of a batch's padded tokens that may be
    padding (None: no limit). On a CPU a forward pass costs its padded tokens, so a row
    that would pad a batch by more than a few percent goes to the next batch instead; on
    a GPU fewer, larger passes are worth some padding (``max_padding=None``)."""
    batches, start = [], 0
    while start < len(lengths):
        width, real, end = lengths[start], lengths[start], start + 1
        while end < len(lengths) and (end + 1 - start) * width <= max_tokens:
            padded = (end + 1 - start) * width
            if max_padding is not None and padded - (real + lengths[end]) > max_padding * padded:
                break
            real += lengths[end]
            end += 1
        batches.append(list(range(start, end)))
        start = end
    return batches
