"""ROUGE-L as pycocoevalcap 1.2 / nlg-eval compute it (or rouge-score's multi-reference rule)."""
from __future__ import annotations

import math
import weakref

import numpy as np

from .. import _core
from ..references import References
from ..result import MetricResult, make_signature
from ..tokenize import prepare_texts
from ._inputs import prepare, raw_texts

MULTI_REF = ("max-pr", "max-f")

# References split as pycocoevalcap splits them, kept while the References object lives.
_SPACE_SPLIT_REFS: "weakref.WeakKeyDictionary[References, _core.TokenSequences]" = weakref.WeakKeyDictionary()


def _space_split_references(refs: References, workers: int) -> _core.TokenSequences:
    if refs not in _SPACE_SPLIT_REFS:
        texts = prepare_texts(refs.flat_texts, refs.tokenizer, "references")
        _SPACE_SPLIT_REFS[refs] = _core.split_on_spaces(texts, refs.tokenizer.lowercase, workers)
    return _SPACE_SPLIT_REFS[refs]


def rouge_l(hyps, refs, *, beta: float = 1.2, multi_ref: str = "max-pr", tokenize: str = "whitespace",
            lowercase: bool = False, workers: int = -1) -> MetricResult:
    """ROUGE-L F-measure per hypothesis and its mean over the corpus.

    Default: pycocoevalcap's ``Rouge`` (nlg-eval's ROUGE_L): LCS against each reference,
    precision and recall each maximised over references ("max-pr"), then
    ``F = (1 + beta^2) P R / (R + beta^2 P)`` with beta = 1.2. With the whitespace
    preset the text is seen exactly as nlg-eval hands it to pycocoevalcap: stripped,
    then split on single spaces, so a double space leaves an empty token (it lengthens
    the text) and an empty text is one empty token.

    ``multi_ref="max-f"``: rouge-score's ``score_multi`` (the F of the best reference,
    whitespace-separated tokens, an empty side scores 0). With ``beta=1`` and text that
    rouge-score's tokenizer leaves unchanged (lowercase letters and digits), it equals
    rouge-score's rougeL. The ``amfm`` preset uses its own tokens in either mode.
    """
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not (math.isfinite(beta) and beta > 0):
        raise ValueError(f"rouge_l: beta must be a positive number, got {beta!r}")
    if multi_ref not in MULTI_REF:
        raise ValueError(f"rouge_l: multi_ref must be one of {MULTI_REF}, got {multi_ref!r}")
    text = raw_texts(hyps, refs, what="rouge_l", tokenize=tokenize, lowercase=lowercase, workers=workers)
    if text is not None:
        tokenizer = text.tokenizer
        split_like_pycoco = multi_ref == "max-pr" and tokenizer.preset == "whitespace"
        sentences = _core.rouge_l_text(text.hyps, text.flat_refs, text.offsets, tokenizer, split_like_pycoco,
                                       float(beta), multi_ref, workers)
    else:
        hyps, refs = prepare(hyps, refs, what="rouge_l", tokenize=tokenize, lowercase=lowercase,
                             max_order=1, workers=workers)
        tokenizer = refs.tokenizer
        split_like_pycoco = multi_ref == "max-pr" and tokenizer.preset == "whitespace"
        if split_like_pycoco:
            sentences = _core.rouge_l_split_on_spaces(hyps.encoded, _space_split_references(refs, workers),
                                                      refs.segment_offsets, float(beta), multi_ref, workers)
        else:
            sentences = _core.rouge_l(hyps.encoded, refs.encoded, float(beta), multi_ref, workers)
    signature = make_signature("rouge_l", beta=beta, multi_ref=multi_ref, tok=tokenizer.describe(),
                               split="pycoco" if split_like_pycoco else "tokenizer")
    # np.mean, as pycocoevalcap, so the corpus value matches to the last bit.
    return MetricResult(name="rouge_l", corpus=float(np.mean(sentences)), sentences=sentences,
                        signature=signature)
