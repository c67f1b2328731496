"""``fastamfm.adequacy``: AM, the adequacy half of AM-FM, for a batch of responses.

Every sentence is tokenized with the model's tokenizer, weighted as in training,
projected onto the first ``dims`` LSI dimensions and normalised; a response's AM
is ``max(0, cos(hyp, ref))`` combined over its references:

``max``       the largest, as the AM-FM paper does (default)
``mean``      the average
``centroid``  the cosine with the sum of the references' unit vectors

A sentence with no vocabulary word has no direction: its cosines are 0, so a
response without known words scores AM = 0 (and a reference without known words
never raises a score). All of it runs in C++ on ``workers`` threads. The reference
projections are kept on the ``References`` (per model and ``dims``), so scoring many
systems against one ``References`` projects the references once.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .. import _core
from .._validation import check_choice, check_workers
from ..registry import Chunk, MeanStatistics, Metric, register
from ..result import MetricResult, make_signature
from ..runtime import cuda_module, is_cuda, resolve_device
from .lsi import LsiModel
from .model_option import FromAMFMModel

__all__ = ["Adequacy", "adequacy", "COMBINE_MODES"]

COMBINE_MODES = ("max", "mean", "centroid")


@register
class Adequacy(FromAMFMModel, Metric):
    """AM (see ``adequacy``). From a shared option dict it takes ``model=`` (an ``AMFM``,
    a model directory or "default") and uses that scorer's LSI model and AM settings."""

    name = "am"
    columns = ("AM",)
    aliases = ("adequacy",)

    def __init__(self, *, lsi: LsiModel, dims: Optional[int] = None, combine: str = "max", device: str = "cpu",
                 workers: int = -1):
        if not isinstance(lsi, LsiModel):
            raise TypeError(f"adequacy: model must be a fastamfm.LsiModel, got {type(lsi).__name__}")
        self.combine = check_choice(combine, "combine", COMBINE_MODES, "adequacy")
        self.lsi = lsi
        self.dims = lsi.check_dims(dims, "adequacy")
        self.workers = check_workers(workers, "adequacy")
        self.device = resolve_device(device)
        if is_cuda(self.device) and combine == "centroid":
            raise ValueError("adequacy: combine='centroid' has no CUDA kernel; use device='cpu' or "
                             "combine='max'/'mean'")

    extra_options = ("device",)

    @classmethod
    def of_scorer(cls, scorer, *, device: str = "cpu", workers: int = -1) -> "Adequacy":
        """The AM of an ``AMFM`` scorer, with its settings."""
        return cls(lsi=scorer.lsi, dims=scorer.dims, combine=scorer.settings.am_combine, device=device,
                   workers=workers)

    def signature(self) -> str:
        return make_signature("am", combine=self.combine, dims=self.dims, model=self.lsi.fingerprint,
                              tok=self.lsi.tokenizer.describe(), weighting=self.lsi.weighting)

    def reference_vectors(self, refs) -> np.ndarray:
        """Unit vectors of every reference (float32, segment after segment), kept on ``refs``."""
        return refs.derived(("am.reference_vectors", self.lsi.fingerprint, self.dims), lambda: (
            self.lsi._core.reference_unit_vectors(refs.encoded_with(self.lsi.tokenizer), self.dims, self.workers)))

    def hypothesis_vectors(self, hyps) -> np.ndarray:
        return hyps.derived(("am.hypothesis_vectors", self.lsi.fingerprint, self.dims), lambda: (
            self.lsi._core.encoded_unit_vectors(hyps.encoded(self.lsi.tokenizer), self.dims, self.workers)))

    def sentence_scores(self, batch) -> np.ndarray:
        """AM of every response of ``batch`` (computed once per call, shared with AM-FM)."""
        def compute():
            hyp_vectors = self.hypothesis_vectors(batch.hyps)
            ref_vectors = self.reference_vectors(batch.refs)
            if is_cuda(self.device):
                from .. import gpu

                cuda_module(self.device)      # its GPU current in this thread: the kernels run there

                return np.asarray(gpu.cosine_over_references(hyp_vectors, ref_vectors, batch.refs.offsets_array,
                                                             combine=self.combine, clip=True), dtype=np.float64)
            return _core.adequacy_scores(hyp_vectors, ref_vectors, batch.refs.offsets_array, self.combine,
                                         self.workers)

        return batch.derived(("am.scores", self.lsi.fingerprint, self.dims, self.combine, self.device), compute)

    def update(self, batch) -> Chunk:
        columns = {"AM": self.sentence_scores(batch)}
        return Chunk(columns, MeanStatistics.of(columns))



def adequacy(hyps, refs, model: LsiModel, *, dims: Optional[int] = None, combine: str = "max",
             workers: int = -1, device: str = "cpu") -> MetricResult:
    """AM of each response: ``.sentences["AM"]`` (n scores in [0, 1]) and ``.corpus["AM"]`` (their mean).

    ``refs``: one list of references per response, or a ``fastamfm.References`` reused
    across calls (its projections are kept on it per model and ``dims``).
    ``dims``: how many of the model's dimensions to use (default: all).
    ``device``: "cpu", "cuda" (cosines over the references on the GPU; projection stays
    in the C++ core) or "auto". "centroid" has no CUDA kernel.

    Parameters
    ----------
    hyps : sequence of str or Hypotheses
        The n responses.
    refs : sequence of sequences of str, or References
        ``refs[i]``: the references of ``hyps[i]`` (any count >= 1).
    model : LsiModel
        The LSI model (``LsiModel.train``/``load``, or an ``AMFM``'s ``.lsi``).
    dims : int, optional
        The first ``dims`` dimensions (1..the model's); None: all.
    combine : {"max", "mean", "centroid"}, default "max"
        How the cosines with the references combine (see the module docstring).
    workers : int, default -1
        Threads (-1: every core).
    device : str, default "cpu"
        "cpu", "cuda", "cuda:N" or "auto" (``fastamfm.resolve_device``).

    Returns
    -------
    MetricResult
        Column ``AM``: ``.sentences["AM"]`` (float64 [n] in [0, 1]) and their mean ``.corpus["AM"]``.

    Raises
    ------
    TypeError
        ``model`` not an ``LsiModel``; ``hyps`` or ``refs`` not a sequence of strings.
    ValueError
        ``dims`` out of range, an unknown ``combine``, "centroid" on CUDA; ``hyps`` empty, of
        another length than ``refs``, or a response without references.
    RuntimeError
        A CUDA ``device`` asked for where CUDA is unavailable.

    Examples
    --------
    A toy model trained on five sentences (real ones come from ``AMFM.default()`` or ``LsiModel.load``):

    >>> import fastamfm
    >>> corpus = ["the cat sat on the mat", "a cat was on the mat", "the dog ran away",
    ...           "a dog ran in the park", "the cat ran"]
    >>> lsi = fastamfm.LsiModel.train(corpus, dims=2, progress=False)
    >>> res = fastamfm.adequacy(["the cat sat on the mat", "a dog ran"],
    ...                         [["the cat sat on a mat", "a cat was on the mat"], ["the dog ran away"]], lsi)
    >>> res.sentences["AM"].round(4).tolist()
    [0.9993, 0.9682]
    """
    return Adequacy(lsi=model, dims=dims, combine=combine, device=device, workers=workers).score(hyps, refs, what="adequacy")
