"""Deep FM: fluency of responses from a neural language model (``NeuralLM``).

Every formula starts from the mean natural-log probability per token of a response
(``NeuralLM.score``; the end-of-turn token only with ``NeuralLM.load(..., end_token=True)``).
With references:

``"ratio"`` (Deep AM-FM, Zhang et al.)
  p = exp(mean ln p), the sentence probability normalised by length (1/perplexity);
  FM(hyp, ref) = min(p_hyp, p_ref) / max(p_hyp, p_ref).
``"dstc10"`` (the DSTC-10 track-5 baseline)
  the same ratio taken on the mean log-probabilities themselves (the shorter of the two
  log-perplexities over the longer), which is far less peaked than the probability ratio.

combined over the references by ``combine``: ``"max"`` (default; the DSTC-10 baseline),
``"maxmin"`` (max - min of the per-reference ratios: the Deep AM-FM toolkit; 0 for a single
reference) or ``"mean"`` (the AM-FM paper's argument).

With dialogue contexts instead (reference-free):

``"pmi"``            mean ln p(response | context) - mean ln p(response), per token: how much
                     more likely the context makes the response (generic replies that fit
                     anywhere gain nothing).
``"pmi-total"``      the same difference summed over the response's tokens (pointwise mutual
                     information of response and context): longer informative replies gain.
``"conditional"``    mean ln p(response | context) (the DSTC-10 reference-free baseline scores
                     this given the last turn: ``NeuralLM.load(..., context_turns=1)``).
``"unconditional"``  exp(mean ln p(response)), the sentence probability alone (1/perplexity).

An empty or whitespace-only response scores the lowest value of its formula's scale
(``EMPTY_SCORES``): 0 for the ratios and "unconditional" ([0, 1]), -inf for the
log-probability formulas, which are unbounded below. Scored as text it would be "\n" or
one space token, likely enough to beat a real reply.
"""
from __future__ import annotations

import numpy as np

from .._validation import as_text_list
from ..progress import ProgressOption, reports_progress
from ..result import MetricResult, make_signature
from .inputs import empty_responses

REFERENCE_FORMULAS = ("ratio", "dstc10")
REFERENCE_FREE_FORMULAS = ("pmi", "pmi-total", "conditional", "unconditional")
COMBINES = ("max", "maxmin", "mean")
# The score of an empty response: the lowest value each formula's scale can take.
EMPTY_SCORES = {"ratio": 0.0, "dstc10": 0.0, "unconditional": 0.0, "conditional": -np.inf, "pmi": -np.inf,
                "pmi-total": -np.inf}


def _pairwise_ratio(hyp: np.ndarray, ref: np.ndarray, formula: str) -> np.ndarray:
    if formula == "ratio":
        # An empty response without an end token has no probability: it scores 0.
        a, b = np.exp(np.nan_to_num(hyp, nan=-np.inf)), np.exp(np.nan_to_num(ref, nan=-np.inf))
    else:
        a, b = -np.nan_to_num(hyp, nan=-np.inf), -np.nan_to_num(ref, nan=-np.inf)
    low, high = np.minimum(a, b), np.maximum(a, b)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(high > 0, low / np.where(high > 0, high, 1.0), 1.0)
    return np.nan_to_num(ratio, nan=0.0)


def reference_fm(hyp_log_prob, ref_log_prob, offsets, *, formula: str = "ratio", combine: str = "max") -> np.ndarray:
    """FM per hypothesis from mean ln p of the hypotheses [n] and of their references
    (flat [R], hypothesis i owns ``ref_log_prob[offsets[i]:offsets[i+1]]``)."""
    check_formula(formula, with_references=True, combine=combine)
    hyp = np.asarray(hyp_log_prob, dtype=np.float64)
    ref = np.asarray(ref_log_prob, dtype=np.float64)
    offsets = np.asarray(offsets, dtype=np.int64)
    counts = np.diff(offsets)
    ratios = _pairwise_ratio(np.repeat(hyp, counts), ref, formula)
    starts = offsets[:-1]
    if combine == "mean":
        return np.add.reduceat(ratios, starts) / counts
    high = np.maximum.reduceat(ratios, starts)
    if combine == "max":
        return high
    return high - np.minimum.reduceat(ratios, starts)


def check_formula(formula: str, *, with_references: bool, with_contexts: bool = False,
                  combine: str = "max") -> None:
    """That ``formula`` fits the inputs: a reference formula (and ``combine``) with references,
    a context one without (and, but for "unconditional", with contexts). Checked before a
    model loads."""
    if with_references:
        if formula not in REFERENCE_FORMULAS:
            raise ValueError(f"deep_fm: with references, formula must be one of {REFERENCE_FORMULAS}, got {formula!r}")
        if combine not in COMBINES:
            raise ValueError(f"deep_fm: combine must be one of {COMBINES}, got {combine!r}")
        return
    if formula not in REFERENCE_FREE_FORMULAS:
        raise ValueError(f"deep_fm: without references, formula must be one of {REFERENCE_FREE_FORMULAS}, "
                         f"got {formula!r}")
    if not with_contexts and formula != "unconditional":
        raise ValueError(f"deep_fm: formula {formula!r} needs contexts= (or give refs=)")


def reference_free_fm(lm, hyps: list, contexts, *, formula: str = "pmi", conditional=None) -> tuple:
    """(FM per response, the log-probabilities it came from) without references.
    ``conditional``: the responses' ``lm.token_scores(hyps, contexts=contexts)`` where the
    caller has them already (scored beside the followup: ``DeepAMFM``)."""
    check_formula(formula, with_references=False, with_contexts=contexts is not None)
    if conditional is None and formula != "unconditional":
        conditional = lm.token_scores(hyps, contexts=contexts)
    unconditional = lm.token_scores(hyps) if formula != "conditional" else None
    extra = {k: v.mean() for k, v in (("conditional_log_prob", conditional), ("hyp_log_prob", unconditional))
             if v is not None}
    # Each formula reads the scores computed for it above (the asserts say so to a type checker).
    if formula == "conditional":
        assert conditional is not None
        values = np.nan_to_num(conditional.mean(), nan=-np.inf)
    elif formula == "unconditional":
        assert unconditional is not None
        values = np.exp(np.nan_to_num(unconditional.mean(), nan=-np.inf))
    else:
        assert conditional is not None and unconditional is not None
        if formula == "pmi":
            values = np.nan_to_num(conditional.mean() - unconditional.mean(), nan=0.0)
        else:
            values = conditional.sum() - unconditional.sum()
    return np.where(empty_responses(hyps), EMPTY_SCORES[formula], values), extra


def reference_based_fm(lm, hyps: list, refs, *, formula: str, combine: str) -> tuple:
    """(FM per response, mean ln p of the responses, of the references) with references."""
    ref_scores, offsets = reference_log_probs(lm, refs, len(hyps))
    hyp_scores = lm.score(hyps)
    values = reference_fm(hyp_scores, ref_scores, offsets, formula=formula, combine=combine)
    return np.where(empty_responses(hyps), EMPTY_SCORES[formula], values), hyp_scores, ref_scores


def reference_texts(refs, n: int) -> tuple:
    """(flat reference texts, offsets) from ragged lists or a ``fastamfm.References``."""
    from ..references import References

    if isinstance(refs, References):
        if len(refs) != n:
            raise ValueError(f"deep_fm: {n} hypotheses but References holds {len(refs)} segments")
        return refs.flat_texts, np.asarray(refs.segment_offsets, dtype=np.int64)
    from .._validation import flatten_references

    flat, offsets = flatten_references(refs, n)
    return flat, np.asarray(offsets, dtype=np.int64)


def reference_log_probs(lm, refs, n: int) -> tuple:
    """Mean ln p of every reference (flat) and the segment offsets. On a ``References``
    the scores are kept on it (``refs.derived``), so scoring many systems against the
    same references runs the LM over them once."""
    from ..references import References

    texts, offsets = reference_texts(refs, n)
    if isinstance(refs, References):
        scores = refs.derived(("deep_fm.reference_log_prob", lm.fingerprint), lambda: lm.score(texts))
    else:
        scores = lm.score(texts)
    return scores, offsets


def default_formula(has_refs: bool) -> str:
    return "dstc10" if has_refs else "pmi-total"


@reports_progress
def deep_fm(hyps, refs=None, contexts=None, *, lm=None, formula: str | None = None,
            combine: str = "max", progress: ProgressOption = None) -> MetricResult:
    """Deep FM per response (``.sentences["deep_fm"]``) and its mean (``.corpus["deep_fm"]``).

    ``refs`` -> reference-based (``formula`` "dstc10" by default, or "ratio"); otherwise
    ``contexts`` -> reference-free ("pmi-total" by default, "pmi", "conditional",
    "unconditional"; "unconditional" needs neither). ``lm``: a ``NeuralLM`` (default:
    the packaged SmolLM2, loaded once per process); ``progress``: per forward batch
    (``fastamfm.progress``).
    ``.extra`` holds the mean ln p per token of the hypotheses (``hyp_log_prob``), of the
    references (``ref_log_prob``) or given the contexts (``conditional_log_prob``).

    Parameters
    ----------
    hyps : sequence of str
        The n responses.
    refs : sequence of sequences of str, or References, optional
        ``refs[i]``: the references of ``hyps[i]``; given, the score is reference-based
        (``contexts`` is then not read).
    contexts : sequence, optional
        Per response the dialogue before it, for the reference-free formulas.
    lm : NeuralLM, optional
        The language model; None: the packaged SmolLM2.
    formula : str, optional
        "ratio" or "dstc10" with references, "pmi", "pmi-total", "conditional" or
        "unconditional" without (see the module docstring); None: "dstc10" / "pmi-total".
    combine : {"max", "maxmin", "mean"}, default "max"
        How the ratios with the references combine.
    progress : bool or callable, optional
        ``fastamfm.progress``'s option.

    Returns
    -------
    MetricResult
        Column ``deep_fm``: ``.sentences["deep_fm"]`` (float64 [n]) and their mean
        ``.corpus["deep_fm"]``; the log-probabilities in ``.extra``.

    Raises
    ------
    ValueError
        A formula that does not fit (references or not), an unknown ``combine``, a
        context-based formula without ``contexts``; inputs of different lengths.
    TypeError
        ``lm`` not a ``NeuralLM``; ``hyps`` not a sequence of strings.
    """
    from ..neural.neural_lm import NeuralLM, load_lm

    hyps = as_text_list(hyps, "hyps")
    formula = formula or default_formula(refs is not None)
    check_formula(formula, with_references=refs is not None, with_contexts=contexts is not None, combine=combine)
    lm = load_lm() if lm is None else lm
    if not isinstance(lm, NeuralLM):
        raise TypeError(f"deep_fm: lm must be a fastamfm.NeuralLM, got {type(lm).__name__}")
    if refs is not None:
        values, hyp_scores, ref_scores = reference_based_fm(lm, hyps, refs, formula=formula, combine=combine)
        extra = {"hyp_log_prob": hyp_scores, "ref_log_prob": ref_scores}
        settings = dict(formula=formula, combine=combine)
    else:
        values, extra = reference_free_fm(lm, hyps, contexts, formula=formula)
        settings = dict(formula=formula)
    signature = make_signature("deep_fm", lm=lm.fingerprint, **settings)
    return MetricResult("deep_fm", {"deep_fm": float(np.mean(values))}, {"deep_fm": values}, signature, extra)
