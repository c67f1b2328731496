"""Per-response metric columns for the stacked combiner, computed through the public API.

Reference-based columns (need references): ``BLEU-2`` (pycocoevalcap's per-segment
BLEU-2), ``METEOR`` (1.5; needs its resources), ``ROUGE-L``, ``AM``, ``FM``, ``AM-FM``
(the AM-FM model's).
Reference-free columns (need contexts): ``AM-context`` and ``FM-context`` (AM and FM
with the last context turn as the only reference, as the DSTC-10 baseline's ref-free
AM) and ``LM`` (the response's mean log10 probability per prediction under the AM-FM
model's n-gram LM, unknown words left out).
Evaluator columns (need contexts and a trained ``fastamfm.Evaluator``, ``evaluator=``):
``Evaluator`` (its combined score, with the references when given), ``Evaluator-relevance``
and ``Evaluator-validity`` (its sub-scores).

The references are encoded once per call (one ``fastamfm.References`` for the overlap
metrics, one for AM-FM's tokenizer).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

REFERENCE_COLUMNS = ("BLEU-2", "METEOR", "ROUGE-L", "AM", "FM", "AM-FM")
CONTEXT_COLUMNS = ("AM-context", "FM-context", "LM")
EVALUATOR_COLUMNS = ("Evaluator", "Evaluator-relevance", "Evaluator-validity")
COLUMNS = REFERENCE_COLUMNS + CONTEXT_COLUMNS + EVALUATOR_COLUMNS
_EVALUATOR_KEYS = {"Evaluator": "evaluator", "Evaluator-relevance": "relevance", "Evaluator-validity": "validity"}


def default_columns(*, has_refs: bool, has_contexts: bool, has_evaluator: bool = False) -> tuple:
    """What the stacked combiner uses unless told: with references, the reference-based
    columns but AM-FM (already a weighted sum of AM and FM) and METEOR when its resources
    are missing; without them, the reference-free columns. (On the DSTC-10 development
    sets, adding the reference-free columns to the reference-based ones lowered the
    held-out correlation, and so did the LM column among the reference-free ones: its
    correlation with the ratings changes sign from set to set.)"""
    if has_evaluator and has_contexts:
        # The evaluator's sub-scores, and with references the overlap columns beside them.
        overlap = ("BLEU-2", "ROUGE-L", "AM") if has_refs else ()
        return overlap + EVALUATOR_COLUMNS[1:] + ("AM-context",)
    if has_refs:
        return tuple(c for c in REFERENCE_COLUMNS if c != "AM-FM" and (c != "METEOR" or meteor_available()))
    return ("AM-context", "FM-context") if has_contexts else ()


def meteor_available() -> bool:
    from ..metrics import meteor_resources

    try:
        meteor_resources.locate("auto")
    except meteor_resources.MeteorResourcesNotFound:
        return False
    return True


def check_columns(names: Sequence[str], *, has_refs: bool, has_contexts: bool, has_evaluator: bool = False) -> None:
    for name in names:
        if name not in COLUMNS:
            raise ValueError(f"unknown metric column {name!r}; choose from {COLUMNS} (or give it in columns=)")
        if name in REFERENCE_COLUMNS and not has_refs:
            raise ValueError(f"column {name!r} needs references (refs=)")
        if name in CONTEXT_COLUMNS + EVALUATOR_COLUMNS and not has_contexts:
            raise ValueError(f"column {name!r} needs dialogue contexts (contexts=)")
        if name in EVALUATOR_COLUMNS and not has_evaluator:
            raise ValueError(f"column {name!r} needs a trained evaluator (evaluator=)")


def _lm_column(lm, hyps: list) -> np.ndarray:
    scores = lm.token_scores(hyps)
    known = np.where(scores.oov, 0.0, scores.log10.astype(np.float64))
    starts = scores.offsets[:-1].astype(np.intp)  # every sentence has a prediction: </s>
    counts = np.add.reduceat((~scores.oov.astype(bool)).astype(np.float64), starts)
    sums = np.add.reduceat(known, starts)
    return np.divide(sums, counts, out=np.zeros(len(hyps)), where=counts > 0)


def metric_columns(names: Sequence[str], hyps: list, refs=None, contexts=None, *, model=None,
                   evaluator=None) -> dict:
    """``{name: ndarray[n]}`` for the built-in column ``names`` (see the module doc).
    ``model``: the AM-FM model (default: the packaged one); ``evaluator``: the trained
    ``Evaluator`` of the evaluator columns."""
    from ..amfm.scorer import resolve_model
    from ..metrics.bleu import bleu
    from ..metrics.meteor import meteor
    from ..metrics.rouge import rouge_l
    from ..references import References

    names = list(names)
    out: dict = {}
    scorer = resolve_model(model) if any(n in ("AM", "FM", "AM-FM", *CONTEXT_COLUMNS) for n in names) else None
    if any(n in REFERENCE_COLUMNS for n in names):
        overlap_refs = References(refs, max_order=2)
        if "BLEU-2" in names:
            out["BLEU-2"] = np.asarray(bleu(hyps, overlap_refs, max_order=2).sentences)[:, 1]
        if "METEOR" in names:
            out["METEOR"] = np.asarray(meteor(hyps, overlap_refs).sentences, dtype=np.float64)
        if "ROUGE-L" in names:
            out["ROUGE-L"] = np.asarray(rouge_l(hyps, overlap_refs).sentences, dtype=np.float64)
        if any(n in ("AM", "FM", "AM-FM") for n in names):
            result = scorer.score(hyps, refs)
            out.update({"AM": result.am, "FM": result.fm, "AM-FM": result.amfm})
    if "AM-context" in names or "FM-context" in names:
        last_turns = [[context[-1] if context else ""] for context in contexts]
        result = scorer.score(hyps, last_turns)
        out.update({"AM-context": result.am, "FM-context": result.fm})
    if "LM" in names:
        out["LM"] = _lm_column(scorer.lm, hyps)
    if any(n in EVALUATOR_COLUMNS for n in names):
        found = evaluator.components(hyps, contexts, refs)
        out.update({name: found[key] for name, key in _EVALUATOR_KEYS.items()})
    return {n: np.asarray(out[n], dtype=np.float64) for n in names}


def given_columns(columns: Mapping | None, n: int) -> dict:
    """Caller-supplied columns (e.g. Deep AM scores) checked: n finite numbers each."""
    out = {}
    for name, values in (columns or {}).items():
        if not isinstance(name, str) or not name:
            raise TypeError(f"column names must be non-empty strings, got {name!r}")
        if name in COLUMNS:
            raise ValueError(f"column {name!r} is built in; give your own columns other names")
        values = np.asarray(values, dtype=np.float64)
        if values.shape != (n,):
            raise ValueError(f"columns[{name!r}] has shape {values.shape}; expected ({n},), one value per response")
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise ValueError(f"columns[{name!r}][{bad[0]}] is {values[bad[0]]}: scores must be finite")
        out[name] = values
    return out
