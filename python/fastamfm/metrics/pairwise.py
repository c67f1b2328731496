"""Pairwise score matrices: every candidate against every reference alone, as a float32
[n, m] matrix -- the utility matrix of MBR decoding and the raw material of Self-BLEU-like
diversity scores.

``pairwise(candidates, references, metric=...)[i, j]`` equals the metric's sentence score
of ``candidates[i]`` with the single reference ``references[j]`` (``references=None``:
the candidates against each other, the diagonal included), on the metric's own scale:

- ``sacrebleu`` (0..100; sentence BLEU with effective order, sacrebleu's ``sentence_bleu``),
  ``chrf`` / ``chrf_plus`` (0..100), ``rouge`` (F1 of ``rouge_type``, default rougeL):
  C++ kernels that count each text once and compare every pair on all cores;
- ``bleu`` (pycocoevalcap's per-segment BLEU-``max_order``), ``meteor``, ``bertscore``
  (F1): the metric itself over the n x m pairs;
- ``deep_am``: the cosine of the two sentence vectors, each text encoded once.
Options are the metric's own (``tokenize=``, ``word_order=``, ``use_stemmer=``, ``encoder=``...).
"""
from __future__ import annotations

import numpy as np

from .._validation import as_text_list, check_workers

# Metrics whose pairs run in their own kernel (each text prepared once).
KERNELS = ("sacrebleu", "chrf", "chrf_plus", "rouge", "deep_am")
# Metrics scored over every pair by the metric itself, and the column taken.
GENERIC = {"bleu": None, "meteor": "METEOR", "bertscore": "bertscore_f1"}


def pairwise(candidates, references=None, *, metric: str = "chrf", workers: int = -1, **options) -> np.ndarray:
    """float32 [n, m]: ``metric``'s sentence score of each candidate against each reference
    alone (``references=None``: the candidates against themselves). See the module docstring."""
    from .. import registry

    check_workers(workers, "pairwise")
    candidates = as_text_list(candidates, "candidates")
    references = candidates if references is None else as_text_list(references, "references")
    name = registry.metric_class(metric).name
    if name not in KERNELS and name not in GENERIC:
        raise ValueError(f"pairwise: metric {metric!r} has no pairwise form; choose from "
                         f"{', '.join(KERNELS + tuple(GENERIC))}")
    for what, texts in (("candidates", candidates), ("references", references)):
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"pairwise: {what}[{i}] is {type(text).__name__}, expected str")
    if name in GENERIC:
        return _over_pairs(name, candidates, references, workers, options)
    cls = registry.metric_class(name)
    rouge_type = options.pop("rouge_type", "rougeL")
    scorer = cls(**options, workers=workers) if name != "deep_am" else None
    if name == "sacrebleu":
        from .. import _core

        return _core.sacrebleu_pairwise(*[_prepared(t, scorer.tokenizer, w) for t, w in
                                          ((candidates, "candidates"), (references, "references"))],
                                        scorer.tokenizer, scorer.max_ngram_order, scorer.smooth_method,
                                        scorer._smooth_arg, scorer.sentence_effective_order, workers)
    if name == "rouge":
        return scorer.pairwise(candidates, references, rouge_type)
    if name == "deep_am":
        return _deep_am(candidates, references, workers, options)
    return scorer.pairwise(candidates, references)


def _prepared(texts, tokenizer, what):
    from ..tokenization import prepare_texts

    return prepare_texts(texts, tokenizer, what)


def _over_pairs(name: str, candidates: list, references: list, workers: int, options: dict) -> np.ndarray:
    from ..pipeline import evaluate

    n, m = len(candidates), len(references)
    hyps = [c for c in candidates for _ in range(m)]
    refs = [[r] for _ in range(n) for r in references]
    result = evaluate(hyps, refs, metrics=[name], workers=workers, **options)
    if name == "bleu":
        column = f"Bleu_{options.get('max_order', 4)}"
    else:
        column = GENERIC[name]
    return np.asarray(result[column], dtype=np.float32).reshape(n, m)


def _deep_am(candidates: list, references: list, workers: int, options: dict) -> np.ndarray:
    from ..deep.deep_am import LOWEST, unit_vectors
    from ..deep.inputs import empty_responses
    from ..registry import metric_class

    metric = metric_class("deep_am")(mode="references", workers=workers, **options)
    encoder = metric.encoder
    c, r = unit_vectors(encoder, candidates), unit_vectors(encoder, references)
    scores = c @ r.T
    scores[np.asarray(empty_responses(candidates), dtype=bool)] = LOWEST
    return np.ascontiguousarray(scores, dtype=np.float32)
