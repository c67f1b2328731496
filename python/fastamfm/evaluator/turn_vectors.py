"""Sentence vectors of dialogue turns for the evaluator head: each distinct text encoded
once by the frozen encoder, and the three vectors the head reads per example.

``TurnVectors`` keeps the unit vectors of the texts it has encoded (float32; at most
``capacity`` texts, the oldest forgotten first), so a training run encodes each corpus turn
once however many examples reuse it, and scoring many responses to one context encodes the
context once. Encoding is deterministic: the same texts asked in the same order give the
same bits, which resuming a training run relies on.
"""
from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from .speaker_tags import strip_speaker

DEFAULT_DECAY = 0.7


def context_weights(count: int, decay: float) -> np.ndarray:
    """Weight decay**k of the turn k places before the last, for ``count`` turns in order."""
    return decay ** np.arange(count - 1, -1, -1, dtype=np.float64)


class TurnVectors:
    def __init__(self, encoder, *, capacity: int = 400_000):
        self.encoder = encoder
        self.capacity = capacity
        self._vectors: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def lookup(self, texts: list) -> np.ndarray:
        """Unit vectors [n, d] float32 of ``texts`` (speaker tags stripped)."""
        texts = [strip_speaker(t) for t in texts]
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
            if missing:
                for text, vector in zip(missing, np.asarray(self.encoder.encode(missing), dtype=np.float32)):
                    self._vectors[text] = vector
            rows = []
            for text in texts:
                rows.append(self._vectors[text])
                self._vectors.move_to_end(text)
            while len(self._vectors) > self.capacity:
                self._vectors.popitem(last=False)
        dim = self.encoder.dim
        return np.stack(rows) if rows else np.zeros((0, dim), dtype=np.float32)

    def triples(self, contexts: list, responses: list, *, decay: float = DEFAULT_DECAY):
        """(context, last turn, response) unit vectors, [n, d] float32 each. A context is a
        list of turns, last turn last; an empty one gives zero vectors (no relation)."""
        turns = [t for context in contexts for t in context]
        vectors = self.lookup(turns + list(responses))
        turn_vectors, response_vectors = vectors[:len(turns)], vectors[len(turns):]
        dim = vectors.shape[1]
        context_out = np.zeros((len(contexts), dim), dtype=np.float32)
        last_out = np.zeros((len(contexts), dim), dtype=np.float32)
        start = 0
        for i, context in enumerate(contexts):
            count = len(context)
            if count:
                block = turn_vectors[start:start + count].astype(np.float64)
                mixed = context_weights(count, decay) @ block
                norm = np.linalg.norm(mixed)
                context_out[i] = mixed / norm if norm > 0 else 0.0
                last_out[i] = block[-1]
            start += count
        return context_out, last_out, response_vectors
