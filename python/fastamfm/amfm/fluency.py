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

from .. import _core
from .._validation import check_choice, check_workers
from ..registry import Chunk, MeanStatistics, Metric, register
from ..result import MetricResult, make_signature
from .lm import NgramLM
from .model_option import FromAMFMModel

NORMALIZATIONS = ("per-word", "inverse-perplexity")
COMBINES = ("mean", "max", "maxmin")
OOV_POLICIES = ("skip", "score")


@register
class Fluency(FromAMFMModel, Metric):
    """FM (see ``fluency``). From a shared option dict it takes ``model=`` (an ``AMFM``,
    a model directory or "default") and uses that scorer's LM and FM settings."""

    name = "fm"
    columns = ("FM",)
    aliases = ("fluency",)

    def __init__(self, *, lm: NgramLM, normalization: str = "per-word", combine: str = "mean", oov: str = "skip",
                 workers: int = -1):
        if not isinstance(lm, NgramLM):
            raise TypeError(f"fluency: lm must be a fastamfm.NgramLM, got {type(lm).__name__}")
        self.lm = lm
        self.normalization = check_choice(normalization, "normalization", NORMALIZATIONS, "fluency")
        self.combine = check_choice(combine, "combine", COMBINES, "fluency")
        self.oov = check_choice(oov, "oov", OOV_POLICIES, "fluency")
        self.workers = check_workers(workers, "fluency")

    @classmethod
    def of_scorer(cls, scorer, *, workers: int = -1) -> "Fluency":
        """The FM of an ``AMFM`` scorer, with its settings."""
        s = scorer.settings
        return cls(lm=scorer.lm, normalization=s.fm_normalization, combine=s.fm_combine, oov=s.fm_oov,
                   workers=workers)

    def signature(self) -> str:
        return make_signature("fm", normalization=self.normalization, combine=self.combine, oov=self.oov,
                              lm=self.lm.fingerprint, order=self.lm.order,
                              tok=self.lm.tokenizer.describe().removeprefix("tok:"))

    def _key(self, what: str) -> tuple:
        return ("fm." + what, self.lm.fingerprint, self.normalization, self.oov)

    def reference_probabilities(self, refs) -> np.ndarray:
        """Normalised probability of every reference (flattened), kept on ``refs``."""
        return refs.derived(self._key("reference_probabilities"), lambda: self.lm.core.reference_probabilities(
            refs.encoded_with(self.lm.tokenizer), self.normalization, self.oov, self.workers))

    def hypothesis_probabilities(self, hyps) -> np.ndarray:
        return hyps.derived(self._key("hypothesis_probabilities"), lambda: self.lm.core.hypothesis_probabilities(
            hyps.encoded(self.lm.tokenizer), self.normalization, self.oov, self.workers))

    def sentence_scores(self, batch) -> np.ndarray:
        """FM of every response of ``batch`` (computed once per call, shared with AM-FM)."""
        return batch.derived(self._key("scores") + (self.combine,), lambda: _core.fluency_from_probabilities(
            self.hypothesis_probabilities(batch.hyps), self.reference_probabilities(batch.refs),
            batch.refs.offsets_array, self.combine))

    def update(self, batch) -> Chunk:
        columns = {"FM": self.sentence_scores(batch)}
        return Chunk(columns, MeanStatistics.of(columns), {"hyp_prob": self.hypothesis_probabilities(batch.hyps),
                                                            "ref_prob": self.reference_probabilities(batch.refs)})

    def result_extra(self, chunk: Chunk) -> dict:
        return dict(chunk.extra)


def fluency(hyps, refs, lm: NgramLM, *, normalization: str = "per-word", combine: str = "mean",
            oov: str = "skip", workers: int = -1) -> MetricResult:
    """FM per hypothesis (``.sentences["FM"]``) and its mean (``.corpus["FM"]``).

    ``refs`` may be ragged lists or a ``fastamfm.References`` reused across calls (the
    references' probabilities are kept on it per LM and setting). ``.extra`` holds
    ``hyp_prob`` (per hypothesis) and ``ref_prob`` (per reference, flattened)
    normalised probabilities.

    Parameters
    ----------
    hyps : sequence of str or Hypotheses
        The n responses.
    refs : sequence of sequences of str, or References
        ``refs[i]``: the references of ``hyps[i]`` (any count >= 1).
    lm : NgramLM
        The language model (``NgramLM.train``/``load``, or an ``AMFM``'s ``.lm``).
    normalization : {"per-word", "inverse-perplexity"}, default "per-word"
        How a sentence's probability is normalised for length (see the module docstring).
    combine : {"mean", "max", "maxmin"}, default "mean"
        How the ratios with the references combine.
    oov : {"skip", "score"}, default "skip"
        What unknown words do.
    workers : int, default -1
        Threads (-1: every core).

    Returns
    -------
    MetricResult
        Column ``FM``: ``.sentences["FM"]`` (float64 [n] in [0, 1]) and their mean
        ``.corpus["FM"]``; ``.extra["hyp_prob"]`` and ``.extra["ref_prob"]``.

    Raises
    ------
    TypeError
        ``lm`` not an ``NgramLM``; ``hyps`` or ``refs`` not a sequence of strings.
    ValueError
        An unknown ``normalization``, ``combine`` or ``oov``; ``hyps`` empty, of another length
        than ``refs``, or a response without references.

    Examples
    --------
    A toy bigram model trained on five sentences (real ones: ``AMFM.default()`` or ``NgramLM.load``):

    >>> import fastamfm
    >>> corpus = ["the cat sat on the mat", "a cat was on the mat", "the dog ran away",
    ...           "a dog ran in the park", "the cat ran"]
    >>> lm = fastamfm.NgramLM.train(corpus, order=2)
    >>> res = fastamfm.fluency(["the cat sat on the mat", "a dog ran"],
    ...                        [["the cat sat on a mat", "a cat was on the mat"], ["the dog ran away"]], lm)
    >>> res.sentences["FM"].round(4).tolist()
    [0.751, 0.872]
    """
    return Fluency(lm=lm, normalization=normalization, combine=combine, oov=oov,
                   workers=workers).score(hyps, refs, what="fluency")
