"""``tune_deep``: how DeepAMFM's correlation with humans moves with λ and the FM formula.

The neural components are computed once per system (adequacy) and once per (system,
formula) (fluency), against one shared ``References``, so the references' embeddings and
LM scores are derived once; every λ is then a cheap combination on the scorer's fixed
calibration. A row (λ, formula) is reproduced by ``DeepAMFM(fm_formula=...)`` (or
``fm_context_formula=`` without references) with ``lam=λ`` and the same calibration.

Like ``fastamfm.tune``, the result is TUNED ON THE DATA IT REPORTS: its best row is an
optimistic, in-sample figure (``benchmarks/deep/amfm_correlation.py`` reports
leave-one-set-out numbers instead).
"""
from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .._validation import as_text_list
from ..amfm.tuning import DEFAULT_LAMS, TuningResult, _targets
from ..analysis.correlation import _coefficient
from .deep_amfm import CONTEXT_FORMULAS, DeepAMFM
from .fm import REFERENCE_FORMULAS


@dataclass(frozen=True)
class DeepTuningRow:
    lam: float
    fm_formula: str
    pearson: float
    pearson_p: float
    spearman: float
    spearman_p: float


def tune_deep(systems: Mapping, human, *, refs=None, contexts=None, scorer: DeepAMFM | None = None,
              lams=DEFAULT_LAMS, fm_formulas=None, level: str = "system") -> TuningResult:
    """Correlation with ``human`` of DeepAMFM for every λ in ``lams`` and FM formula.

    ``systems``: ``{name: responses}``, all aligned with the shared ``refs`` (reference
    mode) and/or ``contexts`` (reference-free mode; both: reference AM, context FM);
    ``human``: ``{name: rating}`` (``level="system"``) or ``{name: ratings per
    response}`` (``level="utterance"``). ``scorer``: default ``DeepAMFM.default()``.
    ``fm_formulas``: default every formula of the mode ("ratio", "dstc10" with
    references only; "pmi", "pmi-total" with contexts); a hybrid scorer (n-gram LM)
    has its own formula only. Reference-free, λ weighs AM against FM within the scorer's
    ``context_combination`` (the followup, where it joins, keeps its third).

    Parameters
    ----------
    systems : mapping of str to sequence of str
        ``{name: responses}``.
    human : mapping of str to float, or of str to sequence of float
        ``{name: rating}`` (system level) or ``{name: per-response ratings}`` (utterance level).
    refs : sequence of sequences of str, or References, optional
        The references shared by all systems.
    contexts : sequence, optional
        The dialogue contexts shared by all systems. Give ``refs``, ``contexts`` or both.
    scorer : DeepAMFM, optional
        The scorer tuned; None: ``DeepAMFM.default()`` (loads the packaged models).
    lams : float or sequence of float, default 0.0, 0.1, ..., 1.0
        The AM weights tried, each in [0, 1].
    fm_formulas : str or sequence of str, optional
        FM formulas tried; None: every formula of the mode.
    level : {"system", "utterance"}, default "system"
        Correlate system means or per-response scores.

    Returns
    -------
    TuningResult
        One ``DeepTuningRow`` per (formula, λ) with its Pearson and Spearman correlations;
        ``best()``, ``curve()``.

    Raises
    ------
    ValueError
        Neither ``refs`` nor ``contexts``, λ outside [0, 1], a formula not of the mode, a
        system without ratings, an unknown ``level``.
    TypeError
        ``systems`` or ``human`` not a mapping.
    """
    from ..references import References

    names, target = _targets(systems, human, level)
    scorer = DeepAMFM.default() if scorer is None else scorer
    mode = DeepAMFM.mode(refs, contexts)
    hyps = {s: as_text_list(systems[s], f"systems[{s!r}]") for s in names}
    lams = [float(x) for x in ([lams] if isinstance(lams, (int, float)) else lams)]
    if not lams or any(not 0 <= x <= 1 for x in lams):
        raise ValueError(f"lams must be numbers in [0, 1], got {lams}")
    own: tuple[str, ...]
    if scorer.hybrid:
        own = (scorer.fm_formula,)
    else:
        own = REFERENCE_FORMULAS if mode == "reference" else CONTEXT_FORMULAS
    formulas = list(own if fm_formulas is None else [fm_formulas] if isinstance(fm_formulas, str) else fm_formulas)
    if not formulas or any(f not in own for f in formulas):
        raise ValueError(f"fm_formulas for mode {mode!r} must be among {own}, got {formulas}")
    # One References for every system and formula: embeddings and LM scores derived once.
    shared = None if refs is None else refs if isinstance(refs, References) else References(refs)
    # The parts that do not depend on the FM formula (AM; the followup, reference-free) once.
    fm_name = scorer.pair(mode)[1]
    fixed = [name for name in scorer.parts(mode) if name != fm_name]
    kept = {s: scorer.components(hyps[s], shared, contexts, which=fixed) for s in names}
    fm = {}
    for formula in formulas:
        variant = scorer.with_fm_formula(formula, mode)
        fm[formula] = {s: variant.components(hyps[s], shared, contexts, which=[fm_name])[fm_name] for s in names}
    rows = []
    for formula, lam in itertools.product(formulas, lams):
        variant = scorer.with_fm_formula(formula, mode)
        per_system = [variant.combine({**kept[s], fm_name: fm[formula][s]}, mode, lam=lam)[2] for s in names]
        x = np.array([v.mean() for v in per_system]) if level == "system" else np.concatenate(per_system)
        pr, pp = _coefficient("pearson", x, target)
        sr, sp = _coefficient("spearman", x, target)
        rows.append(DeepTuningRow(lam, formula, pr, pp, sr, sp))
    return TuningResult(rows, level=level, points=len(target))
