"""``TurnPool``: the corpus turns that negatives are drawn from.

Built in one streamed pass over the training dialogues. It keeps:

- the turns, each with the dialogue it came from (a random turn must come from another
  dialogue), up to ``capacity`` of them (a seeded reservoir sample beyond that, so the
  memory stays bounded however large the corpus);
- the ``generic`` turns: the most frequent turns of the corpus after normalisation
  ("I see .", "Thank you .", "Really ?") — replies that fit almost anything, the dull
  answers people rate low;
- a retrieval index for hard negatives: the turns' LSI vectors (``fastamfm.LsiModel``,
  tf-idf weighting, trained on the pool itself), so that ``similar`` finds, for a true
  response, turns of other dialogues about the same thing (GRADE's lexical sampling;
  retrieval-hard negatives in DEB's sense): on topic, but not what was said next.
"""
from __future__ import annotations

import random
import re
from collections import Counter

import numpy as np

_NORMAL = re.compile(r"[^a-z0-9']+")


def dialogue_key(turns) -> int:
    """A 63-bit key naming a dialogue by its turns (what "another dialogue" compares)."""
    from . import dialogue_hash

    return dialogue_hash(turns) & ((1 << 63) - 1)


def normalise(turn: str) -> str:
    """Lower-cased words without punctuation (what makes two turns "the same reply")."""
    return " ".join(_NORMAL.sub(" ", turn.lower()).split())


class TurnPool:
    def __init__(self, turns: list, dialogue_ids: np.ndarray, generic: list, lsi, vectors: np.ndarray | None):
        self.turns = turns
        self.dialogue_ids = dialogue_ids
        self.generic = generic
        self._lsi = lsi
        self._vectors = vectors   # [n, k] float32 unit rows, or None (no retrieval)

    @classmethod
    def build(cls, dialogues, *, capacity: int = 300_000, generic_count: int = 300, retrieval_dims: int = 96,
              seed: int = 0) -> "TurnPool":
        """The pool of ``dialogues``: an iterable, read once, of (key, turns) with ``key``
        an int naming the dialogue (``dialogue_key``)."""
        rng = random.Random(f"turn-pool:{seed}")
        turns: list[str] = []
        owners: list[int] = []
        counts: Counter[str] = Counter()
        seen = 0
        first_spelling: dict[str, str] = {}
        for number, dialogue in dialogues:
            for turn in dialogue:
                key = normalise(turn)
                if not key:
                    continue
                counts[key] += 1
                first_spelling.setdefault(key, turn)
                seen += 1
                if len(turns) < capacity:
                    turns.append(turn)
                    owners.append(number)
                else:
                    slot = rng.randrange(seen)
                    if slot < capacity:
                        turns[slot], owners[slot] = turn, number
        if len(turns) < 2:
            raise ValueError(f"the corpus has {len(turns)} usable turn(s): too few to draw negatives from")
        generic = [first_spelling[key] for key, _ in counts.most_common(generic_count)]
        lsi = vectors = None
        if retrieval_dims:
            lsi = cls._retrieval_model(turns, retrieval_dims, seed)
            vectors = np.ascontiguousarray(lsi.unit_vectors(turns), dtype=np.float32)
        return cls(turns, np.asarray(owners, dtype=np.int64), generic, lsi, vectors)

    @staticmethod
    def _retrieval_model(turns: list, dims: int, seed: int):
        from ..amfm.lsi import LsiModel

        # A small corpus has fewer distinct words than dimensions: ask for what it has.
        vocabulary = len({w for t in turns for w in normalise(t).split()})
        return LsiModel.train(turns, dims=max(1, min(dims, vocabulary - 1, len(turns) - 1)), weighting="tfidf",
                              seed=seed)

    def __len__(self) -> int:
        return len(self.turns)

    @property
    def has_retrieval(self) -> bool:
        return self._vectors is not None

    def random_turn(self, rng: random.Random, *, avoid_dialogue: int) -> str:
        """A turn of another dialogue than ``avoid_dialogue``."""
        for _ in range(8):
            i = rng.randrange(len(self.turns))
            if self.dialogue_ids[i] != avoid_dialogue:
                return self.turns[i]
        return self.turns[i]

    def similar(self, responses: list, rng: random.Random, *, dialogue: int, candidates: int = 8) -> list:
        """For each true response, a turn of another dialogue among the ``candidates``
        most similar to it (one drawn at random), never the same reply in other words."""
        if not responses:
            return []
        if self._vectors is None:
            raise ValueError("this turn pool was built without a retrieval index (retrieval_dims=0)")
        scores = np.asarray(self._lsi.unit_vectors(responses), dtype=np.float32) @ self._vectors.T
        width = min(candidates + 8, scores.shape[1])
        top = np.argpartition(-scores, width - 1, axis=1)[:, :width]
        out = []
        for row, response in enumerate(responses):
            order = top[row][np.argsort(-scores[row, top[row]], kind="stable")]
            truth = normalise(response)
            chosen = [int(c) for c in order if self.dialogue_ids[c] != dialogue and normalise(self.turns[c]) != truth]
            out.append(self.turns[rng.choice(chosen[:candidates])] if chosen
                       else self.random_turn(rng, avoid_dialogue=dialogue))
        return out
