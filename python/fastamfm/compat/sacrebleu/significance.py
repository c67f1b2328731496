"""sacrebleu's paired significance tests (``PairedTest``): is each system's score
different from the baseline's (the first system)?

- ``"bs"``, paired bootstrap resampling (Koehn 2004, as Moses' script): both systems are
  scored on the same resamples of segments; the p-value compares the observed absolute
  difference with the resampled absolute differences shifted to mean 0.
- ``"ar"``, approximate randomization (Riezler & Maxwell 2005, as multeval): in each
  trial every segment's two outputs are swapped with probability 1/2.

Both count a resampled statistic strictly greater than the observed one, plus one:
``p = (1 + #{stat > observed}) / (R + 1)`` (sacrebleu's rule, so a system compared with
itself gets p = 1/(R+1); fastamfm's own ``compare_systems`` counts ties too). Draws are
sacrebleu's (``numpy.random.default_rng(SACREBLEU_SEED)``), every corpus score of a sample
comes from the summed segment statistics in fastamfm's core.
"""
from __future__ import annotations

import numpy as np

from ...analysis.resampling import bootstrap_draws, randomization_scores, randomization_swaps
from .metrics.base import confidence_halfwidth, environment_seed

TEST_TYPES = ("ar", "bs")
DEFAULT_SAMPLES = {"ar": 10000, "bs": 1000}


class Result:
    """One system's result on one metric: ``score``; ``p_value`` against the baseline
    (None for the baseline itself); ``mean`` and ``ci`` (95% half-width) of its
    bootstrap resamples, when estimated."""

    def __init__(self, score: float, p_value: float | None = None, mean: float | None = None,
                 ci: float | None = None):
        self.score = score
        self.p_value = p_value
        self.mean = mean
        self.ci = ci

    def __repr__(self) -> str:
        return ",".join(f"{k}={v}" for k, v in vars(self).items())


def estimate_ci(scores: np.ndarray) -> tuple[float, float]:
    """(mean, 95% half-width) of resampled scores."""
    scores = np.sort(np.asarray(scores, dtype=np.float64))
    return scores.mean(), confidence_halfwidth(scores)


def _p_value(statistics: np.ndarray, observed: float) -> float:
    return (int(np.count_nonzero(statistics > observed)) + 1) / (len(statistics) + 1)


class PairedTest:
    """Paired tests of every system against the first of ``named_systems``.

    ``named_systems``: [(name, hypotheses), ...], the baseline first; ``metrics``:
    {name: BLEU(...) or CHRF(...)}; ``references``: reference streams, or None to use
    each metric's cached ``references=``; ``test_type``: "ar" or "bs"; ``n_samples``:
    trials or resamples (0: 10000 for ar, 1000 for bs); ``n_ar_confidence``: bootstrap
    resamples for confidence intervals with "ar" (-1: none, 0: 1000). ``n_jobs`` is
    accepted for sacrebleu's signature; fastamfm's core already uses every core.

    Calling it returns ({metric: Signature}, {"System": names, metric: [Result, ...]}),
    the metrics keyed by their score names ("BLEU", "chrF2").

    >>> from fastamfm.compat.sacrebleu.metrics import BLEU
    >>> refs = [["the cat sat on the mat", "a dog barked"]]
    >>> test = PairedTest([("base", ["the cat sat", "a dog"]), ("new", ["the cat sat on the mat", "a dog"])],
    ...                   {"BLEU": BLEU()}, refs, test_type="bs", n_samples=100)
    >>> signatures, results = test()
    >>> results["System"], results["BLEU"][1].p_value is not None
    (['base', 'new'], True)
    """

    def __init__(self, named_systems, metrics, references, test_type: str = "ar", n_samples: int = 0,
                 n_ar_confidence: int = -1, n_jobs: int = 1):
        if test_type not in TEST_TYPES:
            raise ValueError(f"PairedTest: unknown test_type {test_type!r}; choose 'ar' or 'bs'")
        if len(named_systems) < 1:
            raise ValueError("PairedTest: no system given (the first one is the baseline)")
        self.test_type = test_type
        self._seed = environment_seed()[1]
        self.n_jobs = n_jobs
        self.references = references
        self.named_systems = named_systems
        self.n_ar_confidence = n_ar_confidence if n_ar_confidence != 0 else DEFAULT_SAMPLES["bs"]
        self.n_samples = n_samples if n_samples > 0 else DEFAULT_SAMPLES[test_type]
        self.n_systems = len(named_systems) - 1
        self.metrics = {}
        self._signatures = {}
        self._baseline = {}

        baseline_hyps = named_systems[0][1]
        confidence_n = self.n_samples if test_type == "bs" else self.n_ar_confidence
        for metric in metrics.values():
            evaluation = metric._evaluate(baseline_hyps, references)
            result = Result(evaluation.score.score)
            if confidence_n > 0:
                # sacrebleu seeds the baseline's own resamples afresh from the environment.
                draws = bootstrap_draws(np.random.default_rng(environment_seed()[1]), len(evaluation), confidence_n)
                result.mean, result.ci = estimate_ci(evaluation.resampled(draws))
            name = evaluation.score.name
            self._baseline[name] = (evaluation, result)
            self.metrics[name] = metric
            signature = metric.get_signature()
            signature.update("seed", str(self._seed).lower())
            signature.update(test_type, self.n_samples)
            if self.n_ar_confidence > 0:
                signature.update("bs", self.n_ar_confidence)
            self._signatures[name] = signature

    def __call__(self) -> tuple[dict, dict]:
        scores = {"System": [name for name, _ in self.named_systems]}
        for name, (_, result) in self._baseline.items():
            scores[name] = [result]
        for _, hyps in self.named_systems[1:]:
            # As sacrebleu: every system gets a generator seeded alike, and a seed of 0
            # counts as no seed.
            rng = np.random.default_rng(self._seed or None)
            results = self._bootstrap(rng, hyps) if self.test_type == "bs" else self._randomization(rng, hyps)
            for name, result in results.items():
                scores[name].append(result)
        return self._signatures, scores

    def _system(self, name: str, hyps):
        baseline, baseline_result = self._baseline[name]
        system = self.metrics[name]._evaluate(hyps, self.references)
        if len(system) != len(baseline):
            raise ValueError(f"PairedTest: a system has {len(system)} hypotheses, the baseline {len(baseline)}")
        return baseline, system, abs(baseline_result.score - system.score.score)

    def _bootstrap(self, rng: np.random.Generator, hyps) -> dict:
        draws = bootstrap_draws(rng, len(hyps), self.n_samples)
        results = {}
        for name in self.metrics:
            baseline, system, observed = self._system(name, hyps)
            system_scores = system.resampled(draws)
            mean, ci = estimate_ci(system_scores)
            differences = np.abs(system_scores - baseline.resampled(draws))
            p = _p_value(differences - differences.mean(), observed)
            results[name] = Result(system.score.score, p, mean, ci)
        return results

    def _randomization(self, rng: np.random.Generator, hyps) -> dict:
        # True where a trial's first pseudo-system takes the baseline's segment.
        swaps = randomization_swaps(rng, len(hyps), self.n_samples)
        draws = bootstrap_draws(rng, len(hyps), self.n_ar_confidence) if self.n_ar_confidence > 0 else None
        results = {}
        for name, metric in self.metrics.items():
            baseline, system, observed = self._system(name, hyps)
            column = metric._native.columns[0]
            first, second = randomization_scores(system.rows, baseline.rows, swaps)
            result = Result(system.score.score, _p_value(np.abs(first[column] - second[column]), observed))
            if draws is not None:
                result.mean, result.ci = estimate_ci(system.resampled(draws))
            results[name] = result
        return results
