"""Checked inputs of the neural metrics: responses, ragged references (raw or a
``References``, whose derived-state cache then keeps reference encodings across systems)
and dialogue contexts."""
from __future__ import annotations

import numpy as np

from .._validation import flatten_references, text_list
from ..references import References

__all__ = ["ReferenceTexts", "context_turns", "empty_responses", "text_list"]


def empty_responses(texts: list) -> np.ndarray:
    """bool [n]: the responses with no token (empty or whitespace only, as ``str.split``
    sees it), which score the lowest value of each neural metric's scale."""
    return np.fromiter((not t.strip() for t in texts), dtype=bool, count=len(texts))


class ReferenceTexts:
    """Flat reference texts and segment offsets; ``cached(key, build)`` stores derived
    state on the ``References`` given (built anew for raw lists, which have no cache)."""

    def __init__(self, refs, n_hyps: int, what: str):
        if isinstance(refs, References):
            if len(refs) != n_hyps:
                raise ValueError(f"{what}: {n_hyps} hypotheses but References holds {len(refs)} segments")
            self.references: References | None = refs
            self.flat = refs.flat_texts
            offsets = refs.segment_offsets
        else:
            self.references = None
            self.flat, offsets = flatten_references(refs, n_hyps)
            for j, t in enumerate(self.flat):
                if not isinstance(t, str):
                    raise TypeError(f"{what}: reference {j} (flattened) is {type(t).__name__}, expected str")
        self.offsets = np.asarray(offsets, dtype=np.int64)

    def cached(self, key, build):
        return build() if self.references is None else self.references.derived(key, build)


def context_turns(contexts, n_hyps: int, what: str) -> list:
    """Per response, the dialogue so far as a list of turns (a str is split at newlines);
    every context needs at least one turn."""
    if isinstance(contexts, (str, bytes)):
        raise TypeError(f"{what}: contexts must be a list (one per response) of turn lists or strings")
    contexts = list(contexts)
    if len(contexts) != n_hyps:
        raise ValueError(f"{what}: {n_hyps} hypotheses but {len(contexts)} contexts")
    out = []
    for i, context in enumerate(contexts):
        turns = context.split("\n") if isinstance(context, str) else context
        if isinstance(turns, (bytes, dict)) or not hasattr(turns, "__iter__"):
            raise TypeError(f"{what}: contexts[{i}] is {type(context).__name__}, expected a list of turns or a str")
        turns = list(turns)
        if not turns:
            raise ValueError(f"{what}: contexts[{i}] has no turn")
        for k, t in enumerate(turns):
            if not isinstance(t, str):
                raise TypeError(f"{what}: contexts[{i}][{k}] is {type(t).__name__}, expected str")
        out.append(turns)
    return out
