"""The training examples of one dialogue: every real next turn, and beside each a
negative of a kind drawn by weight.

Kinds (``NEGATIVE_KINDS``):

- ``random``: a turn of another dialogue (USR's and USL-H's next-utterance negatives);
- ``same_dialogue``: a turn of the same dialogue out of place: on topic and in the
  speakers' voice, but not what answers the context (DynaEval's and GRADE's lesson);
- ``retrieval``: a turn of another dialogue similar to the true response
  (``TurnPool.similar``): same topic and words, wrong reply;
- ``generic``: one of the corpus's most frequent turns ("I see .", "Thank you .");
- ``shuffle``, ``truncate``, ``repeat``, ``drop``: the true response corrupted
  (``corruption.py``; USL-H's valid-utterance negatives).

Each example carries a label per sub-score (``SUB_SCORES``):

- ``relevance``: is this what was said next? 1 for the real turn, 0 for every negative;
- ``validity``: is this a well-formed utterance? 0 for the corrupted turns only.

One forward pass of the network gives both, so the sub-scores cost nothing extra.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from .corruption import CORRUPTIONS, corrupt

NEGATIVE_KINDS = ("random", "same_dialogue", "retrieval", "generic") + CORRUPTIONS
# What the shipped recipe draws (chosen on the ablation in benchmarks/evaluator/).
DEFAULT_NEGATIVES = {"random": 1.0, "same_dialogue": 1.0, "retrieval": 1.0, "generic": 0.5, "shuffle": 0.25,
                     "truncate": 0.25, "repeat": 0.25, "drop": 0.25}


@dataclass(frozen=True)
class Example:
    """One (context, response) pair with its labels; ``kind`` is "positive" or a negative kind."""

    context: tuple
    response: str
    kind: str

    @property
    def labels(self) -> tuple:
        """(relevance, validity) targets."""
        return (1.0 if self.kind == "positive" else 0.0, 0.0 if self.kind in CORRUPTIONS else 1.0)


def check_negatives(weights) -> dict:
    """``{kind: weight}`` checked: known kinds, non-negative finite weights, one positive."""
    if not isinstance(weights, dict) or not weights:
        raise ValueError(f"negatives must be a non-empty {{kind: weight}} mapping, got {weights!r}")
    out = {}
    for kind, weight in weights.items():
        if kind not in NEGATIVE_KINDS:
            raise ValueError(f"unknown negative kind {kind!r}; choose from {NEGATIVE_KINDS}")
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 <= weight < float("inf"):
            raise ValueError(f"negatives[{kind!r}] must be a non-negative number, got {weight!r}")
        if weight > 0:
            out[kind] = float(weight)
    if not out:
        raise ValueError("every negative kind has weight 0: give at least one a positive weight")
    return out


class NegativeSampler:
    """Examples of a dialogue (``examples``) from a ``TurnPool``, drawn with its own
    seeded ``random.Random``: the same corpus read in the same order gives the same
    examples (what a resumed training run relies on)."""

    def __init__(self, pool, weights: dict, *, context_turns: int, seed: int = 0):
        self.pool = pool
        self.weights = check_negatives(weights)
        if "retrieval" in self.weights and not pool.has_retrieval:
            raise ValueError("retrieval negatives need a turn pool with a retrieval index")
        if isinstance(context_turns, bool) or not isinstance(context_turns, int) or context_turns < 1:
            raise ValueError(f"context_turns must be a positive integer, got {context_turns!r}")
        self.context_turns = context_turns
        self._kinds = list(self.weights)
        self._cumulative = [sum(list(self.weights.values())[:i + 1]) for i in range(len(self._kinds))]
        self._rng = random.Random(f"negatives:{seed}")

    def examples(self, key: int, turns: list) -> list:
        """A positive and a negative for every turn after the first of dialogue ``key``."""
        rng = self._rng
        drawn = []
        for t in range(1, len(turns)):
            kind = rng.choices(self._kinds, cum_weights=self._cumulative)[0]
            drawn.append((t, kind))
        wanted = [turns[t] for t, kind in drawn if kind == "retrieval"]
        similar = iter(self.pool.similar(wanted, rng, dialogue=key) if wanted else [])
        out = []
        for t, kind in drawn:
            context = tuple(turns[max(0, t - self.context_turns):t])
            out.append(Example(context, turns[t], "positive"))
            negative = self._negative(kind, turns, t, key, similar, rng)
            if negative is not None:
                out.append(negative)
        return out

    def _negative(self, kind: str, turns: list, t: int, key: int, similar, rng: random.Random):
        context = tuple(turns[max(0, t - self.context_turns):t])
        if kind == "random":
            return Example(context, self.pool.random_turn(rng, avoid_dialogue=key), kind)
        if kind == "retrieval":
            return Example(context, next(similar), kind)
        if kind == "generic":
            return Example(context, rng.choice(self.pool.generic), kind)
        if kind == "same_dialogue":
            # Any turn but the true one and the one just after it (which could still fit);
            # the turn just before it (an echo of the context) is a fair negative too.
            others = [u for u in range(len(turns)) if u != t and u != t + 1 and turns[u] != turns[t]]
            if not others:
                return Example(context, self.pool.random_turn(rng, avoid_dialogue=key), "random")
            return Example(context, turns[rng.choice(others)], kind)
        damaged = corrupt(kind, turns[t], rng)
        if damaged is None:       # too short to damage: a random turn instead
            return Example(context, self.pool.random_turn(rng, avoid_dialogue=key), "random")
        return Example(context, damaged, kind)
