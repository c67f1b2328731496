"""``DialogueHashSet``: which dialogues were already seen, in bounded memory.

Deduplicating a streamed corpus needs the set of dialogues seen so far, but never the
dialogues themselves: each is kept as a 64-bit hash of its turns in an open-addressing
table of uint64 (numpy), 16 bytes per dialogue at most (the table doubles at half load),
whatever the dialogues' length: 100 million dialogues fit in 1.6 GB. A Python ``set`` of
the same hashes costs about 70 bytes each. Two different dialogues share a hash with
probability about n^2 / 2^65 (1e-4 for 100 million): then the second is dropped as a
duplicate, which loses one dialogue and nothing else.
"""
from __future__ import annotations

import hashlib

import numpy as np

_EMPTY = np.uint64(0)


def dialogue_hash(turns) -> int:
    """A 64-bit hash of a dialogue's turns (never 0, the table's empty mark)."""
    digest = hashlib.blake2b(digest_size=8)
    for turn in turns:
        digest.update(turn.encode("utf-8", "surrogatepass"))
        digest.update(b"\x00")
    return int.from_bytes(digest.digest(), "little") or 1


class DialogueHashSet:
    """A set of dialogue hashes: ``add(hash)`` is True when the hash is new."""

    def __init__(self, capacity: int = 1 << 16):
        size = 1
        while size < 2 * capacity:
            size <<= 1
        self._table = np.zeros(size, dtype=np.uint64)
        self._count = 0

    def __len__(self) -> int:
        return self._count

    @property
    def nbytes(self) -> int:
        return self._table.nbytes

    def add(self, value: int) -> bool:
        if 2 * (self._count + 1) > len(self._table):
            self._grow()
        if self._insert(self._table, np.uint64(value)):
            self._count += 1
            return True
        return False

    @staticmethod
    def _insert(table: np.ndarray, value) -> bool:
        mask = len(table) - 1
        slot = int(value) & mask
        while True:
            held = table[slot]
            if held == _EMPTY:
                table[slot] = value
                return True
            if held == value:
                return False
            slot = (slot + 1) & mask

    def _grow(self) -> None:
        table = np.zeros(2 * len(self._table), dtype=np.uint64)
        for value in self._table[self._table != _EMPTY]:
            self._insert(table, value)
        self._table = table
