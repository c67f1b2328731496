"""What sacrebleu's metrics share: ``Score`` (a number and how sacrebleu prints it),
``Signature`` (every setting that changes the number) and ``Metric`` (corpus and
sentence scoring over reference streams, optional bootstrap confidence intervals).

The pipeline is fastamfm's: the streams become per-response references, a fastamfm
metric (``SacreBleu``, ``Chrf``) extracts each segment's statistics in the C++ core, the
corpus score comes from their sums, and resampling works on those per-segment rows
(``fastamfm.analysis.resampling``) with sacrebleu's draws.
"""
from __future__ import annotations

import json
import logging
import os
import statistics
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Generic, TypeVar

import numpy as np

from ....analysis.resampling import bootstrap_draws, bootstrap_scores
from ....batch import make_batch
from ....references import References
from .._streams import VARIABLE_REFS, check_hypotheses, references_per_response
from ..version import __version__

if TYPE_CHECKING:
    from ....batch import Batch
    from ....metrics.chrf import Chrf
    from ....metrics.sacrebleu import SacreBleu
    from ....registry import Chunk

# sacrebleu's logger name, so that logging set up for sacrebleu applies to its warnings here.
logger = logging.getLogger("sacrebleu")

SEED_VARIABLE = "SACREBLEU_SEED"
DEFAULT_SEED = "12345"


def environment_seed() -> tuple[str, int | None]:
    """(seed as the signature prints it, seed for numpy): ``SACREBLEU_SEED`` (default
    12345); "none" draws fresh entropy, as sacrebleu does."""
    text = os.environ.get(SEED_VARIABLE, DEFAULT_SEED).lower()
    return text, None if text == "none" else int(text)


def confidence_halfwidth(sorted_scores) -> float:
    """Half the width of the central 95% of sorted resampled scores (1/40 cut each side)."""
    cut = len(sorted_scores) // 40
    return 0.5 * (sorted_scores[len(sorted_scores) - cut - 1] - sorted_scores[cut])


class Score:
    """A metric's number, printed as sacrebleu prints it.

    ``name``: the metric ("BLEU", "chrF2", "chrF2++"); ``score``: 0..100. After a
    bootstrap (``corpus_score(..., n_bootstrap=N)``) it carries the mean and the 95%
    half-width of the resampled scores, printed as ``μ = mean ± ci``.
    """

    def __init__(self, name: str, score: float):
        self.name = name
        self.score = score
        # -1: no bootstrap ran (sacrebleu's marker; a real mean is > 0 when printed).
        self._mean = -1.0
        self._ci = -1.0
        self._verbose = ""

    def format(self, width: int = 2, score_only: bool = False, signature: str = "", is_json: bool = False) -> str:
        """The score as text: ``NAME|SIGNATURE = 48.53 VERBOSE``, the number alone
        (``score_only``), or a JSON object (``is_json``) with the signature's fields.

        >>> Score("BLEU", 48.5308).format(signature="nrefs:2|version:2.6.0")
        'BLEU|nrefs:2|version:2.6.0 = 48.53'
        """
        number = f"{self.score:.{width}f}"
        record = {"name": self.name, "score": float(number), "signature": signature}
        if self._mean > 0:
            mean, halfwidth = f"{self._mean:.{width}f}", f"{self._ci:.{width}f}"
            confidence = f"μ = {mean} ± {halfwidth}"
            number += f" ({confidence})"
            record.update(confidence_mean=float(mean), confidence_var=float(halfwidth), confidence=confidence)
        if score_only:
            return number
        if is_json:
            if self._verbose:
                record["verbose_score"] = self._verbose
            record.update(dict(pair.split(":", 1) for pair in signature.split("|") if pair))
            return json.dumps(record, indent=1, ensure_ascii=False)
        line = f"{self.name}|{signature}" if signature else self.name
        line += f" = {number}"
        return f"{line} {self._verbose}" if self._verbose else line

    def estimate_ci(self, scores: list) -> None:
        """Keep the mean and 95% half-width of resampled ``Score`` objects."""
        self._set_confidence([s.score for s in scores])

    def _set_confidence(self, values) -> None:
        ordered = sorted(float(v) for v in values)
        self._ci = confidence_halfwidth(ordered)
        self._mean = statistics.mean(ordered)

    def __repr__(self) -> str:
        return self.format()


class Signature:
    """sacrebleu's reproducibility signature: ``key:value`` pairs joined by ``|``, the
    version last; ``format(short=True)`` abbreviates the keys (``#:1|c:mixed|...|v:2.6.0``).

    ``args``: the metric's settings (its attributes); ``num_refs`` must be known, i.e.
    the metric must have scored (or cached) references.
    """

    ABBREVIATIONS = {"version": "v", "nrefs": "#", "test": "t", "lang": "l", "subset": "S", "origlang": "o",
                     "bs": "bs", "ar": "ar", "seed": "rs"}

    def __init__(self, args: dict):
        num_refs = args.get("num_refs")
        if num_refs is None:
            raise ValueError("Number of references unknown: score (or cache) references with the metric first.")
        # None-valued entries are left out of the text; the order is the printed order.
        self.info = {"version": __version__, "nrefs": "var" if num_refs == VARIABLE_REFS else num_refs,
                     "bs": args.get("n_bootstrap"), "ar": None, "seed": args.get("seed"),
                     "test": args.get("test_set"), "lang": args.get("langpair"), "origlang": args.get("origlang"),
                     "subset": args.get("subset")}

    def format(self, short: bool = False) -> str:
        keys = [k for k in self.info if k != "version"] + ["version"]
        pairs = []
        for key in keys:
            value = self.info[key]
            if value is None:
                continue
            if isinstance(value, bool):
                value = "yes" if value else "no"
            pairs.append(f"{self.ABBREVIATIONS.get(key, key) if short else key}:{value}")
        return "|".join(pairs)

    def update(self, key: str, value) -> None:
        self.info[key] = value

    def __str__(self) -> str:
        return self.format()

    __repr__ = __str__


# The score object a metric builds (BLEUScore, CHRFScore).
_S = TypeVar("_S", bound=Score)


@dataclass
class Evaluation(Generic[_S]):
    """One system scored by a metric: its ``Score`` and, on demand, the per-segment rows
    that resampled corpus scores are computed from."""

    score: _S
    metric: "Metric[_S]"
    batch: Batch
    chunk: Chunk

    @cached_property
    def rows(self):
        return self.metric._native.sentence_statistics(self.batch, self.chunk)

    def __len__(self) -> int:
        return len(self.batch.hyps)

    def resampled(self, draws: np.ndarray) -> np.ndarray:
        """The corpus scores [R] of the R samples of segment indices ``draws`` [R, n]."""
        return bootstrap_scores([self.rows], draws)[0][self.metric._native.columns[0]]


class Metric(ABC, Generic[_S]):
    """Base of ``BLEU`` and ``CHRF``: sacrebleu's ``corpus_score``, ``sentence_score`` and
    ``get_signature`` on top of a fastamfm metric (``self._native``), with the score
    object each subclass builds from the summed statistics (``_score_of``)."""

    _SIGNATURE_TYPE = Signature
    _native: SacreBleu | Chrf   # the fastamfm metric, set by the subclass

    def __init__(self):
        self._ref_cache = None       # fastamfm References of the streams given at construction
        self.num_refs = None         # nrefs of the last references seen (the signature's)
        self.n_bootstrap = None
        self.seed = None

    # --- references -------------------------------------------------------------------
    def _cache(self, references) -> References:
        """Prepare the streams once; metrics derive their reference tables from this
        ``References`` on first use and keep them on it, for every system scored."""
        per_response, self.num_refs = references_per_response(references, None, type(self).__name__)
        return References(per_response)

    def _references(self, references, n_hyps: int):
        what = type(self).__name__
        if references is not None:
            per_response, self.num_refs = references_per_response(references, n_hyps, what)
            return per_response
        if self._ref_cache is None:
            raise RuntimeError(f"{what}: no references given and none cached (pass references= when constructing "
                               f"the metric, or refs to corpus_score)")
        if len(self._ref_cache) != n_hyps:
            raise ValueError(f"{what}: {n_hyps} hypotheses but the cached references (references= at construction) "
                             f"hold {len(self._ref_cache)} segments")
        return self._ref_cache

    # --- scoring ------------------------------------------------------------------------
    def _evaluate(self, hypotheses, references) -> Evaluation[_S]:
        what = type(self).__name__
        hyps = check_hypotheses(hypotheses, what)
        self._check_tokenized(hyps)
        refs = self._references(references, len(hyps))
        # Transposed from sacrebleu's streams already: per response, never ambiguous.
        batch = make_batch(hyps, refs, None, [self._native], what=what, workers=self._native.workers,
                           layout="responses")
        chunk = self._native.update(batch)
        return Evaluation(self._score_of(chunk.statistics), self, batch, chunk)

    def _check_tokenized(self, hyps: list) -> None:
        """Hook for BLEU's warning about tokenized input."""

    @abstractmethod
    def _score_of(self, statistics) -> _S:
        """The subclass's score object from the summed fastamfm statistics."""

    def corpus_score(self, hypotheses, references, n_bootstrap: int = 1) -> _S:
        """The corpus score of ``hypotheses`` against reference streams.

        ``references``: ``refs[j][i]`` is the j-th reference of hypothesis i (``None``
        where i has fewer); ``None`` uses the streams cached at construction.
        ``n_bootstrap`` > 1: also the mean and 95% interval of that many bootstrap
        resamples (seed ``SACREBLEU_SEED``, default 12345), printed after the score.

        >>> from fastamfm.compat.sacrebleu.metrics import BLEU
        >>> BLEU().corpus_score(["the cat sat on the mat"], [["the cat sat on the mat"]]).score
        100.0...
        """
        evaluation = self._evaluate(hypotheses, references)
        score = evaluation.score
        if n_bootstrap > 1:
            self.n_bootstrap = n_bootstrap
            self.seed, seed = environment_seed()
            draws = bootstrap_draws(np.random.default_rng(seed), len(evaluation), n_bootstrap)
            score._set_confidence(evaluation.resampled(draws))
        return score

    def sentence_score(self, hypothesis: str, references) -> _S:
        """The score of one hypothesis against its references (a list of str; ``None``
        entries are skipped)."""
        what = type(self).__name__
        if not isinstance(hypothesis, str):
            raise TypeError(f"{what}: the hypothesis must be a string, got {type(hypothesis).__name__}")
        if isinstance(references, (str, bytes)) or not isinstance(references, Sequence):
            raise TypeError(f"{what}: the references of a sentence must be a list of strings, "
                            f"got {type(references).__name__}")
        return self._evaluate([hypothesis], [[ref] for ref in references]).score

    def get_signature(self) -> Signature:
        """The signature of the settings and of the references last scored."""
        return self._SIGNATURE_TYPE(vars(self))
