"""Human-rated responses: what tuning, correlation and learned scorers read.

``RatedTurns`` holds n responses with their dialogue contexts, references (when the
set has them), the system that produced each one and one human rating per response
(the mean over raters of one aspect). ``load_rated_turns`` reads the DSTC-10 track-5
JSON layout (a list of turns: ``context`` with turns joined by newlines, ``response``,
optional ``reference`` list, ``model``/``model_name``, ``annotations`` {aspect: [score
per rater]}) and jsonl records ``{"hyp", "refs"?, "context"?, "rating", "system"?}``.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import format_error
from ..io.readers import check_text_field, iter_json_lines, read_json_file

# The aspect each DSTC-10 set is usually judged on (the track's convention).
USUAL_ASPECTS = ("appropriateness", "Overall", "relevance")


@dataclass(frozen=True)
class RatedTurns:
    """n rated responses. ``refs`` is None when the set has no references."""

    name: str
    hyps: list
    contexts: list          # per response: the dialogue so far as a list of turns (last turn last)
    refs: list | None       # per response: a list of references, or None for the whole set
    systems: list           # per response: the system (model) that produced it
    ratings: np.ndarray     # per response: mean human rating of ``aspect``
    aspect: str

    def __len__(self) -> int:
        return len(self.hyps)

    def subset(self, index) -> "RatedTurns":
        index = np.asarray(index)
        pick = lambda xs: [xs[i] for i in index]  # noqa: E731
        return RatedTurns(self.name, pick(self.hyps), pick(self.contexts),
                          None if self.refs is None else pick(self.refs), pick(self.systems),
                          self.ratings[index], self.aspect)


def _usual_aspect(annotations: dict, path, place: dict) -> str:
    for aspect in USUAL_ASPECTS:
        if aspect in annotations:
            return aspect
    raise format_error(path, f"none of the usual aspects {USUAL_ASPECTS} among {sorted(annotations)}; pass aspect=",
                       **place)


def _is_finite_number(value) -> bool:
    """A JSON number that is a finite float (huge integers overflow, bools are not numbers)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def _rating(scores, what: str, path, place: dict) -> float:
    if not isinstance(scores, list) or not scores:
        raise format_error(path, f"{what}: expected a non-empty list of rater scores, got {scores!r:.60}", **place)
    for s in scores:
        if not _is_finite_number(s):
            raise format_error(path, f"{what}: rater score {s!r:.40} is not a finite number", **place)
    return float(np.mean([float(s) for s in scores]))


def _text(value, what: str, path, place: dict) -> str:
    if not isinstance(value, str):
        raise format_error(path, f"{what} must be a string, got {type(value).__name__}", **place)
    check_text_field(value, what, path, **place)
    return value


def _from_dstc10(records: list, name: str, aspect: str | None, path) -> RatedTurns:
    hyps, contexts, refs, systems, ratings = [], [], [], [], []
    has_refs = None
    for i, rec in enumerate(records, 1):
        place = {"record": i}
        if not isinstance(rec, dict):
            raise format_error(path, "expected a JSON object", **place)
        for key in ("response", "context", "annotations"):
            if key not in rec:
                raise format_error(path, f"missing {key!r}", **place)
        annotations = rec["annotations"]
        if not isinstance(annotations, dict):
            raise format_error(path, "annotations must be an object", **place)
        aspect = aspect or _usual_aspect(annotations, path, place)
        if aspect not in annotations:
            raise format_error(path, f"no ratings of aspect {aspect!r} (has {sorted(annotations)})", **place)
        hyps.append(_text(rec["response"], "response", path, place))
        contexts.append(_text(rec["context"], "context", path, place).split("\n"))
        systems.append(str(rec.get("model", rec.get("model_name", "unknown"))))
        ratings.append(_rating(annotations[aspect], f"annotations[{aspect!r}]", path, place))
        reference = rec.get("reference")
        if has_refs is None:
            has_refs = reference is not None
        if has_refs != (reference is not None):
            raise format_error(path, "some records have references and some do not", **place)
        if has_refs:
            reference = [reference] if isinstance(reference, str) else reference
            if not isinstance(reference, list) or not reference:
                raise format_error(path, "reference must be a string or a non-empty list of strings", **place)
            refs.append([_text(r, "reference", path, place) for r in reference])
    if not hyps:
        raise format_error(path, "holds no rated response")
    assert aspect is not None   # set by the first record
    return RatedTurns(name, hyps, contexts, refs if has_refs else None, systems,
                      np.asarray(ratings, dtype=np.float64), aspect)


def _from_jsonl(path, name: str) -> RatedTurns:
    hyps, contexts, refs, systems, ratings = [], [], [], [], []
    has_refs = None
    for line_number, rec in iter_json_lines(path):
        place = {"line": line_number}
        if "hyp" not in rec or "rating" not in rec:
            raise format_error(path, "expected an object with 'hyp' and 'rating'", **place)
        rating = rec["rating"]
        if not _is_finite_number(rating):
            raise format_error(path, f"rating {rating!r:.40} is not a finite number", **place)
        hyps.append(_text(rec["hyp"], "hyp", path, place))
        context = rec.get("context", [])
        context = context.split("\n") if isinstance(context, str) else context
        if not isinstance(context, list) or not all(isinstance(t, str) for t in context):
            raise format_error(path, "context must be a string or a list of strings", **place)
        for turn in context:
            check_text_field(turn, "context", path, **place)
        contexts.append(context)
        systems.append(str(rec.get("system", "unknown")))
        ratings.append(float(rating))
        if has_refs is None:
            has_refs = "refs" in rec
        if has_refs != ("refs" in rec):
            raise format_error(path, "some records have refs and some do not", **place)
        if has_refs:
            r = rec["refs"]
            if not isinstance(r, list) or not r or not all(isinstance(x, str) for x in r):
                raise format_error(path, "refs must be a non-empty list of strings", **place)
            refs.append([_text(x, "refs", path, place) for x in r])
    if not hyps:
        raise format_error(path, "holds no rated response")
    return RatedTurns(name, hyps, contexts, refs if has_refs else None, systems,
                      np.asarray(ratings, dtype=np.float64), "rating")


def load_rated_turns(path, *, aspect: str | None = None) -> RatedTurns:
    """Rated responses from a DSTC-10 JSON file (``aspect``: default the set's usual one)
    or a jsonl file of ``{"hyp", "rating", "refs"?, "context"?, "system"?}`` records."""
    path = Path(os.fspath(path))
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    name = path.name.split("_eval")[0].split(".")[0]
    if path.suffix == ".jsonl":
        return _from_jsonl(path, name)
    records = read_json_file(path, "rated-turns file")
    if not isinstance(records, list):
        raise format_error(path, "expected a JSON list of rated turns")
    return _from_dstc10(records, name, aspect, path)


def load_dstc10_dev(directory) -> dict:
    """Every ``*_eval.json`` set in ``directory`` (e.g. ``../shared/data/dstc10_dev``), by name."""
    directory = Path(os.fspath(directory))
    files = sorted(directory.glob("*_eval.json"))
    if not files:
        raise FileNotFoundError(f"{directory}: no *_eval.json rated sets")
    return {(s := load_rated_turns(f)).name: s for f in files}
