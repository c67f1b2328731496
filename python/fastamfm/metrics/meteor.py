"""METEOR 1.5 (``-l en -norm``), the score nlg-eval and pycocoevalcap report, without Java.

Behaviour reproduced from the METEOR 1.5 jar as pycocoevalcap 1.2 runs it
(``java -jar meteor-1.5.jar - - -stdio -l en -norm``): English normalisation with
punctuation kept, lowercasing, exact / Snowball-stem / WordNet-synonym / paraphrase
matching, the jar's beam search for the alignment, its "ranking" (default) parameters
alpha=0.85, beta=0.2, gamma=0.6, delta=0.75 and stage weights 1.0, 0.6, 0.8, 0.6. A
segment keeps the statistics of its best reference (the first on ties); the corpus
score is computed from the summed statistics (the jar's EVAL line), not averaged.

Empty texts (the jar cannot score them through pycocoevalcap): an empty hypothesis or
an empty reference has no matches, so its precision or recall is 0/0 and the segment
scores 0.0; it still adds its lengths to the corpus statistics. A segment whose
references are all empty scores 0.0 as well.
"""
from __future__ import annotations

import weakref

import numpy as np

from .. import _core, meteor_resources
from .._validation import as_text_list, flatten_references
from ..references import References
from ..result import MetricResult, make_signature

STAGES = ("exact", "stem", "synonym", "paraphrase")

# MeteorReferences prepared from a fastamfm.References, per (resources, stages).
_prepared: "weakref.WeakKeyDictionary[References, dict]" = weakref.WeakKeyDictionary()


def _stage_flags(stages) -> tuple[bool, ...]:
    if stages is None:
        return (True,) * 4
    if isinstance(stages, str):
        stages = (stages,)
    stages = tuple(stages)
    unknown = [s for s in stages if s not in STAGES]
    if unknown or not stages:
        raise ValueError(f"meteor: stages must be a non-empty subset of {STAGES}, got {stages!r}")
    return tuple(s in stages for s in STAGES)


def _resources_for(resources, flags):
    """Loaded resources, or None for an exact/stem run without them (asked for with
    ``resources=None``, or when ``"auto"`` finds none)."""
    if resources is None:
        if flags[2] or flags[3]:
            raise ValueError("meteor: resources=None allows only the exact and stem stages")
        return None
    try:
        return meteor_resources.load(resources)
    except meteor_resources.MeteorResourcesNotFound as exc:
        if flags[2] or flags[3] or resources != "auto":
            raise meteor_resources.MeteorResourcesNotFound(f"meteor: {exc}") from None
        return None


def _meteor_references(refs, n, res, flags, workers):
    if isinstance(refs, References):
        if len(refs) != n:
            raise ValueError(f"meteor: {n} hypotheses but References holds {len(refs)} segments")
        key = (id(res), flags)
        cache = _prepared.setdefault(refs, {})
        if key not in cache:
            cache[key] = _core.MeteorReferences(refs.flat_texts, refs.segment_offsets, res, list(flags), workers)
        return cache[key]
    flat, offsets = flatten_references(refs, n)
    return _core.MeteorReferences(flat, offsets, res, list(flags), workers)


def meteor(hyps, refs, *, resources="auto", stages=None, workers: int = -1) -> MetricResult:
    """METEOR 1.5 of ``hyps[i]`` against the references ``refs[i]``.

    ``resources``: ``"auto"`` (found in an installed pycocoevalcap), a path to
    ``meteor-1.5.jar`` or its directory, a cache file, or a loaded
    ``fastamfm.meteor_resources.load(...)``; None runs without them (exact and stem
    stages only). ``stages``: None for all four stages
    (METEOR 1.5); a subset such as ``("exact", "stem")`` gives a different metric,
    labelled in the signature, which also runs without resources (then no function
    words and no nonbreaking prefixes). Returns ``.corpus`` (from summed statistics),
    ``.sentences`` and ``extra["stats"]``: the jar's 23 statistics per segment.
    """
    hyps = as_text_list(hyps, "hyps")
    flags = _stage_flags(stages)
    res = _resources_for(resources, flags)
    prepared = _meteor_references(refs, len(hyps), res, flags, workers)
    corpus, sentences, stats = prepared.score(hyps, workers)
    full = all(flags) and res is not None
    settings = {"stages": "+".join(s for s, f in zip(STAGES, flags) if f), "norm": "en",
                "params": "0.85,0.2,0.6,0.75", "weights": "1.0,0.6,0.8,0.6"}
    if full:
        settings["variant"] = "meteor-1.5"
    else:
        settings["variant"] = "not-meteor-1.5"
        settings["resources"] = "yes" if res is not None else "none"
    return MetricResult(name="METEOR", corpus=float(corpus), sentences=np.asarray(sentences),
                        signature=make_signature("meteor", **settings), extra={"stats": stats})
