"""``fastamfm.tune``: how AM-FM's correlation with humans moves with its settings.

The grid covers λ, the number of LSI dimensions (all read from ONE SVD: a model
trained with the largest ``dims`` is truncated for the smaller ones), the LM order
(one LM per order), the reference combinations of AM and FM, and the mean used to
combine them. AM and FM are computed once per (dims, AM combination) and per (order,
FM combination); every λ and mean is then a cheap numpy combination.

The result is TUNED ON THE DATA IT REPORTS: its best correlation is an optimistic,
in-sample figure. Report it apart from numbers whose settings were fixed beforehand;
the result says so in its ``note`` and in its printed form.
"""
from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .._validation import as_text_list
from ..analysis.correlation import _coefficient
from ..references import References
from .adequacy import Adequacy
from .fluency import Fluency
from .scorer import AMFM, MEANS, combine_scores

TUNED_NOTE = ("TUNED ON THE EVALUATION DATA: each row's correlation is measured on the same human ratings "
              "used to choose among the rows, so the best row is an optimistic, in-sample figure.")
DEFAULT_LAMS = tuple(round(x, 2) for x in np.linspace(0.0, 1.0, 11))


@dataclass(frozen=True)
class TuningRow:
    lam: float
    dims: int
    order: int
    am_combine: str
    fm_combine: str
    mean: str
    pearson: float
    pearson_p: float
    spearman: float
    spearman_p: float


CORRELATION_FIELDS = ("pearson", "pearson_p", "spearman", "spearman_p")
# How a setting is named in a figure's words.
_SHOWN = {"lam": "λ"}


class TuningResult:
    """All grid rows; ``best()`` picks one, ``curve()`` gives a one-setting slice.

    Rows are dataclasses whose fields are the settings followed by ``CORRELATION_FIELDS``
    (``TuningRow`` for AM-FM, ``fastamfm.deep.tuning.DeepTuningRow`` for DeepAMFM)."""

    note = TUNED_NOTE

    def __init__(self, rows, *, level: str, points: int, note: str | None = None, model_settings: dict | None = None):
        self.rows = tuple(rows)
        self.level = level
        self.points = points
        # The settings of the model tuned around (``tune(model=...)``), for curves drawn at them.
        self.model_settings = dict(model_settings or {})
        if note is not None:
            self.note = note
        self.settings = tuple(f.name for f in dataclasses.fields(self.rows[0]) if f.name not in CORRELATION_FIELDS) \
            if self.rows else ()

    def __len__(self) -> int:
        return len(self.rows)

    def best(self, by: str = "pearson") -> TuningRow:
        if by not in ("pearson", "spearman"):
            raise ValueError(f"by must be 'pearson' or 'spearman', got {by!r}")
        finite = [r for r in self.rows if np.isfinite(getattr(r, by))]
        if not finite:
            raise ValueError("no setting gives a finite correlation")
        return max(finite, key=lambda r: getattr(r, by))

    def curve(self, vary: str, *, by: str = "pearson", **fixed) -> tuple[np.ndarray, np.ndarray]:
        """(values of ``vary``, correlation) with the other settings at ``fixed``
        (unspecified ones at the best row's)."""
        if vary not in self.settings:
            raise ValueError(f"vary must be one of {self.settings}, got {vary!r}")
        anchor = self.best(by)
        want = {k: getattr(anchor, k) for k in self.settings}
        want.update(fixed)
        want.pop(vary)
        rows = [r for r in self.rows if all(getattr(r, k) == v for k, v in want.items())]
        rows.sort(key=lambda r: getattr(r, vary))
        return np.array([getattr(r, vary) for r in rows]), np.array([getattr(r, by) for r in rows])

    def model_curve(self, vary: str, *, by: str = "pearson") -> tuple:
        """(values of ``vary``, correlation, where): the curve at the MODEL's other
        settings (``model_settings``) where the grid holds them, else at the best row's;
        ``where`` says which, in words for a title (e.g. "the model's dims=100", or
        "dims=5, the best tuned: the model's 100 is not in the grid")."""
        def said(k, v):
            return f"{_SHOWN.get(k, k)}={v:g}" if isinstance(v, float) else f"{_SHOWN.get(k, k)}={v}"

        fixed = {k: v for k, v in self.model_settings.items() if k != vary and k in self.settings}
        shown = {k: v for k, v in fixed.items() if len({getattr(r, k) for r in self.rows}) > 1}
        if fixed and any(all(getattr(r, k) == v for k, v in fixed.items()) for r in self.rows):
            x, y = self.curve(vary, by=by, **fixed)
            words = ", ".join(said(k, v) for k, v in shown.items())
            return x, y, f"the model's {words}" if words else "the model's settings"
        anchor = self.best(by)
        x, y = self.curve(vary, by=by)
        others = [k for k in self.settings if k != vary and len({getattr(r, k) for r in self.rows}) > 1]
        words = ", ".join(said(k, getattr(anchor, k)) for k in others)
        missing = ", ".join(said(k, v) for k, v in fixed.items() if v not in {getattr(r, k) for r in self.rows})
        why = f": the model's {missing} is not in the grid" if missing else ""
        return x, y, f"{words or 'the best row'}, the best tuned{why}"

    def to_records(self) -> list[dict]:
        return [r.__dict__.copy() for r in self.rows]

    def to_pandas(self):
        import pandas as pd

        return pd.DataFrame(self.to_records())

    def __str__(self) -> str:
        def cell(value) -> str:
            return f"{value:>10.2f}" if isinstance(value, float) else f"{value!s:>10}"

        lines = [self.note, f"{len(self.rows)} settings, {self.level} level, {self.points} points; best 10 by Pearson:",
                 " ".join(f"{name:>10}" for name in self.settings) + f" {'pearson':>8} {'p':>9} {'spearman':>8} {'p':>9}"]
        for r in sorted(self.rows, key=lambda r: -np.nan_to_num(r.pearson, nan=-2))[:10]:
            lines.append(" ".join(cell(getattr(r, name)) for name in self.settings) +
                         f" {r.pearson:>8.4f} {r.pearson_p:>9.2e} {r.spearman:>8.4f} {r.spearman_p:>9.2e}")
        return "\n".join(lines)


def _pairs(combines) -> list[tuple[str, str]]:
    out = []
    for c in combines:
        if isinstance(c, str):
            out.append((c, c))
        elif isinstance(c, (tuple, list)) and len(c) == 2:
            out.append((str(c[0]), str(c[1])))
        else:
            raise ValueError(f"each combination must be a name or an (am_combine, fm_combine) pair, got {c!r}")
    if not out:
        raise ValueError("combines is empty")
    return out


def _positive_ints(values, name: str) -> list[int]:
    values = [values] if isinstance(values, (int, np.integer)) else list(values)
    if not values:
        raise ValueError(f"{name} is empty")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must hold positive integers, got {v!r}")
    return sorted(set(int(v) for v in values))


def _targets(systems: Mapping, human, level: str) -> tuple[list, np.ndarray]:
    if not isinstance(systems, Mapping) or not systems:
        raise TypeError("systems must be a non-empty mapping {name: hyps}")
    if not isinstance(human, Mapping):
        raise TypeError("human must be a mapping: {system: rating} (system level) or "
                        "{system: per-response ratings} (utterance level)")
    missing = [s for s in systems if s not in human]
    if missing:
        raise ValueError(f"no human rating for systems {missing}")
    names = list(systems)
    if level == "system":
        return names, np.array([float(human[s]) for s in names])
    if level == "utterance":
        parts = []
        for s in names:
            ratings = np.asarray(human[s], dtype=np.float64)
            if ratings.shape != (len(systems[s]),):
                raise ValueError(f"human[{s!r}] has {ratings.size} ratings for {len(systems[s])} responses")
            parts.append(ratings)
        return names, np.concatenate(parts)
    raise ValueError(f"level must be 'system' or 'utterance', got {level!r}")


def tune(systems: Mapping, refs, human, *, corpus=None, model: AMFM | None = None, lams=DEFAULT_LAMS,
         dims=None, orders=None, combines=(("max", "mean"),), means=("arithmetic",), level: str = "system",
         weighting: str = "counts", smoothing: str = "kneser-ney", min_count: int = 1, max_vocab=None,
         tokenize: str = "amfm", lowercase: bool = False, seed: int = 0, workers: int = -1) -> TuningResult:
    """Correlation with ``human`` for every setting of the grid.

    ``systems``: ``{name: hyps}``; ``refs``: the references shared by all systems;
    ``human``: ``{name: rating}`` (system level) or ``{name: ratings per response}``
    (``level="utterance"``). Give either ``model`` (an ``AMFM``: its LSI is truncated
    to each ``dims``; its LM is the only order) or ``corpus`` to train one LSI with
    ``max(dims)`` dimensions and one LM per order.

    Parameters
    ----------
    systems : mapping of str to sequence of str
        ``{name: responses}``, every system answering the same inputs.
    refs : sequence of sequences of str, or References
        The references shared by all systems.
    human : mapping of str to float, or of str to sequence of float
        ``{name: rating}`` (system level) or ``{name: per-response ratings}`` (utterance level).
    corpus : str, path or iterable of str, optional
        Sentences to train the models on; give this or ``model``.
    model : AMFM, optional
        A scorer to tune around; give this or ``corpus``.
    lams : float or sequence of float, default 0.0, 0.1, ..., 1.0
        The AM weights tried, each in [0, 1].
    dims : int or sequence of int, optional
        LSI dimensions tried (default: the model's, or 100).
    orders : int or sequence of int, optional
        LM orders tried (``corpus`` only; default 3).
    combines : sequence of (str, str), default (("max", "mean"),)
        (AM, FM) reference combinations tried.
    means : str or sequence of str, default ("arithmetic",)
        AM-FM means tried (see ``combine_scores``).
    level : {"system", "utterance"}, default "system"
        Correlate system means or per-response scores.
    weighting, smoothing, min_count, max_vocab, tokenize, lowercase, seed
        The training settings of ``LsiModel.train`` and ``NgramLM.train`` (``corpus`` only).
    workers : int, default -1
        Threads (-1: every core).

    Returns
    -------
    TuningResult
        One row per setting with its Pearson and Spearman correlations (and p-values);
        ``best(by=)`` picks a row, ``curve(vary, ...)`` gives a slice.

    Raises
    ------
    ValueError
        Both or neither of ``model`` and ``corpus``, a setting out of range, a system without
        ratings, ratings of the wrong count, an unknown ``level`` or mean.
    TypeError
        ``systems`` or ``human`` not a mapping, ``model`` not an ``AMFM``.
    ImportError
        scipy not installed (the ``analysis`` extra).

    Examples
    --------
    >>> import fastamfm
    >>> corpus = ["the cat sat on the mat", "a cat was on the mat", "the dog ran away",
    ...           "a dog ran in the park", "the cat ran"]
    >>> scorer = fastamfm.AMFM.train(corpus, dims=2, order=2)
    >>> systems = {"A": ["the cat sat on the mat", "a dog ran"], "B": ["a cat", "the dog"],
    ...            "C": ["mat", "park"], "D": ["the cat was on a mat", "the dog ran in the park"]}
    >>> human = {"A": 4.5, "B": 3.0, "C": 1.0, "D": 4.0}
    >>> result = fastamfm.tune(systems, [["the cat sat on a mat"], ["the dog ran away"]], human,
    ...                        model=scorer, lams=[0.0, 0.5, 1.0])
    >>> lams, pearson = result.curve("lam")
    >>> lams.tolist(), pearson.round(4).tolist(), result.best().lam
    ([0.0, 0.5, 1.0], [0.9299, 0.9394, 0.9458], 1.0)
    """
    from .lm import NgramLM
    from .lsi import LsiModel

    names, target = _targets(systems, human, level)
    hyps = {s: as_text_list(systems[s], f"systems[{s!r}]") for s in names}
    lams = [float(x) for x in ([lams] if isinstance(lams, (int, float)) else lams)]
    if not lams or any(not 0 <= x <= 1 for x in lams):
        raise ValueError(f"lams must be numbers in [0, 1], got {lams}")
    means = [means] if isinstance(means, str) else list(means)
    for m in means:
        if m not in MEANS:
            raise ValueError(f"mean must be one of {MEANS}, got {m!r}")
    pairs = _pairs(combines)
    if (model is None) == (corpus is None):
        raise ValueError("give exactly one of model= (an AMFM) or corpus= (to train on)")
    if model is not None:
        if not isinstance(model, AMFM):
            raise TypeError(f"model must be an AMFM, got {type(model).__name__}")
        lsi, k = model.lsi, model.lsi.dims
        dims = _positive_ints(dims if dims is not None else [model.dims], "dims")
        if dims[-1] > k:
            raise ValueError(f"dims up to {dims[-1]} asked for but the model's LSI has {k} dimensions")
        if orders is not None and _positive_ints(orders, "orders") != [model.lm.order]:
            raise ValueError(f"a given model has only its own LM order ({model.lm.order}); "
                             "pass corpus= to tune the order")
        lms = {model.lm.order: model.lm}
        normalization, oov = model.settings.fm_normalization, model.settings.fm_oov
        model_settings = {"lam": float(model.settings.lam), "dims": int(model.dims), "order": int(model.lm.order),
                          "am_combine": model.settings.am_combine, "fm_combine": model.settings.fm_combine,
                          "mean": model.settings.mean}
    else:
        dims = _positive_ints(dims if dims is not None else [100], "dims")
        orders = _positive_ints(orders if orders is not None else [3], "orders")
        if not isinstance(corpus, (str, bytes)) and not hasattr(corpus, "__fspath__"):
            corpus = as_text_list(corpus, "corpus")
        lsi = LsiModel.train(corpus, dims=dims[-1], weighting=weighting, min_count=min_count,
                             max_vocab=max_vocab, seed=seed, workers=workers, tokenize=tokenize, lowercase=lowercase)
        lms = {o: NgramLM.train(corpus, order=o, smoothing=smoothing, workers=workers, tokenize=tokenize,
                                lowercase=lowercase) for o in orders}
        normalization, oov = "per-word", "skip"
        model_settings = None

    # One References serves every setting: each model's projections and probabilities
    # of the references are derived once and kept on it.
    shared = refs if isinstance(refs, References) else References(refs, workers=workers)
    am = {(d, a): {s: Adequacy(lsi=lsi, dims=d, combine=a, workers=workers).score(hyps[s], shared).sentences["AM"]
                   for s in names}
          for d in dims for a in dict.fromkeys(p[0] for p in pairs)}
    fm = {(o, f): {s: Fluency(lm=lm, combine=f, normalization=normalization, oov=oov,
                              workers=workers).score(hyps[s], shared).sentences["FM"]
                   for s in names}
          for o, lm in lms.items() for f in dict.fromkeys(p[1] for p in pairs)}

    rows = []
    for d, o, (a, f), mean, lam in itertools.product(dims, sorted(lms), pairs, means, lams):
        per_system = [combine_scores(am[d, a][s], fm[o, f][s], lam, mean) for s in names]
        x = np.array([v.mean() for v in per_system]) if level == "system" else np.concatenate(per_system)
        pr, pp = _coefficient("pearson", x, target)
        sr, sp = _coefficient("spearman", x, target)
        rows.append(TuningRow(lam, d, o, a, f, mean, pr, pp, sr, sp))
    return TuningResult(rows, level=level, points=len(target), model_settings=model_settings)
