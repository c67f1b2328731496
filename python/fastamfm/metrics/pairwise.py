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
GENERIC: dict[str, str | None] = {"bleu": None, "meteor": "METEOR", "bertscore": "bertscore_f1"}


def pairwise(candidates, references=None, *, metric: str = "chrf", workers: int = -1, **options) -> np.ndarray:
    """float32 [n, m]: ``metric``'s sentence score of each candidate against each reference
    alone (``references=None``: the candidates against themselves). See the module docstring.

    Parameters
    ----------
    candidates : sequence of str
        The n candidates.
    references : sequence of str, optional
        The m references, each used alone; None: the candidates themselves (m = n, the
        diagonal included).
    metric : str, default "chrf"
        A registry name or alias with a pairwise form: sacrebleu, chrf, chrf_plus, rouge,
        deep_am, bleu, meteor or bertscore.
    workers : int, default -1
        Threads (-1: every core).
    **options
        The metric's own options (``tokenize=``, ``word_order=``, ``rouge_type=``, ``encoder=``, ...).

    Returns
    -------
    numpy.ndarray
        float32 [n, m]: ``[i, j]`` the sentence score of ``candidates[i]`` against
        ``references[j]``, on the metric's own scale.

    Raises
    ------
    ValueError
        An unknown metric or one without a pairwise form; ``candidates`` or ``references``
        empty; an option the metric rejects.
    TypeError
        A candidate or reference that is not a str.

    Examples
    --------
    >>> import fastamfm
    >>> matrix = fastamfm.pairwise(["the cat sat on the mat", "the cat sat on a mat", "a dog ran"])
    >>> matrix.dtype, matrix.shape
    (dtype('float32'), (3, 3))
    >>> matrix.astype(float).round(2).tolist()
    [[100.0, 72.08, 7.41], [65.98, 100.0, 7.75], [4.44, 4.98, 100.0]]
    >>> fastamfm.pairwise(["the cat sat", "a dog ran"], ["the cat sat on the mat"],
    ...                   metric="sacrebleu").astype(float).round(4).tolist()
    [[36.7879], [0.0]]
    """
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
    rouge_type = options.pop("rouge_type", "rougeL")
    if name == "sacrebleu":
        return _sacrebleu(candidates, references, workers, options)
    if name == "rouge":
        from .rouge_score import RougeScore

        return RougeScore(**options, workers=workers).pairwise(candidates, references, rouge_type)
    if name == "deep_am":
        return _deep_am(candidates, references, workers, options)
    from .chrf import Chrf, ChrfPlusPlus

    chrf = ChrfPlusPlus if name == "chrf_plus" else Chrf
    return chrf(**options, workers=workers).pairwise(candidates, references)


def _sacrebleu(candidates: list, references: list, workers: int, options: dict) -> np.ndarray:
    from .. import _core
    from ..tokenization import prepare_texts
    from .sacrebleu import SacreBleu

    scorer = SacreBleu(**options, workers=workers)
    tokenizer = scorer.tokenizer
    return _core.sacrebleu_pairwise(prepare_texts(candidates, tokenizer, "candidates"),
                                    prepare_texts(references, tokenizer, "references"), tokenizer,
                                    scorer.max_ngram_order, scorer.smooth_method, scorer._smooth_arg,
                                    scorer.sentence_effective_order, workers)


def _over_pairs(name: str, candidates: list, references: list, workers: int, options: dict) -> np.ndarray:
    from ..pipeline import evaluate

    n, m = len(candidates), len(references)
    hyps = [c for c in candidates for _ in range(m)]
    refs = [[r] for _ in range(n) for r in references]
    result = evaluate(hyps, refs, metrics=[name], workers=workers, **options)
    column = GENERIC[name] or f"Bleu_{options.get('max_order', 4)}"     # BLEU's: the one of its max_order
    return np.asarray(result[column], dtype=np.float32).reshape(n, m)


def _deep_am(candidates: list, references: list, workers: int, options: dict) -> np.ndarray:
    from ..deep.deep_am import LOWEST, unit_vectors
    from ..deep.inputs import empty_responses
    from ..deep.metrics import DeepAM

    metric = DeepAM(mode="references", workers=workers, **options)
    encoder = metric.encoder
    c, r = unit_vectors(encoder, candidates), unit_vectors(encoder, references)
    scores = c @ r.T
    scores[np.asarray(empty_responses(candidates), dtype=bool)] = LOWEST
    return np.ascontiguousarray(scores, dtype=np.float32)
