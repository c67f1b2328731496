"""The neural metrics in the registry: ``deep_am`` and ``bertscore``.

Importing this module needs neither torch nor a model: the encoder is loaded on first
use, and ``missing()`` says what to install when it cannot be. Reference encodings are
kept on each ``References`` (``refs.derived``), keyed by the model fingerprint and every
setting they depend on, so twenty systems scored against one ``References`` encode the
references once.
"""
from __future__ import annotations

import threading

from ..models.location import ModelNotFound, model_directory
from ..neural.encoder import DEFAULT_MODEL, SentenceEncoder, load_encoder
from ..registry import Chunk, MeanStatistics, Metric, register
from ..result import MetricResult
from ..runtime import missing_reason
from . import bertscore as bertscore_module
from . import deep_am as deep_am_module
from .inputs import ReferenceTexts, context_turns

DEEP_AM_MODES = ("auto", "references", "context")


class _EncoderMetric(Metric):
    """A metric over one lazily loaded ``SentenceEncoder``: ``encoder`` is one already, or
    a model directory / installed model package to load on first use."""

    def __init__(self, encoder, load):
        self._model = encoder
        self._load = load            # () -> SentenceEncoder, called once on first use
        self._encoder = encoder if isinstance(encoder, SentenceEncoder) else None
        self._lock = threading.Lock()

    @classmethod
    def missing(cls, **options) -> str | None:
        encoder = options.get("encoder", DEFAULT_MODEL)
        if isinstance(encoder, SentenceEncoder):
            return None
        reason = missing_reason()
        if reason is not None:
            return f"{cls.name}: {reason}"
        try:
            model_directory(encoder)
        except ModelNotFound as exc:
            return f"{cls.name}: {exc}"
        return None

    @property
    def encoder(self) -> SentenceEncoder:
        with self._lock:
            if self._encoder is None:
                self._encoder = self._load()
            return self._encoder


@register
class DeepAM(_EncoderMetric):
    """Deep AM (see ``fastamfm.deep.deep_am``): with references when the batch has them
    (``mode="auto"``), else with the dialogue contexts."""

    name = "deep_am"
    columns = ("deep_am",)
    aliases = ("deep-am", "deepam")
    scores_systems_together = True
    needs_references = False

    def __init__(self, *, encoder=DEFAULT_MODEL, pooling: str = "mean", layer: int = -1, combine: str = "max",
                 context: str = deep_am_module.DEFAULT_CONTEXT, recency: float = deep_am_module.DEFAULT_RECENCY,
                 mode: str = "auto", device: str = "auto", workers: int = -1):
        deep_am_module.check_settings(combine, context, recency)
        if mode not in DEEP_AM_MODES:
            raise ValueError(f"deep_am: mode must be one of {DEEP_AM_MODES}, got {mode!r}")
        super().__init__(encoder, lambda: load_encoder(encoder, pooling=pooling, layer=layer, device=device,
                                                       workers=workers))
        self.combine, self.context, self.recency, self.mode, self.workers = combine, context, recency, mode, workers

    def _mode(self, has_refs: bool) -> str:
        return self.mode if self.mode != "auto" else ("references" if has_refs else "context")

    def signature(self) -> str:
        mode = "references" if self.mode == "auto" else self.mode
        return deep_am_module.signature(self.encoder, mode, self.combine, self.context, self.recency)

    def update(self, batch) -> Chunk:
        hyps = list(batch.hyps.texts)
        if self._mode(batch.refs is not None) == "references":
            if batch.refs is None:
                raise ValueError("deep_am: mode='references' but the batch has no references")
            refs = ReferenceTexts(batch.refs, len(hyps), self.name)
            scores = deep_am_module.reference_scores(self.encoder, hyps, refs, self.combine, self.workers)
        else:
            if batch.contexts is None:
                raise ValueError("deep_am: reference-free scoring needs the dialogue contexts (none given)")
            contexts = context_turns(batch.contexts, len(hyps), self.name)
            scores = deep_am_module.context_scores(self.encoder, hyps, contexts, self.context, self.recency,
                                                   self.workers)
        columns = {"deep_am": scores}
        return Chunk(columns=columns, statistics=MeanStatistics.of(columns))


@register
class BERTScore(_EncoderMetric):
    """BERTScore precision/recall/F1 (see ``fastamfm.deep.bertscore``); corpus: the means."""

    name = "bertscore"
    columns = ("bertscore_precision", "bertscore_recall", "bertscore_f1")
    renamed_columns = {"precision": "bertscore_precision", "recall": "bertscore_recall", "f1": "bertscore_f1"}
    aliases = ("bert_score", "bert-score")

    def __init__(self, *, encoder=DEFAULT_MODEL, layer: int | None = None, idf: bool = False, baseline=None,
                 peer_batch: int | None = 64, device: str = "auto", workers: int = -1, batch_size: int = 64):
        if not isinstance(idf, bool):
            raise TypeError(f"bertscore: idf must be True or False, got {type(idf).__name__}")
        bertscore_module.check_peer_batch(peer_batch)
        super().__init__(encoder, lambda: bertscore_module.load_bertscore_encoder(encoder, device, workers))
        self._layer, self.idf, self.baseline, self.batch_size = layer, idf, baseline, batch_size
        self.peer_batch = peer_batch

    @property
    def layer(self) -> int:
        return bertscore_module.resolve_layer(self.encoder, self._layer)

    def signature(self) -> str:
        return bertscore_module.signature(self.encoder, self.layer, self.idf, self.baseline, self.peer_batch)

    def update(self, batch) -> Chunk:
        hyps = list(batch.hyps.texts)
        refs = ReferenceTexts(batch.refs, len(hyps), self.name)
        baseline = None if self.baseline is None else bertscore_module.read_baseline(self.baseline, self.layer)
        scores = bertscore_module.bertscore_columns(self.encoder, hyps, refs, self.layer, self.idf, baseline,
                                                    self.batch_size, self.peer_batch)
        columns = {f"bertscore_{c}": v for c, v in scores.items()}
        return Chunk(columns=columns, statistics=MeanStatistics.of(columns))

