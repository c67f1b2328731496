"""``LearnedScorer``: a score fitted to human ratings in seconds — ADEM or a stacked combiner.

    s = LearnedScorer.fit(ratings, hyps, refs=None, contexts=None, kind="adem" | "stack", ...)
    s.score(hyps, refs=None, contexts=None) -> MetricResult
    s.save("scorer.fastamfm");  LearnedScorer.load("scorer.fastamfm")

``kind="adem"`` (``adem.py``) reads sentence vectors of the context, reference and
response from an encoder (default: the packaged AM-FM model's LSI; any object with
``.encode(list[str]) -> ndarray``). ``kind="stack"`` (``stack.py``) combines metric
columns (``columns.py``) and any columns the caller gives. Which of references and
contexts a scorer uses is fixed at fit time by what ``fit`` was given; ``score`` needs
the same (and ignores the other).

``contexts[i]`` is the dialogue before response i: a list of turns (last turn last) or
one string with turns separated by newlines.
"""
from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping

import numpy as np

from .._validation import as_text_list
from ..errors import format_error
from ..result import MetricResult, make_signature
from . import adem as adem_module
from . import columns as columns_module
from .encoders import (
    context_vectors,
    describe_encoder,
    encode_texts,
    reference_vectors,
    resolve_encoder,
)
from .scorer_file import (
    checked_adem,
    checked_stack,
    read_scorer_file,
    write_scorer_file,
)
from .stack import fit_stack

KINDS = ("adem", "stack")
FILE_KIND = "fastamfm-learned-scorer"
# Human ratings live on small scales; beyond this their squares and spreads overflow the fit.
MAX_ABS_RATING = 1e9


# --- input checks ------------------------------------------------------------------

def _ratings(ratings, n: int) -> np.ndarray:
    try:
        y = np.asarray(ratings, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError("ratings must be numbers") from None
    if y.ndim != 1:
        raise ValueError(f"ratings must be one-dimensional, got shape {y.shape}")
    if len(y) != n:
        raise ValueError(f"{len(y)} ratings but {n} hyps")
    bad = np.flatnonzero(~np.isfinite(y))
    if bad.size:
        raise ValueError(f"ratings[{bad[0]}] is {y[bad[0]]}: ratings must be finite numbers")
    bad = np.flatnonzero(np.abs(y) > MAX_ABS_RATING)
    if bad.size:
        raise ValueError(f"ratings[{bad[0]}] is {y[bad[0]]:g}: ratings must lie within +-{MAX_ABS_RATING:g} "
                         f"(rescale them)")
    if n < 3:
        raise ValueError(f"fitting needs at least 3 rated responses, got {n}")
    if np.ptp(y) == 0:
        raise ValueError(f"all {n} ratings equal {y[0]}: there is nothing to learn from constant ratings")
    return y


def _refs(refs, n: int) -> list | None:
    if refs is None:
        return None
    if isinstance(refs, (str, bytes)):
        raise TypeError("refs must be a sequence of reference lists, not a single string")
    refs = [list(r) if not isinstance(r, (str, bytes)) else r for r in refs]
    if len(refs) != n:
        raise ValueError(f"{n} hyps but {len(refs)} reference lists in refs")
    for i, group in enumerate(refs):
        if isinstance(group, (str, bytes)):
            raise TypeError(f"refs[{i}] is a single string; give a list of references")
        if not group:
            raise ValueError(f"refs[{i}] has no reference")
        for j, ref in enumerate(group):
            if not isinstance(ref, str):
                raise TypeError(f"refs[{i}][{j}] is {type(ref).__name__}, expected str")
    return refs


def _contexts(contexts, n: int) -> list | None:
    if contexts is None:
        return None
    if isinstance(contexts, (str, bytes)):
        raise TypeError("contexts must be a sequence (one context per response), not a single string")
    contexts = list(contexts)
    if len(contexts) != n:
        raise ValueError(f"{n} hyps but {len(contexts)} contexts")
    out = []
    for i, context in enumerate(contexts):
        turns = context.split("\n") if isinstance(context, str) else list(context)
        for j, turn in enumerate(turns):
            if not isinstance(turn, str):
                raise TypeError(f"contexts[{i}][{j}] is {type(turn).__name__}, expected str")
        out.append(turns)
    return out


def _hyps(hyps) -> list:
    hyps = as_text_list(hyps, "hyps")
    for i, h in enumerate(hyps):
        if not isinstance(h, str):
            raise TypeError(f"hyps[{i}] is {type(h).__name__}, expected str")
    return hyps


def _choice(value, allowed, name: str):
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


def _content_hash(arrays: Mapping) -> str:
    h = hashlib.sha256()
    for name in sorted(arrays):
        h.update(name.encode())
        h.update(np.ascontiguousarray(arrays[name], dtype=np.float64).tobytes())
    return h.hexdigest()[:16]


def _amfm_identity(model) -> str:
    """The AM-FM model's signature without the fastamfm version (same model, same columns)."""
    return "|".join(p for p in model.signature.split("|") if not p.startswith("version="))


# --- the scorer ----------------------------------------------------------------------

class LearnedScorer:
    """A fitted ADEM or stacked combiner; build with ``fit`` or ``load``.

    ``score`` then rates responses on the ratings' scale (column ``Learned``); ``save``
    writes it to one file.

    Examples
    --------
    A stacked combiner of BLEU-2 and ROUGE-L fitted to six ratings:

    >>> import fastamfm
    >>> hyps = ["the cat sat on the mat", "a dog ran", "a cat", "the dog ran in the park", "mat", "the cat ran"]
    >>> refs = [["the cat sat on a mat"], ["the dog ran away"], ["a cat sat"], ["a dog ran in the park"],
    ...         ["the mat"], ["the cat ran off"]]
    >>> scorer = fastamfm.LearnedScorer.fit([5, 3, 2, 4, 1, 4], hyps, refs, kind="stack",
    ...                                     metrics=["BLEU-2", "ROUGE-L"])
    >>> scorer.kind, scorer.uses_references, scorer.uses_contexts
    ('stack', True, False)
    >>> scorer.score(hyps, refs)["Learned"].round(4).tolist()
    [3.8243, 2.6452, 3.4201, 4.2639, 0.9842, 3.8622]
    """

    def __init__(self, kind: str, model, settings: dict, *, encoder=None, amfm=None, evaluator=None):
        # Private: fit() and load() check everything before they get here.
        self._kind = kind
        self._model = model
        self._settings = dict(settings)
        self._encoder = encoder
        self._amfm = amfm
        self._evaluator = evaluator

    # --- fitting ----------------------------------------------------------------------
    @classmethod
    def fit(cls, ratings, hyps, refs=None, contexts=None, *, kind: str = "adem", encoder=None,
            dims: int = 7, prior: str = "identity", regularization: str = "l2", penalty="auto",
            context_decay: float = 0.7, metrics=None, columns: Mapping | None = None, weights: str = "nonneg",
            model=None, evaluator=None, seed: int = 0) -> "LearnedScorer":
        """Fit to ``ratings`` (one human rating per response).

        ADEM (``kind="adem"``): ``encoder`` (None: the packaged LSI; a trained evaluator's
        dialogue encoder: ``Evaluator.encoder``, ADEM on a pre-trained dialogue encoder as
        the paper intends), ``dims`` (PCA size,
        the paper's 7), ``prior`` ("identity": M, N shrink towards the identity, or
        "zero"), ``regularization`` ("l2": closed-form ridge, "l1": coordinate-descent
        lasso), ``penalty`` (a number, or "auto": leave-one-out for l2, 5-fold
        cross-validation along the L1 path for l1), ``context_decay`` (weight of a turn k
        places before the last in the context vector: decay**k; 0 = last turn only).

        Stacked combiner (``kind="stack"``): ``metrics`` (built-in columns, see
        ``fastamfm.learned.columns``; default: those the inputs allow), ``columns``
        ({name: per-response scores} of your own, e.g. Deep AM; ``score`` then needs the
        same names), ``weights`` ("nonneg" or "ridge"), ``model`` (the AM-FM model behind
        AM, FM and LM: default the packaged one), ``evaluator`` (a trained ``Evaluator`` or
        its directory: its columns ``Evaluator``, ``Evaluator-relevance``,
        ``Evaluator-validity`` join the stack, by default its sub-scores).

        Parameters
        ----------
        ratings : sequence of float
            One human rating per response.
        hyps : sequence of str
            The n rated responses.
        refs : sequence of sequences of str, optional
            Their references; give ``refs``, ``contexts`` or both.
        contexts : sequence, optional
            Their dialogue contexts.
        kind : {"adem", "stack"}, default "adem"
            ADEM or a stacked combiner of metric columns.
        encoder, dims, prior, regularization, penalty, context_decay, seed
            ADEM's settings (see above).
        metrics, columns, weights, model, evaluator
            The stacked combiner's settings (see above).

        Returns
        -------
        LearnedScorer
            The fitted scorer.

        Raises
        ------
        ValueError
            An unknown ``kind`` or setting, ratings of another count than ``hyps``, neither
            ``refs`` nor ``contexts``, a column the inputs do not allow, too few ratings for ``dims``.
        TypeError
            Ratings that are not numbers, responses or references that are not strings.
        """
        _choice(kind, KINDS, "kind")
        hyps = _hyps(hyps)
        n = len(hyps)
        y = _ratings(ratings, n)
        refs = _refs(refs, n)
        contexts = _contexts(contexts, n)
        if refs is None and contexts is None:
            raise ValueError("fit needs refs, contexts or both (a score of the response alone has nothing "
                             "to compare it with)")
        if kind == "adem":
            return cls._fit_adem(y, hyps, refs, contexts, encoder=encoder, dims=dims, prior=prior,
                                 regularization=regularization, penalty=penalty, context_decay=context_decay,
                                 seed=seed)
        return cls._fit_stack(y, hyps, refs, contexts, metrics=metrics, columns=columns, weights=weights,
                              model=model, evaluator=evaluator)

    @classmethod
    def _fit_adem(cls, y, hyps, refs, contexts, *, encoder, dims, prior, regularization, penalty, context_decay,
                  seed) -> "LearnedScorer":
        if isinstance(dims, bool) or not isinstance(dims, (int, np.integer)) or dims < 1:
            raise ValueError(f"dims must be a positive integer, got {dims!r}")
        if len(y) <= dims:
            raise ValueError(f"ADEM reduces the vectors to dims={dims} dimensions: it needs more rated responses "
                             f"than that, got {len(y)}")
        if not isinstance(context_decay, (int, float)) or not 0 <= context_decay <= 1:
            raise ValueError(f"context_decay must be a number in [0, 1], got {context_decay!r}")
        if not (penalty == "auto" or (isinstance(penalty, (int, float)) and math.isfinite(penalty)
                                      and penalty >= 0)):
            raise ValueError(f"penalty must be a non-negative number or 'auto', got {penalty!r}")
        encoder = resolve_encoder(encoder)
        vectors = cls._vectors(encoder, hyps, refs, contexts, float(context_decay))
        model = adem_module.fit_adem(y, *vectors, dims=int(dims), prior=prior, regularization=regularization,
                                     penalty=penalty, seed=seed)
        settings = {"dims": int(dims), "prior": prior, "regularization": regularization,
                    "context_decay": float(context_decay), "encoder": describe_encoder(encoder)}
        return cls("adem", model, settings, encoder=encoder)._checked()

    def _checked(self) -> "LearnedScorer":
        """This scorer, if every fitted number is finite (extreme inputs can overflow a fit)."""
        numbers = [v for v in self._scalars().values() if isinstance(v, float)]
        if not all(np.isfinite(a).all() for a in self._arrays().values()) or not np.isfinite(numbers).all():
            raise ValueError("the fit overflowed (a fitted weight is NaN or infinite): rescale the ratings or the "
                             "columns")
        return self

    @staticmethod
    def _vectors(encoder, hyps, refs, contexts, decay):
        response = encode_texts(encoder, hyps)
        context = None if contexts is None else context_vectors(encoder, contexts, decay)
        reference = None if refs is None else reference_vectors(encoder, refs)
        return response, context, reference

    @classmethod
    def _fit_stack(cls, y, hyps, refs, contexts, *, metrics, columns, weights, model, evaluator) -> "LearnedScorer":
        from ..amfm.scorer import resolve_model

        evaluator = _resolve_evaluator(evaluator)
        has = dict(has_refs=refs is not None, has_contexts=contexts is not None, has_evaluator=evaluator is not None)
        names = columns_module.default_columns(**has) if metrics is None else tuple(metrics)
        columns_module.check_columns(names, **has)
        given = columns_module.given_columns(columns, len(hyps))
        if not names and not given:
            raise ValueError("the stacked combiner needs at least one metric or given column")
        amfm = resolve_model(model) if _needs_amfm(names) else None
        if not _needs_evaluator(names):
            evaluator = None
        table = columns_module.metric_columns(names, hyps, refs, contexts, model=amfm, evaluator=evaluator)
        table.update(given)
        stack = fit_stack(y, table, weighting=_choice(weights, ("nonneg", "ridge"), "weights"))
        settings = {"metrics": list(names), "given_columns": list(given), "uses_references": refs is not None,
                    "uses_contexts": contexts is not None, "amfm": None if amfm is None else _amfm_identity(amfm),
                    "evaluator": None if evaluator is None else evaluator.fingerprint}
        return cls("stack", stack, settings, amfm=amfm, evaluator=evaluator)._checked()

    # --- what it is --------------------------------------------------------------------
    @property
    def kind(self) -> str:
        return self._kind

    @property
    def uses_references(self) -> bool:
        if self._kind == "adem":
            return self._model.uses_references
        return self._settings["uses_references"]

    @property
    def uses_contexts(self) -> bool:
        if self._kind == "adem":
            return self._model.uses_context
        return self._settings["uses_contexts"]

    @property
    def model(self):
        """The fitted ``AdemModel`` or ``StackModel`` (read-only arrays)."""
        return self._model

    @property
    def settings(self) -> dict:
        return dict(self._settings)

    @property
    def signature(self) -> str:
        s = self._settings
        if self._kind == "adem":
            details = dict(dims=s["dims"], prior=s["prior"], reg=s["regularization"], decay=s["context_decay"],
                           encoder=s["encoder"])
        else:
            details = dict(columns=",".join(self._model.columns), weights=self._model.weighting)
        return make_signature("learned", kind=self._kind, refs=self.uses_references, contexts=self.uses_contexts,
                              fit=_content_hash(self._arrays()), **details)

    def __repr__(self) -> str:
        return f"LearnedScorer({self.signature})"

    # --- scoring -------------------------------------------------------------------------
    def score(self, hyps, refs=None, contexts=None, *, columns: Mapping | None = None) -> MetricResult:
        """Scores of ``hyps`` on the ratings' scale; ``columns`` are the caller's own
        columns a stacked combiner was fitted with.

        Parameters
        ----------
        hyps : sequence of str
            The n responses.
        refs : sequence of sequences of str, optional
            Their references (required when the scorer was fitted with references).
        contexts : sequence, optional
            Their dialogue contexts (required when fitted with contexts).
        columns : mapping of str to sequence of float, optional
            The caller's own columns the combiner was fitted with.

        Returns
        -------
        MetricResult
            Column ``Learned`` (float64 [n]) and its mean in ``.corpus``.

        Raises
        ------
        ValueError
            ``refs``, ``contexts`` or given columns missing that the fit used, inputs of
            different lengths, a non-finite score.
        TypeError
            Responses or references that are not strings.
        """
        hyps = _hyps(hyps)
        n = len(hyps)
        refs = _refs(refs, n) if self.uses_references else None
        contexts = _contexts(contexts, n) if self.uses_contexts else None
        if self.uses_references and refs is None:
            raise ValueError("this scorer was fitted with references: pass refs=")
        if self.uses_contexts and contexts is None:
            raise ValueError("this scorer was fitted with dialogue contexts: pass contexts=")
        if self._kind == "adem":
            response, context, reference = self._vectors(self._encoder, hyps, refs, contexts,
                                                         self._settings["context_decay"])
            values = self._model.predict(context, reference, response)
        else:
            table = columns_module.metric_columns(self._settings["metrics"], hyps, refs, contexts, model=self._amfm,
                                                  evaluator=self._evaluator)
            given = columns_module.given_columns(columns, n)
            missing = [c for c in self._settings["given_columns"] if c not in given]
            if missing:
                raise ValueError(f"this stacked combiner was fitted with your columns {missing}: pass columns=")
            table.update(given)
            values = self._model.predict(table)
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise ValueError(f"the learned scorer gives {values[bad[0]]} for hyps[{bad[0]}]: its weights are too "
                             f"extreme for these inputs (was the file edited?)")
        return MetricResult(name="learned", corpus={"Learned": float(values.mean())}, sentences={"Learned": values},
                            signature=self.signature, renamed={"learned": "Learned"})

    # --- files -----------------------------------------------------------------------------
    def _arrays(self) -> dict:
        m = self._model
        if self._kind == "adem":
            arrays = {"pca_mean": m.pca.mean, "pca_components": m.pca.components}
            if m.context_weights is not None:
                arrays["context_weights"] = m.context_weights
            if m.reference_weights is not None:
                arrays["reference_weights"] = m.reference_weights
            return arrays
        return {"means": m.means, "scales": m.scales, "weights": m.weights}

    def _scalars(self) -> dict:
        m = self._model
        if self._kind == "adem":
            return {"alpha": m.alpha, "beta": m.beta, "penalty": m.penalty}
        return {"intercept": m.intercept, "columns": list(m.columns), "weighting": m.weighting}

    def save(self, path) -> None:
        """Write the scorer to one file (see ``storage.py``), atomically."""
        header = {"kind": FILE_KIND, "scorer": self._kind, "settings": self._settings, "model": self._scalars()}
        write_scorer_file(path, header, self._arrays())

    @classmethod
    def load(cls, path, *, encoder=None, model=None, evaluator=None) -> "LearnedScorer":
        """Read a file written by ``save``. ``encoder``: the encoder an ADEM was fitted with
        (default: the packaged LSI, checked against the file); ``model``: the AM-FM model
        of a stacked combiner's AM/FM/LM columns (default: the packaged one, checked);
        ``evaluator``: the trained evaluator (or its directory) of its evaluator columns
        (checked against the one it was fitted with)."""
        from ..amfm.scorer import resolve_model

        header, arrays = read_scorer_file(path)
        if header.get("kind") != FILE_KIND or header.get("scorer") not in KINDS:
            raise format_error(path, f"not a learned scorer ({header.get('kind')!r}, {header.get('scorer')!r})")
        settings, scalars = header.get("settings"), header.get("model")
        if not isinstance(settings, dict) or not isinstance(scalars, dict):
            raise format_error(path, "incomplete learned-scorer file ('settings' and 'model' must be objects)")
        check = checked_adem if header["scorer"] == "adem" else checked_stack
        fitted = check(path, settings, scalars, arrays)
        if header["scorer"] == "adem":
            encoder = resolve_encoder(encoder)
            if describe_encoder(encoder) != settings["encoder"]:
                raise ValueError(f"{path} was fitted with encoder {settings['encoder']!r} but is being loaded with "
                                 f"{describe_encoder(encoder)!r}; pass encoder= the one it was fitted with")
            return cls("adem", fitted, settings, encoder=encoder)
        amfm = None
        if settings["amfm"] is not None:
            amfm = resolve_model(model if model is not None else "default")
            if _amfm_identity(amfm) != settings["amfm"]:
                raise ValueError(f"{path} was fitted with the AM-FM model {settings['amfm']!r} but is being loaded "
                                 f"with {_amfm_identity(amfm)!r}; pass model= the one it was fitted with")
        fitted_evaluator = settings.get("evaluator")
        if fitted_evaluator is not None:
            evaluator = _resolve_evaluator(evaluator)
            if evaluator is None:
                raise ValueError(f"{path} combines a trained evaluator's columns: pass evaluator= its directory")
            if evaluator.fingerprint != fitted_evaluator:
                raise ValueError(f"{path} was fitted with the evaluator {fitted_evaluator!r} but is being loaded with "
                                 f"{evaluator.fingerprint!r} ({evaluator.directory}); pass the one it was fitted with")
        return cls("stack", fitted, settings, amfm=amfm, evaluator=evaluator if fitted_evaluator else None)


def _resolve_evaluator(evaluator):
    """None, a loaded ``Evaluator``, or one loaded from its directory."""
    if evaluator is None:
        return None
    from ..evaluator.metric import load_evaluator

    return load_evaluator(evaluator)


def _needs_evaluator(names) -> bool:
    return any(n in columns_module.EVALUATOR_COLUMNS for n in names)


def _needs_amfm(names) -> bool:
    return any(n in ("AM", "FM", "AM-FM", *columns_module.CONTEXT_COLUMNS) for n in names)
