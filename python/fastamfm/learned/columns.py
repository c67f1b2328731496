"""Per-response metric columns for the stacked combiner: registry metrics under the
stable names a fitted scorer file stores (``SOURCES``: column -> registry metric and
column), computed by the one pipeline (``fastamfm.Pipeline``) like every other score.

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

The references are encoded once per call (one ``fastamfm.References`` shared by the
pipeline's metrics).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

REFERENCE_COLUMNS = ("BLEU-2", "METEOR", "ROUGE-L", "AM", "FM", "AM-FM")
CONTEXT_COLUMNS = ("AM-context", "FM-context", "LM")
EVALUATOR_COLUMNS = ("Evaluator", "Evaluator-relevance", "Evaluator-validity")
COLUMNS = REFERENCE_COLUMNS + CONTEXT_COLUMNS + EVALUATOR_COLUMNS
# column -> (registry metric, its column): what each column is in the registry. The
# "-context" columns are the same metrics with the last context turn as the reference.
SOURCES = {"BLEU-2": ("bleu", "Bleu_2"), "METEOR": ("meteor", "METEOR"), "ROUGE-L": ("rouge_l", "ROUGE_L"),
           "AM": ("am", "AM"), "FM": ("fm", "FM"), "AM-FM": ("amfm", "AM-FM"),
           "AM-context": ("am", "AM"), "FM-context": ("fm", "FM"),
           "Evaluator": ("evaluator", "evaluator"), "Evaluator-relevance": ("evaluator", "evaluator_relevance"),
           "Evaluator-validity": ("evaluator", "evaluator_validity")}


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


def _registry_columns(names: list, hyps: list, refs, contexts, options: dict) -> dict:
    """{column: values} of the columns ``names`` whose sources are registry metrics, scored
    together by one pipeline against ``refs`` (and ``contexts``)."""
    from ..pipeline import Pipeline

    wanted = [n for n in names if n in SOURCES]
    if not wanted:
        return {}
    metrics = list(dict.fromkeys(SOURCES[n][0] for n in wanted))
    chosen = {k: v for k, v in options.items() if k in metrics or k == "model" and {"am", "fm", "amfm"} & set(metrics)}
    scores = Pipeline.from_names(metrics, what="learned columns", strict=True, **chosen).score(hyps, refs, contexts)
    return {n: scores[SOURCES[n][1]] for n in wanted}


def metric_columns(names: Sequence[str], hyps: list, refs=None, contexts=None, *, model=None,
                   evaluator=None) -> dict:
    """``{name: ndarray[n]}`` for the built-in column ``names`` (see the module doc).
    ``model``: the AM-FM model (default: the packaged one); ``evaluator``: the trained
    ``Evaluator`` of the evaluator columns."""
    from ..amfm.scorer import resolve_model
    from ..references import References

    names = list(names)
    out: dict = {}
    scorer = resolve_model(model) if any(n in ("AM", "FM", "AM-FM", *CONTEXT_COLUMNS) for n in names) else None
    options = {"model": scorer, "bleu": {"max_order": 2}, "evaluator": {"model": evaluator}}
    referenced = [n for n in names if n in REFERENCE_COLUMNS or n in EVALUATOR_COLUMNS]
    if referenced:
        with_refs = refs if refs is None or any(n in EVALUATOR_COLUMNS for n in referenced) \
            else References(refs, max_order=2)
        out.update(_registry_columns(referenced, hyps, with_refs, contexts, options))
    in_context = [n for n in names if n in ("AM-context", "FM-context")]
    if in_context:
        last_turns = [[context[-1] if context else ""] for context in contexts]
        out.update(_registry_columns(in_context, hyps, last_turns, None, options))
    if "LM" in names:
        assert scorer is not None   # resolved above: "LM" is a context column
        out["LM"] = _lm_column(scorer.lm, hyps)
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
