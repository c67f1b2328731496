"""Many continuations of one shared prefix, the prefix computed once.

A judge asks one question of a dialogue in many ways: how likely each of K follow-up
turns is after context + reply, or which rating an LM gives a reply on each of A aspects.
The token sequences then share a long prefix (the context, the reply, the judge's
instruction) and differ only in a short tail. Scoring each tail as a sequence of its own
re-reads the prefix K times; here it is read once:

``"cache"``     (transformers) the prefixes, batched by length, run once with their
                key/value cache kept; the cache is expanded over each prefix's
                continuations (``past_key_values`` indexed over the batch) and only the
                continuation tokens run through the model.
``"tree"``      every sequence put into the engine's prefix tree (``token_trie``; for
                llama.cpp: one decode in which the prefix's tokens belong to the
                sequences of all its continuations, llama.cpp's multi-sequence KV
                cache, the counterpart of copying a sequence): each distinct token
                prefix evaluated once, also the context shared by the replies of
                several systems.
``"separate"``  each continuation a sequence of its own, nothing shared: the baseline
                the other two are measured against (transformers only).

All three give the same log-probabilities up to float rounding (<= 1e-5 per token,
tests/test_followup.py checks them against a plain one-forward-per-sequence loop).
``"auto"`` is ``"tree"``: measured faster on the CPU for dialogue workloads, where the
replies of many systems share each context (``benchmarks/judge/compare.py``).

``candidates``: token ids whose ln p is wanted right after every continuation (the
rating digits of an LM judge): one softmax normaliser per continuation end.

``score_with_plain``: plain ``ScoringRequest``s scored beside the continuations, in the same
pass of the prefix tree, so a sequence that begins a continuation's prefix (a reply scored
given its context, before the follow-ups of that reply) is evaluated once for both.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .dialogue_format import ContinuationRequest, ScoringRequest

__all__ = ["METHODS", "ContinuationRequest", "ContinuationScores", "score_continuations", "score_with_plain"]
METHODS = ("auto", "cache", "tree", "separate")


@dataclass(frozen=True)
class ContinuationScores:
    """Per request: ``log_probs[r][k]`` ln p of each token of continuation k (float64);
    ``candidates[r]`` [K, C] ln p of each candidate token after continuation k (None
    without candidates)."""

    log_probs: list
    candidates: list | None

    def means(self) -> list:
        """Per request, the mean ln p per token of each continuation (float64 [K]; NaN for
        an empty continuation)."""
        return [np.array([v.mean() if len(v) else np.nan for v in per], dtype=np.float64) for per in self.log_probs]


def check_requests(requests: list) -> None:
    for r, request in enumerate(requests):
        if not request.prefix:
            raise ValueError(f"continuation request {r}: the prefix is empty (the first token needs something to be "
                             f"predicted from)")
        if not request.continuations:
            raise ValueError(f"continuation request {r}: no continuation to score")


def score_continuations(engine, requests: list, *, candidates: tuple = (), method: str = "auto") -> ContinuationScores:
    """ln p of every continuation token (and of each candidate token after each
    continuation) under ``engine`` (a ``NeuralLM`` engine); see the module docstring."""
    if method not in METHODS:
        raise ValueError(f"continuations: method must be one of {METHODS}, got {method!r}")
    check_requests(requests)
    candidates = tuple(int(c) for c in candidates)
    if method == "auto":
        method = "tree"
    if method == "cache":
        if not hasattr(engine, "continuation_log_probs"):
            raise ValueError(f"continuations: method='cache' needs the transformers engine, not {engine.name}")
        log_probs, ends = engine.continuation_log_probs(requests, candidates)
        return ContinuationScores(log_probs, ends if candidates else None)
    if method == "separate" and engine.name != "transformers":
        raise ValueError(f"continuations: method='separate' (the unshared baseline) needs the transformers engine, "
                         f"not {engine.name}")
    return _flattened(engine, requests, candidates, shared=method == "tree")[1]


def score_with_plain(engine, plain: list, requests: list, *, method: str = "auto") -> tuple:
    """(the engine's scores of the ``ScoringRequest``s ``plain``, ``ContinuationScores`` of
    ``requests``): with the prefix tree ("auto", "tree") in one engine pass, the tokens the two
    kinds share evaluated once; with another method, the two scored one after the other."""
    if method not in METHODS:
        raise ValueError(f"continuations: method must be one of {METHODS}, got {method!r}")
    if method not in ("auto", "tree"):
        return (engine.log_probs(plain) if plain else []), score_continuations(engine, requests, method=method)
    check_requests(requests)
    return _flattened(engine, requests, (), shared=True, plain=plain)


def _flattened(engine, requests: list, candidates: tuple, *, shared: bool, plain: Sequence = ()) -> tuple:
    """Every continuation (and every candidate after it) as a ``ScoringRequest`` of the engine,
    after the ``plain`` ones: (their scores as the engine gives them, ``ContinuationScores``)."""
    flat = list(plain)
    for request in requests:
        for continuation in request.continuations:
            flat.append(ScoringRequest(request.prefix, tuple(continuation)))
            flat.extend(ScoringRequest(request.prefix + tuple(continuation), (c,)) for c in candidates)
    scores = engine.log_probs(flat) if shared else engine.log_probs(flat, shared=False)
    plain_scores = scores[:len(plain)]
    scores = [_numpy(s) for s in scores[len(plain):]]
    log_probs, ends, at = [], [], 0
    for request in requests:
        per, end = [], []
        for _ in request.continuations:
            per.append(scores[at])
            end.append([float(scores[at + 1 + j][0]) for j in range(len(candidates))])
            at += 1 + len(candidates)
        log_probs.append(per)
        ends.append(np.array(end, dtype=np.float64).reshape(len(per), len(candidates)))
    return plain_scores, ContinuationScores(log_probs, ends if candidates else None)


def _numpy(values) -> np.ndarray:
    if isinstance(values, np.ndarray):
        return values.astype(np.float64)
    return values.detach().to("cpu").double().numpy()
