"""AM-FM: adequacy (LSI cosine) and fluency (n-gram LM ratio) combined into one score.

``AMFM`` holds one ``LsiModel`` and one ``NgramLM`` (both read-only once built) and the
settings that turn them into a number. Scoring is batched in the C++ core — the
references are encoded once and shared by AM and FM — so ``score`` and ``reward``
have no Python loop per response and may be called from many threads at once.

Combination of the per-response AM and FM (D'Haro et al. 2019), ``lam`` = λ:

- ``arithmetic``  λ·AM + (1−λ)·FM   (the paper's; toolkit default λ = 0.5)
- ``geometric``   AM^λ · FM^(1−λ)
- ``harmonic``    1 / (λ/AM + (1−λ)/FM), 0 when a weighted part is 0

A system (corpus) score is the mean of its sentence scores, for AM, FM and AM-FM.
"""
from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from .. import registry
from .._validation import as_text_list
from .._version import __version__
from ..references import References
from ..result import MetricResult, make_signature

MEANS = ("arithmetic", "geometric", "harmonic")
AM_COMBINES = ("max", "mean", "centroid")
FM_COMBINES = ("mean", "max", "maxmin")
FM_NORMALIZATIONS = ("per-word", "inverse-perplexity")
FM_OOV_POLICIES = ("skip", "score")
# An AM-FM model is a model directory of kind "amfm" (fastamfm.models.directory): amfm.json
# holds the settings and the SHA-256 of lsi.model and lm.model.
MODEL_KIND = "amfm"
MODEL_FORMAT = "fastamfm-amfm"
MODEL_FORMAT_VERSION = 1
SETTINGS_FILE = "amfm.json"
LSI_FILE = "lsi.model"
LM_FILE = "lm.model"
DEFAULT_MODEL_DIR = Path(__file__).resolve().parents[1] / "data" / "default_model"


def combine_scores(am, fm, lam: float = 0.5, mean: str = "arithmetic") -> np.ndarray:
    """Per-response AM-FM from AM and FM arrays (values in [0, 1]).

    Parameters
    ----------
    am, fm : array_like
        AM and FM scores of the same shape.
    lam : float, default 0.5
        The weight of AM (0..1); FM gets ``1 - lam``.
    mean : {"arithmetic", "geometric", "harmonic"}, default "arithmetic"
        ``lam * am + (1 - lam) * fm``, ``am ** lam * fm ** (1 - lam)`` or the weighted
        harmonic mean (0 where a part with weight > 0 is 0).

    Returns
    -------
    numpy.ndarray
        float64, the shape of ``am``.

    Raises
    ------
    ValueError
        ``lam`` outside [0, 1], an unknown ``mean``, or ``am`` and ``fm`` of different shapes.

    Examples
    --------
    >>> import fastamfm
    >>> fastamfm.combine_scores([0.5, 1.0], [1.0, 0.0]).tolist()
    [0.75, 0.5]
    >>> fastamfm.combine_scores([0.5, 1.0], [1.0, 0.0], mean="harmonic").round(6).tolist()
    [0.666667, 0.0]
    """
    _check_lam(lam)
    if mean not in MEANS:
        raise ValueError(f"mean must be one of {MEANS}, got {mean!r}")
    am = np.asarray(am, dtype=np.float64)
    fm = np.asarray(fm, dtype=np.float64)
    if am.shape != fm.shape:
        raise ValueError(f"AM has shape {am.shape} but FM has shape {fm.shape}")
    if mean == "arithmetic":
        return lam * am + (1.0 - lam) * fm
    if mean == "geometric":
        return np.power(am, lam) * np.power(fm, 1.0 - lam)
    with np.errstate(divide="ignore"):
        # A part with weight 0 contributes nothing, even when its score is 0.
        inverse = (lam / am if lam > 0 else 0.0) + ((1.0 - lam) / fm if lam < 1 else 0.0)
        return np.where(np.isinf(inverse), 0.0, 1.0 / inverse)


def _check_lam(lam) -> None:
    if isinstance(lam, bool) or not isinstance(lam, (int, float, np.floating, np.integer)) or not 0 <= lam <= 1:
        raise ValueError(f"lam must be a number in [0, 1], got {lam!r}")


@dataclass(frozen=True)
class AMFMSettings:
    """Everything besides the two models that changes an AM-FM number."""

    lam: float = 0.5
    mean: str = "arithmetic"
    dims: int | None = None          # LSI dimensions used (None: all the model has)
    am_combine: str = "max"          # over references: the paper's maximum
    fm_combine: str = "mean"         # over references: the paper's average
    fm_normalization: str = "per-word"  # the toolkit's; "inverse-perplexity" for Deep AM-FM
    fm_oov: str = "skip"             # unknown words leave FM's sums, as SRILM -ppl (the toolkit's); or "score"

    def check(self, lsi_dims: int) -> None:
        _check_lam(self.lam)
        if self.mean not in MEANS:
            raise ValueError(f"mean must be one of {MEANS}, got {self.mean!r}")
        if self.am_combine not in AM_COMBINES:
            raise ValueError(f"am_combine must be one of {AM_COMBINES}, got {self.am_combine!r}")
        if self.fm_combine not in FM_COMBINES:
            raise ValueError(f"fm_combine must be one of {FM_COMBINES}, got {self.fm_combine!r}")
        if self.fm_normalization not in FM_NORMALIZATIONS:
            raise ValueError(f"fm_normalization must be one of {FM_NORMALIZATIONS}, got {self.fm_normalization!r}")
        if self.fm_oov not in FM_OOV_POLICIES:
            raise ValueError(f"fm_oov must be one of {FM_OOV_POLICIES}, got {self.fm_oov!r}")
        if self.dims is not None:
            if isinstance(self.dims, bool) or not isinstance(self.dims, (int, np.integer)) or self.dims < 1:
                raise ValueError(f"dims must be a positive integer or None, got {self.dims!r}")
            if self.dims > lsi_dims:
                raise ValueError(f"dims={self.dims} but the LSI model has only {lsi_dims} dimensions")


# The settings AMFM(lsi, lm, ...) takes besides its models (what AMFM.train passes on).
SCORER_SETTINGS = ("lam", "mean", "dims", "combine", "am_combine", "fm_combine", "fm_normalization", "fm_oov",
                   "tokenize")


class AMFM:
    """The AM-FM scorer: ``AMFM(lsi, lm, lam=0.5)``, ``AMFM.train(corpus)``, ``AMFM.default()``.

    ``combine`` sets the reference combination of both AM and FM at once
    (``"max"`` or ``"mean"``); ``am_combine`` / ``fm_combine`` set them one by one
    (AM: max | mean | centroid, FM: mean | max | maxmin). Text is tokenized as the
    LSI model was trained (``lsi.tokenizer``); ``tokenize``, when given, must name it.

    Parameters
    ----------
    lsi : LsiModel
        The model of AM.
    lm : NgramLM
        The model of FM, tokenizing as ``lsi`` does.
    lam : float, default 0.5
        The weight of AM in AM-FM, in [0, 1].
    mean : {"arithmetic", "geometric", "harmonic"}, default "arithmetic"
        How AM and FM combine (see ``combine_scores``).
    dims : int, optional
        Score with the first ``dims`` LSI dimensions; None: all.
    combine : {"max", "mean"}, optional
        The reference combination of both AM and FM.
    am_combine : {"max", "mean", "centroid"}, optional
        AM's alone (default "max").
    fm_combine : {"mean", "max", "maxmin"}, optional
        FM's alone (default "mean").
    fm_normalization : {"per-word", "inverse-perplexity"}, default "per-word"
        FM's length normalisation (see ``fluency``).
    fm_oov : {"skip", "score"}, default "skip"
        What FM does with unknown words.
    tokenize : str, optional
        Must be the LSI model's preset when given.
    workers : int, default -1
        Threads (-1: every core).

    Raises
    ------
    TypeError
        ``lsi`` not an ``LsiModel``, ``lm`` not an ``NgramLM``.
    ValueError
        A setting out of range or unknown, ``combine`` with ``am_combine``/``fm_combine``,
        ``tokenize`` other than the model's, models that tokenize differently.

    Examples
    --------
    A toy scorer trained on five sentences (``AMFM.default()`` is the packaged one):

    >>> import fastamfm
    >>> corpus = ["the cat sat on the mat", "a cat was on the mat", "the dog ran away",
    ...           "a dog ran in the park", "the cat ran"]
    >>> scorer = fastamfm.AMFM.train(corpus, dims=2, order=2)
    >>> scorer
    AMFM(lam=0.5, mean='arithmetic', dims=2, am_combine='max', fm_combine='mean', vocabulary=12, lm_order=2)
    >>> res = scorer.score(["the cat sat on the mat", "a dog ran"],
    ...                    [["the cat sat on a mat", "a cat was on the mat"], ["the dog ran away"]])
    >>> res.columns, res.amfm.round(4).tolist()
    (('AM', 'FM', 'AM-FM'), [0.8751, 0.9201])
    """

    def __init__(self, lsi, lm, *, lam: float = 0.5, mean: str = "arithmetic", dims: int | None = None,
                 combine: str | None = None, am_combine: str | None = None, fm_combine: str | None = None,
                 fm_normalization: str = "per-word", fm_oov: str = "skip", tokenize: str | None = None,
                 workers: int = -1):
        from .lm import NgramLM
        from .lsi import LsiModel

        if not isinstance(lsi, LsiModel):
            raise TypeError(f"lsi must be a fastamfm.LsiModel, got {type(lsi).__name__}")
        if not isinstance(lm, NgramLM):
            raise TypeError(f"lm must be a fastamfm.NgramLM, got {type(lm).__name__}")
        if combine is not None:
            if am_combine is not None or fm_combine is not None:
                raise ValueError("give either combine= (both AM and FM) or am_combine=/fm_combine=, not both")
            if combine not in ("max", "mean"):
                raise ValueError(f"combine must be 'max' or 'mean' (for others use am_combine=/fm_combine=), "
                                 f"got {combine!r}")
            am_combine = fm_combine = combine
        if tokenize is not None and tokenize != lsi.tokenizer.preset:
            raise ValueError(f"tokenize={tokenize!r} but the LSI model was trained with {lsi.tokenizer.describe()}")
        if lsi.tokenizer.describe() != lm.tokenizer.describe():
            # One References object serves both models, so they must tokenize alike.
            raise ValueError(f"the LSI model tokenizes with {lsi.tokenizer.describe()} but the LM with "
                             f"{lm.tokenizer.describe()}; train (or load) both with the same tokenize=")
        settings = AMFMSettings(lam=lam, mean=mean, dims=dims, am_combine=am_combine or "max",
                                fm_combine=fm_combine or "mean", fm_normalization=fm_normalization, fm_oov=fm_oov)
        settings.check(lsi.dims)
        settings = replace(settings, lam=float(lam), dims=None if dims is None else int(dims))
        self._lsi = lsi
        self._lm = lm
        self._settings = settings
        self._workers = workers

    # --- construction ---------------------------------------------------------
    @classmethod
    def train(cls, corpus, *, dims: int = 100, weighting: str = "counts", min_count: int = 1,
              max_vocab: int | None = None, order: int = 3, smoothing: str = "kneser-ney", prune: float | None = None,
              tokenize: str = "amfm", lowercase: bool = False, seed: int = 0, workers: int = -1,
              lsi_options: Mapping | None = None, lm_options: Mapping | None = None, **settings) -> "AMFM":
        """Train both models on ``corpus`` (a text file path, one sentence per line, or an
        iterable of str) and return the scorer. ``dims``: LSI dimensions trained (scoring
        uses all; ``with_settings(dims=k)`` scores with fewer). ``tokenize``: "amfm" (the
        toolkit's normalisation, default) or "whitespace". ``settings`` are AMFM's own
        (lam, mean, combine, am_combine, fm_combine, fm_normalization, fm_oov).

        Parameters
        ----------
        corpus : str, path or iterable of str
            The training sentences, or a text file with one a line.
        dims : int, default 100
            LSI dimensions (at most min(terms, sentences)).
        weighting : {"counts", "tfidf", "log-entropy"}, default "counts"
            The LSI term weighting (see ``LsiModel.train``).
        min_count : int, default 1
            Drop words rarer than this (LSI).
        max_vocab : int, optional
            Keep only this many of the most frequent words (LSI).
        order : int, default 3
            The n-gram LM's order.
        smoothing : str, default "kneser-ney"
            The LM's smoothing (see ``NgramLM.train``).
        prune : float, optional
            The LM's pruning threshold.
        tokenize : {"amfm", "whitespace"}, default "amfm"
            The tokenizer of both models.
        lowercase : bool, default False
            Lowercase first.
        seed : int, default 0
            The LSI's random seed.
        workers : int, default -1
            Threads (-1: every core).
        lsi_options, lm_options : mapping, optional
            Further options of ``LsiModel.train`` / ``NgramLM.train``.
        **settings
            The scorer's settings (``lam``, ``mean``, ``combine``, ...).

        Returns
        -------
        AMFM
            The scorer of the two trained models.

        Raises
        ------
        TypeError
            ``corpus`` given as bytes; an unknown setting (found only once both models are trained).
        ValueError
            What ``LsiModel.train``, ``NgramLM.train`` or the scorer's settings reject.
        """
        from .lm import NgramLM
        from .lsi import LsiModel

        # A misspelled setting is refused now, not after minutes of training.
        unknown = sorted(set(settings) - set(SCORER_SETTINGS))
        if unknown:
            raise TypeError(f"AMFM.train: unknown setting(s) {unknown}; the scorer takes {list(SCORER_SETTINGS)}")
        if not isinstance(corpus, (str, os.PathLike)):
            if isinstance(corpus, bytes):
                raise TypeError("corpus must be a path or an iterable of str, not bytes")
            corpus = as_text_list(corpus, "corpus")  # read once, used by both trainers
        lsi = LsiModel.train(corpus, dims=dims, weighting=weighting, min_count=min_count, max_vocab=max_vocab,
                             seed=seed, workers=workers, tokenize=tokenize, lowercase=lowercase,
                             **dict(lsi_options or {}))
        lm = NgramLM.train(corpus, order=order, smoothing=smoothing, prune=prune, workers=workers,
                           tokenize=tokenize, lowercase=lowercase, **dict(lm_options or {}))
        return cls(lsi, lm, workers=workers, **settings)

    @classmethod
    def load(cls, path, *, workers: int = -1, mmap: bool = True, **overrides) -> "AMFM":
        """Load a directory written by ``save``; ``overrides`` replace saved settings.
        ``mmap=False`` copies both models into memory (a file changed or truncated
        later cannot affect the scorer); by default they are memory-mapped."""
        from ..io.readers import read_json_file
        from ..models.directory import verify_directory
        from .lm import NgramLM
        from .lsi import LsiModel

        path = Path(path)
        manifest_path = path / SETTINGS_FILE
        if not path.is_dir():
            raise FileNotFoundError(f"{path}: no such AM-FM model directory")
        if not manifest_path.exists():
            raise FileNotFoundError(f"{path}: not an AM-FM model directory (no {SETTINGS_FILE})")
        manifest = read_json_file(manifest_path, "settings file")
        if not isinstance(manifest, dict) or manifest.get("format") != MODEL_FORMAT:
            raise _format_error(f"{manifest_path}: not a {MODEL_FORMAT} settings file")
        version = manifest.get("format_version")
        if version != MODEL_FORMAT_VERSION:
            raise _format_error(f"{manifest_path}: model format version {version!r}; this fastamfm "
                                f"({__version__}) reads version {MODEL_FORMAT_VERSION}")
        digests, saved = manifest.get("sha256"), manifest.get("settings", {})
        if not isinstance(digests, dict) or not isinstance(saved, dict):
            raise _format_error(f"{manifest_path}: 'sha256' and 'settings' must be JSON objects")
        for name in (LSI_FILE, LM_FILE):
            if not (path / name).exists():
                raise _format_error(f"{path}: missing {name}")
        # AM-FM directories keep their checksums in their manifest (models.directory checks them).
        verify_directory(path, {LSI_FILE: digests.get("lsi"), LM_FILE: digests.get("lm")}, listing=manifest_path)
        unknown = set(overrides) - set(AMFMSettings.__dataclass_fields__) - {"combine"}
        if unknown:
            raise TypeError(f"unknown AM-FM settings {sorted(unknown)}")
        lsi, lm = LsiModel.load(path / LSI_FILE, mmap=mmap), NgramLM.load(path / LM_FILE, mmap=mmap)
        try:
            AMFMSettings(**saved).check(lsi.dims)
        except (TypeError, ValueError) as exc:
            raise _format_error(f"{manifest_path}: invalid settings ({exc})") from None
        saved = dict(saved)
        if "combine" in overrides:
            saved.pop("am_combine", None)
            saved.pop("fm_combine", None)
        saved.update(overrides)
        return cls(lsi, lm, workers=workers, **saved)

    @classmethod
    def default(cls) -> "AMFM":
        """The small model shipped in the package (trained on Topical-Chat; see data/README.md).

        Loaded once per process and shared: the scorer is read-only and thread-safe.
        """
        with _DEFAULT_LOCK:
            global _DEFAULT
            if _DEFAULT is None:
                if not (DEFAULT_MODEL_DIR / SETTINGS_FILE).exists():
                    raise FileNotFoundError(
                        f"the packaged default AM-FM model is missing from {DEFAULT_MODEL_DIR}; rebuild it with "
                        "python -m fastamfm.amfm.build_default_model --topical-chat DIR --out " + str(DEFAULT_MODEL_DIR))
                _DEFAULT = cls.load(DEFAULT_MODEL_DIR)
            return _DEFAULT

    def save(self, path) -> None:
        """Write both models and the settings into directory ``path``.

        The directory appears complete or not at all: it is written beside ``path``
        and renamed into place. An existing AM-FM model directory there is replaced;
        any other existing file or non-empty directory is an error.
        """
        path = Path(path)
        if path.exists():
            if not path.is_dir():
                raise FileExistsError(f"{path} exists and is not a directory")
            if any(path.iterdir()) and not (path / SETTINGS_FILE).exists():
                raise FileExistsError(f"{path} is a non-empty directory that holds no AM-FM model; not replacing it")
        from ..io.atomic import atomic_directory
        from ..models.directory import file_sha256

        with atomic_directory(path) as tmp:
            self._lsi.save(tmp / LSI_FILE)
            self._lm.save(tmp / LM_FILE)
            manifest = {
                "format": MODEL_FORMAT,
                "kind": MODEL_KIND,
                "format_version": MODEL_FORMAT_VERSION,
                "fastamfm_version": __version__,
                "settings": asdict(self._settings),
                "sha256": {"lsi": file_sha256(tmp / LSI_FILE), "lm": file_sha256(tmp / LM_FILE)},
            }
            (tmp / SETTINGS_FILE).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")

    def with_settings(self, **changes) -> "AMFM":
        """The same models with other settings (no copy of the models)."""
        current = asdict(self._settings)
        if "combine" in changes:
            current.pop("am_combine")
            current.pop("fm_combine")
        current.update(changes)
        return AMFM(self._lsi, self._lm, workers=self._workers, **current)

    # --- what it holds ----------------------------------------------------------
    @property
    def lsi(self):
        return self._lsi

    @property
    def lm(self):
        return self._lm

    @property
    def settings(self) -> AMFMSettings:
        return self._settings

    @property
    def dims(self) -> int:
        return self._settings.dims or self._lsi.dims

    @property
    def signature(self) -> str:
        """Every setting that changes the number, and content hashes of both models."""
        s = self._settings
        return make_signature("amfm", lam=s.lam, mean=s.mean, dims=self.dims, am=s.am_combine, fm=s.fm_combine,
                              fm_norm=s.fm_normalization, fm_oov=s.fm_oov, tok=self._lsi.tokenizer.describe(),
                              lsi=self._lsi.fingerprint, lm=self._lm.fingerprint, order=self._lm.order)

    def __repr__(self) -> str:
        s = self._settings
        return (f"AMFM(lam={s.lam}, mean={s.mean!r}, dims={self.dims}, am_combine={s.am_combine!r}, "
                f"fm_combine={s.fm_combine!r}, vocabulary={len(self._lsi.vocabulary)}, lm_order={self._lm.order})")

    # --- scoring ------------------------------------------------------------------
    def metrics(self, *, workers: int | None = None) -> list:
        """The registry metrics ``am``, ``fm`` and ``amfm`` with this scorer's models and settings."""
        # Through the registry: the metric classes import this module.
        w = self._workers if workers is None else workers
        return [registry.metric_class(name).from_options(model=self, workers=w) for name in ("am", "fm", "amfm")]

    def references(self, refs) -> References:
        """``refs`` as a ``References`` to reuse across systems (what AM and FM derive
        from it is kept on it)."""
        if isinstance(refs, References):
            return refs
        return References(refs, workers=self._workers)

    def score(self, hyps, refs, *, workers: int | None = None) -> MetricResult:
        """AM, FM and AM-FM of every response: ``res.am``, ``res.fm``, ``res.amfm``
        (columns ``AM``, ``FM``, ``AM-FM``); ``res.corpus`` holds their means.

        Parameters
        ----------
        hyps : sequence of str or Hypotheses
            The n responses.
        refs : sequence of sequences of str, or References
            ``refs[i]``: the references of ``hyps[i]`` (a ``References`` reused across calls
            keeps the models' work on it).
        workers : int, optional
            Threads for this call (default: the scorer's; -1 every core).

        Returns
        -------
        MetricResult
            Columns ``AM``, ``FM``, ``AM-FM`` (float64 [n]) and their means in ``.corpus``.

        Raises
        ------
        ValueError
            ``hyps`` empty, of another length than ``refs``, or a response without references.
        TypeError
            ``hyps`` or ``refs`` not a sequence of strings (of sequences of strings).

        Examples
        --------
        >>> import fastamfm
        >>> res = fastamfm.AMFM.default().score(["i can check it"], [["let me check it"]])
        >>> res.columns, len(res)
        (('AM', 'FM', 'AM-FM'), 1)
        """
        from ..pipeline import Pipeline

        w = self._workers if workers is None else workers
        result = Pipeline(self.metrics(workers=w), workers=w).score(hyps, refs, what="amfm")
        return MetricResult("amfm", result.corpus, result.sentences, self.signature)

    def components(self, hyps, refs, *, workers: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Per-response (AM, FM) arrays."""
        res = self.score(hyps, refs, workers=workers)
        return res.am, res.fm

    def score_systems(self, systems: Mapping, refs, *, workers: int | None = None) -> dict:
        """``{name: hyps}`` -> ``{name: MetricResult}``, the references prepared once."""
        if not isinstance(systems, Mapping) or not systems:
            raise TypeError("systems must be a non-empty mapping {name: hyps}")
        shared = self.references(refs)
        return {name: self.score(hyps, shared, workers=workers) for name, hyps in systems.items()}

    def reward(self, hyps, refs, *, workers: int | None = None) -> np.ndarray:
        """AM-FM per response as float32, for training loops (thread-safe, no reload).

        Parameters
        ----------
        hyps : sequence of str
            The responses (completions) to reward.
        refs : sequence of sequences of str, or References
            ``refs[i]``: the references of ``hyps[i]``.
        workers : int, optional
            Threads for this call (default: the scorer's; -1 every core).

        Returns
        -------
        numpy.ndarray
            float32 [n]: the AM-FM column; an empty response scores 0.

        Raises
        ------
        ValueError
            ``hyps`` and ``refs`` of different lengths, or a response without references.

        Examples
        --------
        >>> import fastamfm
        >>> rewards = fastamfm.AMFM.default().reward(["i can check it"], [["let me check it"]])
        >>> rewards.dtype, rewards.shape
        (dtype('float32'), (1,))
        """
        return self.score(hyps, refs, workers=workers).amfm.astype(np.float32)


def _format_error(message: str) -> Exception:
    from ..errors import format_error

    path, _, what = message.partition(": ")
    return format_error(path, what)


_DEFAULT: AMFM | None = None
_DEFAULT_LOCK = threading.Lock()


def resolve_model(model) -> AMFM:
    """An AMFM from "default" (the packaged model), a model directory, or an AMFM."""
    if isinstance(model, AMFM):
        return model
    if model is None or (isinstance(model, str) and model == "default"):
        return AMFM.default()
    if isinstance(model, (str, os.PathLike)):
        return AMFM.load(model)
    raise TypeError(f"model must be 'default', a model directory or an AMFM, got {type(model).__name__}")


__all__ = ["AMFM", "AMFMSettings", "combine_scores", "resolve_model"]
