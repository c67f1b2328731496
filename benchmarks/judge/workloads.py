"""The judge area's workloads: DSTC-10 development responses with their contexts, the
candidate follow-ups and aspects, and the raw scores the correlation script caches
(per set and component, in chunks, so an interrupted run resumes and a new combination
is recomputed without scoring again)."""
from __future__ import annotations

import hashlib
import os
import sys
import time
from pathlib import Path

import numpy as np

# The rated sets and their responses are the evaluator area's (the same dstc10_dev turns).
from benchmarks.evaluator.workloads import ALL, FOUR, dstc10_sets, responses  # noqa: F401

CACHE = Path(os.environ.get("FASTAMFM_JUDGE_CACHE", "/tmp/fastamfm-judge-cache"))
CHUNK = 100
REVERSE = False     # compute the chunks last to first (a second process working towards the first)
CACHE_ONLY = False  # read the cache only: a missing chunk raises NotCached (the tables of a partial run)


class NotCached(LookupError):
    """A chunk the cache lacks while ``CACHE_ONLY`` is set."""


def cached(kind: str, key: str, set_name: str, n: int, compute) -> np.ndarray:
    """``compute(start, stop)`` (rows start:stop of a set) in chunks of ``CHUNK`` rows, each
    kept in ``CACHE`` under ``kind``, the set and a hash of ``key`` (everything the numbers
    depend on), then joined."""
    tag = hashlib.sha1(key.encode()).hexdigest()[:12]
    starts = list(range(0, n, CHUNK))
    paths = {}
    for start in (starts[::-1] if REVERSE else starts):
        stop = min(n, start + CHUNK)
        path = paths[start] = CACHE / f"{set_name}.{kind}.{tag}.{start}-{stop}.npy"
        if not path.exists():
            if CACHE_ONLY:
                raise NotCached(f"{set_name} {kind}: {path.name} is not in {CACHE}")
            began = time.perf_counter()
            values = np.asarray(compute(start, stop))
            CACHE.mkdir(parents=True, exist_ok=True)
            np.save(path.with_suffix(".tmp.npy"), values)
            os.replace(path.with_suffix(".tmp.npy"), path)
            print(f"  {set_name} {kind} {start}-{stop}: {time.perf_counter() - began:.0f} s", file=sys.stderr,
                  flush=True)
    return np.concatenate([np.load(paths[start]) for start in starts])


def followup_log_probs(scorer, rated) -> np.ndarray:
    """Mean ln p of every candidate follow-up [n, K] (``scorer``: a ``FollowupScorer``)."""
    key = f"followup|{scorer.lm.fingerprint}|{scorer.followups}"
    return cached("followup", key, rated.name, len(rated),
                  lambda a, b: scorer.log_probs(rated.hyps[a:b], rated.contexts[a:b]))


def judge_log_probs(judge, rated, refs: bool = False) -> np.ndarray:
    """ln p of the rating tokens per aspect [n, A, 5] (``judge``: an ``LMJudge``)."""
    from fastamfm.deep import lm_judge

    key = f"judge|{judge.lm.fingerprint}|{judge.aspects}|{lm_judge.PROMPT_HEAD}|{lm_judge.CUE}|{refs}"
    return cached("judge-refs" if refs else "judge", key, rated.name, len(rated),
                  lambda a, b: judge.log_probs(rated.hyps[a:b], refs=rated.refs[a:b] if refs else None,
                                               contexts=rated.contexts[a:b]))


def deep_components(scorer, rated, names=("am_context", "fm_context")) -> dict:
    """DeepAMFM's reference-free components: am_context, fm_context [n] each."""
    out = {}
    for name in names:
        key = f"{name}|{scorer.encoder.describe()}|{scorer.lm.fingerprint}|{scorer.am_context_mode}|" \
              f"{scorer.recency}|{scorer.fm_context_formula}"
        out[name] = cached(name, key, rated.name, len(rated),
                           lambda a, b, name=name: scorer.components(rated.hyps[a:b], contexts=rated.contexts[a:b],
                                                                     which=[name])[name])
    return out
