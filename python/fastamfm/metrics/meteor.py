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

from dataclasses import dataclass

import numpy as np

from .. import _core
from .._validation import check_workers
from ..registry import Chunk, Metric, SentenceStatistics, Statistics, register, statistics_of
from ..result import MetricResult, make_signature
from . import meteor_resources

STAGES = ("exact", "stem", "synonym", "paraphrase")
# Columns of the jar's 23 statistics (lengths, function words, 4 x 4 stage counts, then these).
_CHUNKS, _TEST_MATCHES, _REFERENCE_MATCHES = 20, 21, 22


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


@dataclass(frozen=True)
class MeteorStatistics(Statistics):
    """The jar's 23 corpus statistics (summed segment statistics): METEOR's corpus score
    is computed from them, not averaged, so chunks add exactly (integer counts)."""

    totals: tuple

    def __add__(self, other: "MeteorStatistics") -> "MeteorStatistics":
        if not isinstance(other, MeteorStatistics):
            return NotImplemented
        return MeteorStatistics(tuple(a + b for a, b in zip(self.totals, other.totals)))

    def score(self) -> float:
        return float(_core.meteor_corpus_score(np.asarray(self.totals, dtype=np.float64)))

    def to_json(self) -> dict:
        return {"totals": list(self.totals)}

    @classmethod
    def from_json(cls, data: dict) -> "MeteorStatistics":
        return cls(tuple(float(x) for x in data["totals"]))


@register
class Meteor(Metric):
    """METEOR 1.5 (see ``meteor``). Options in a shared option dict:
    ``meteor_resources``, ``meteor_stages``."""

    name = "meteor"
    columns = ("METEOR",)
    default = True

    def __init__(self, *, resources="auto", stages=None, workers: int = -1):
        self.flags = _stage_flags(stages)
        self.workers = check_workers(workers, "meteor")
        self.resources = _resources_for(resources, self.flags)

    @classmethod
    def option_names(cls) -> tuple:
        return ("meteor_resources", "meteor_stages", "workers")

    @classmethod
    def from_options(cls, **options) -> "Meteor":
        return cls(resources=options.get("meteor_resources", "auto"), stages=options.get("meteor_stages"),
                   workers=options.get("workers", -1))

    @classmethod
    def missing(cls, **options) -> str | None:
        flags = _stage_flags(options.get("meteor_stages"))
        if not (flags[2] or flags[3]):
            return None
        try:
            meteor_resources.locate(options.get("meteor_resources", "auto"))
        except meteor_resources.MeteorResourcesNotFound as exc:
            return str(exc)
        return None

    def signature(self) -> str:
        full = all(self.flags) and self.resources is not None
        settings = {"stages": "+".join(s for s, f in zip(STAGES, self.flags) if f), "norm": "en",
                    "params": "0.85,0.2,0.6,0.75", "weights": "1.0,0.6,0.8,0.6"}
        if full:
            settings["variant"] = "meteor-1.5"
        else:
            settings["variant"] = "not-meteor-1.5"
            settings["resources"] = "yes" if self.resources is not None else "none"
        return make_signature("meteor", **settings)

    def update(self, batch) -> Chunk:
        refs = batch.refs
        prepared = refs.derived(("meteor.references", self.resources, self.flags), lambda: _core.MeteorReferences(
            refs.flat_texts, refs.segment_offsets, self.resources, list(self.flags), self.workers))
        _, sentences, stats, totals = prepared.score(batch.hyps.texts, self.workers)
        sentences = np.asarray(sentences)
        return Chunk({"METEOR": sentences}, MeteorStatistics(tuple(totals.tolist())), {"stats": stats})

    def compute(self, statistics: Statistics) -> dict:
        return {"METEOR": statistics_of(MeteorStatistics, statistics, self.name).score()}

    def sentence_statistics(self, batch, chunk: Chunk) -> SentenceStatistics:
        """Rows: what each segment adds to the jar's 23 corpus statistics; a sample's
        METEOR comes from their sums, as the corpus score does (not from averaged
        sentence scores)."""
        rows = np.array(chunk.extra["stats"], dtype=np.float64)
        # As the jar (MeteorStats::add), a segment matched whole in one chunk adds no chunk.
        whole = (rows[:, _TEST_MATCHES] == rows[:, 0]) & (rows[:, _REFERENCE_MATCHES] == rows[:, 1]) & \
            (rows[:, _CHUNKS] == 1)
        rows[whole, _CHUNKS] = 0

        def corpus(sums, keys=None):
            # MeteorStatistics.score's formula, sample by sample (about a µs each).
            return {"METEOR": np.array([_core.meteor_corpus_score(row) for row in sums])}

        return SentenceStatistics(rows, corpus)

    def empty_statistics(self) -> MeteorStatistics:
        return MeteorStatistics((0.0,) * 23)

    def statistics_from_json(self, data: dict) -> MeteorStatistics:
        return MeteorStatistics.from_json(data)

    def result_extra(self, chunk: Chunk) -> dict:
        return {"stats": chunk.extra["stats"]}


def meteor(hyps, refs, *, resources="auto", stages=None, workers: int = -1, layout: str | None = None) -> MetricResult:
    """METEOR 1.5 of ``hyps[i]`` against the references ``refs[i]``.

    ``resources``: ``"auto"`` (found in an installed pycocoevalcap), a path to
    ``meteor-1.5.jar`` or its directory, a cache file, or a loaded
    ``fastamfm.meteor_resources.load(...)``; None runs without them (exact and stem
    stages only). ``stages``: None for all four stages
    (METEOR 1.5); a subset such as ``("exact", "stem")`` gives a different metric,
    labelled in the signature, which also runs without resources (then no function
    words and no nonbreaking prefixes). Returns ``.corpus`` (from summed statistics),
    ``.sentences`` and ``extra["stats"]``: the jar's 23 statistics per segment.

    Parameters
    ----------
    hyps : sequence of str or Hypotheses
        The n responses.
    refs : sequence of sequences of str, or References
        ``refs[i]``: the references of ``hyps[i]`` (any count >= 1).
    resources : str, path, loaded resources or None, default "auto"
        Where the jar's resource files are (see above); None: none (exact and stem stages only).
    stages : sequence of str, optional
        A non-empty subset of ``("exact", "stem", "synonym", "paraphrase")``; None: all four.
    workers : int, default -1
        Threads (-1: every core).
    layout : {None, "responses", "streams"}, optional
        How a plain list ``refs`` is laid out (see ``References.of``).

    Returns
    -------
    MetricResult
        Column ``METEOR``: ``.sentences["METEOR"]`` (float64 [n]) and ``.corpus["METEOR"]``,
        computed from the summed statistics; the signature says whether it is METEOR 1.5.

    Raises
    ------
    meteor_resources.MeteorResourcesNotFound
        The synonym or paraphrase stage asked for (the default) and no resources found
        (a ``FileNotFoundError``; the message says how to get them).
    ValueError
        Unknown ``stages``, or ``resources=None`` with the synonym or paraphrase stage;
        ``hyps`` empty, of another length than ``refs``, or a response without references.
    TypeError
        ``hyps`` or ``refs`` not a sequence of strings (of sequences of strings).

    Examples
    --------
    Without resources (exact and stem matches only, not METEOR 1.5):

    >>> import fastamfm
    >>> res = fastamfm.meteor(["the cat sat on the mat", "a dog ran"],
    ...                       [["the cat sat on a mat", "a cat was on the mat"], ["the dog ran away"]],
    ...                       resources=None, stages=("exact", "stem"))
    >>> res.sentences["METEOR"].round(6).tolist()
    [0.417057, 0.24814]
    >>> round(res.corpus["METEOR"], 6)
    0.35073
    """
    return Meteor(resources=resources, stages=stages, workers=workers).score(hyps, refs, layout=layout)
