"""FM, the fluency half of AM-FM: ``fastamfm.fluency(hyps, refs, lm, ...)``.

Each sentence's language-model probability is normalised for length, then
FM(hyp, ref) = min(p_hyp, p_ref) / max(p_hyp, p_ref), combined over the references.

``normalization``
  ``"per-word"`` (default, the AM-FM toolkit): p = exp((1/N) * sum ln p_i), where the
  sum runs over the N+1 predictions of the N words and ``</s>`` (``<s>`` is the first
  context; the same total as ``kenlm.Model.score``) and N counts the words only;
  an empty sentence divides by 1.
  ``"inverse-perplexity"`` (Deep AM-FM): p = exp((1/(N+1)) * sum ln p_i) = 1/perplexity.
``oov`` (unknown words)
  ``"skip"`` (default, the AM-FM toolkit): their predictions leave the sum and N, as
  SRILM's ``ngram -ppl`` (the toolkit's LM tool) excludes OOVs; the words after them
  are scored from the state the model reaches, as kenlm does.
  ``"score"``: they count with the model's ``<unk>`` probability, exactly the total of
  ``kenlm.Model.score`` (log10 -100 for a closed-vocabulary model without ``<unk>``).
``combine``
  ``"mean"`` over references (default; the AM-FM paper's argument), ``"max"``, or
  ``"maxmin"``: max - min of the per-reference ratios (the Deep AM-FM toolkit;
  0 for a single reference).
"""
from __future__ import annotations

import numpy as np

from ._validation import as_text_list
from .lm import NgramLM
from .references import as_references
from .result import MetricResult, make_signature
from .tokenize import prepare_texts

NORMALIZATIONS = ("per-word", "inverse-perplexity")
COMBINES = ("mean", "max", "maxmin")
OOV_POLICIES = ("skip", "score")


def fluency(hyps, refs, lm: NgramLM, *, normalization: str = "per-word", combine: str = "mean",
            oov: str = "skip", workers: int = -1) -> MetricResult:
    """FM per hypothesis (``.sentences``) and its mean (``.corpus``).

    ``refs`` may be ragged lists or a ``fastamfm.References`` encoded with the LM's
    tokenizer (its token ids are reused). ``.extra`` holds ``hyp_prob`` (per
    hypothesis) and ``ref_prob`` (per reference, flattened) normalised probabilities.
    """
    if not isinstance(lm, NgramLM):
        raise TypeError(f"fluency: lm must be a fastamfm.NgramLM, got {type(lm).__name__}")
    if normalization not in NORMALIZATIONS:
        raise ValueError(f"fluency: normalization must be one of {NORMALIZATIONS}, got {normalization!r}")
    if combine not in COMBINES:
        raise ValueError(f"fluency: combine must be one of {COMBINES}, got {combine!r}")
    if oov not in OOV_POLICIES:
        raise ValueError(f"fluency: oov must be one of {OOV_POLICIES}, got {oov!r}")
    hyps = as_text_list(hyps, "hyps")
    tokenizer = lm.tokenizer
    references = as_references(refs, len(hyps), tokenize=tokenizer.preset,
                               lowercase=tokenizer.lowercase and tokenizer.preset == "whitespace",
                               max_order=1, workers=workers, what="fluency")
    fm, hyp_prob, ref_prob = lm.core.fluency(prepare_texts(hyps, tokenizer, "hyps"), references.encoded,
                                             normalization, combine, oov, workers)
    signature = make_signature("fm", normalization=normalization, combine=combine, oov=oov, lm=lm.fingerprint,
                               order=lm.order, tok=tokenizer.describe().removeprefix("tok:"))
    return MetricResult("FM", float(np.mean(fm)), fm, signature, {"hyp_prob": hyp_prob, "ref_prob": ref_prob})
