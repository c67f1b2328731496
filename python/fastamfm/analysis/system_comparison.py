"""Is system B really better than system A? Paired significance tests of corpus scores
for every registered metric (``compare_systems``).

Every system is scored once through the one pipeline (references prepared once for all
of them); each metric gives its per-response ``SentenceStatistics`` and the resampling
runs on those (``resampling``): corpus BLEU from resampled n-gram counts, METEOR from
resampled statistics, Distinct-n from resampled n-gram sets, mean-type metrics (ROUGE-L,
CIDEr, AM, FM, embedding and neural metrics) from resampled sentence scores.

CIDEr's convention: its document frequencies come from the full reference set (all n
segments, as the corpus score counts them) and stay fixed in every resample; each
resample averages the sentence scores computed with them. Recounting them per resample
would count a segment drawn twice as two documents.

Distinct-n's bootstrap intervals sit below its score: a response drawn twice adds its
n-grams twice but no new distinct one. Approximate randomization draws no duplicates.

What is never marked significant, whatever its p-value (``SystemDifference.negligible``
says why; the printed table marks the row and explains the mark under the table):

- a difference smaller than ``min_difference`` (default ``DISPLAY_RESOLUTION``, half a
  unit of the table's fourth decimal): two scores that print the same are not called
  different;
- a difference between scores set by the metric's own smoothing constants
  (``Metric.epsilon_columns``: BLEU-k when an n-gram order up to k matched nothing in
  either system, where pycocoevalcap's 1e-15/1e-9 guards make a tiny number of a zero).

With fewer than ``MIN_RESPONSES`` paired responses the resampling tests are unreliable
(the bootstrap distribution of a handful of responses is coarse; randomization cannot
even reach small p-values): ``compare_systems`` warns, and the table says so.
"""
from __future__ import annotations

import json
import math
import warnings
from collections.abc import Mapping
from dataclasses import asdict, dataclass

import numpy as np

from .._validation import metrics_need
from ..pipeline import Pipeline
from ..progress import ProgressOption, reports_progress
from ..references import References
from ..registry import Chunk, MeanStatistics, SentenceStatistics
from ..streaming import DEFAULT_CHUNK_SIZE
from .multiple_testing import adjust_p_values, check_correction
from .resampling import (
    bootstrap_draws,
    bootstrap_p_value,
    bootstrap_scores,
    check_confidence,
    check_resamples,
    check_seed,
    percentile_interval,
    randomization_p_value,
    randomization_scores,
    randomization_swaps,
)

METHODS = ("bootstrap", "randomization")
# Differences below half a unit of the printed table's last (fourth) decimal are never marked.
DISPLAY_RESOLUTION = 0.5e-4
# Below this many paired responses the tests are unreliable: a warning, and a note in the table.
MIN_RESPONSES = 30
NEGLIGIBLE_MARKS = {"precision": "≈", "epsilon": "ε"}


@dataclass(frozen=True)
class SystemDifference:
    """One system's score on one metric column, against the baseline's.

    ``score_low``/``score_high``: the bootstrap interval of the system's own score;
    ``difference`` = score − baseline score, with its paired bootstrap interval
    ``ci_low``/``ci_high``; ``p_value`` the two-sided p-value of the chosen test and
    ``p_adjusted`` after the multiple-comparison correction (both nan on the baseline's
    own row); ``significant``: ``p_adjusted < alpha`` and the difference is not
    ``negligible``: ``"precision"`` (smaller than the comparison's ``min_difference``) or
    ``"epsilon"`` (both scores set by the metric's smoothing constants), else ``""``.
    """

    system: str
    metric: str
    score: float
    score_low: float
    score_high: float
    baseline_score: float
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    p_adjusted: float
    significant: bool
    negligible: str = ""


class SystemComparison:
    """The result of ``compare_systems``: one ``SystemDifference`` per system and metric
    column; ``table.p_value("S_2", "Bleu_4")``, ``table["S_2", "Bleu_4"]``."""

    def __init__(self, rows, *, baseline: str, method: str, resamples: int, seed: int, confidence: float,
                 alpha: float, correction: str, signatures: Mapping, n: int | None = None,
                 min_difference: float = DISPLAY_RESOLUTION):
        self.rows = tuple(rows)
        self.n = n
        self.min_difference = min_difference
        self.baseline = baseline
        self.method = method
        self.resamples = resamples
        self.seed = seed
        self.confidence = confidence
        self.alpha = alpha
        self.correction = correction
        self.signatures = dict(signatures)

    @property
    def systems(self) -> list:
        return list(dict.fromkeys(r.system for r in self.rows))

    @property
    def metrics(self) -> list:
        return list(dict.fromkeys(r.metric for r in self.rows))

    def __getitem__(self, key) -> SystemDifference:
        system, metric = key
        for row in self.rows:
            if row.system == system and row.metric == metric:
                return row
        raise KeyError(f"no comparison for system {system!r} and metric {metric!r}; systems {self.systems}, "
                       f"metrics {self.metrics}")

    def p_value(self, system: str, metric: str) -> float:
        """The (uncorrected) p-value of ``system`` against the baseline on ``metric``."""
        return self[system, metric].p_value

    def significant(self, metric: str) -> list:
        """The systems whose difference from the baseline on ``metric`` is significant."""
        return [r.system for r in self.rows if r.metric == metric and r.significant]

    def __iter__(self):
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def describe(self) -> str:
        """The test's settings in one line (sacrebleu-style signature)."""
        return (f"{self.method}:{self.resamples}|seed:{self.seed}|ci:{self.confidence:g}|"
                f"correction:{self.correction}|alpha:{self.alpha:g}|baseline:{self.baseline}")

    def to_records(self) -> list[dict]:
        return [asdict(r) for r in self.rows]

    def to_dict(self) -> dict:
        """Everything, JSON-ready (nan as None)."""
        def clean(v):
            return None if isinstance(v, float) and math.isnan(v) else v

        return {"baseline": self.baseline, "method": self.method, "resamples": self.resamples, "seed": self.seed,
                "confidence": self.confidence, "alpha": self.alpha, "correction": self.correction,
                "n": self.n, "min_difference": self.min_difference, "notes": self.notes(),
                "settings": self.describe(), "signatures": self.signatures,
                "rows": [{k: clean(v) for k, v in r.items()} for r in self.to_records()]}

    def small_sample(self) -> str | None:
        """Why these tests are unreliable for this few responses, or None."""
        if self.n is None or self.n >= MIN_RESPONSES:
            return None
        return small_sample_note(self.n, self.method, self.alpha)

    def notes(self) -> list:
        """What the printed table notes under it: a small sample, and each mark of a
        difference left unmarked although its p-value is below alpha."""
        notes = []
        small = self.small_sample()
        if small:
            notes.append(f"note: {small}")
        kinds = {r.negligible for r in self.rows if r.negligible and r.p_adjusted < self.alpha}
        if "precision" in kinds:
            notes.append(f"{NEGLIGIBLE_MARKS['precision']} p < {self.alpha:g} but |Δ| < {self.min_difference:g} "
                         f"(below the table's precision): not marked significant")
        if "epsilon" in kinds:
            notes.append(f"{NEGLIGIBLE_MARKS['epsilon']} p < {self.alpha:g} but both scores come from the metric's "
                         f"smoothing constants (BLEU-k with an n-gram order that matched nothing: a tiny number "
                         f"standing for 0): not marked significant")
        return notes

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def to_pandas(self):
        import pandas as pd

        return pd.DataFrame(self.to_records())

    def __str__(self) -> str:
        test = {"bootstrap": "Paired bootstrap resampling", "randomization": "Paired approximate randomization"}
        level = f"{self.confidence * 100:g}%"
        adjusted = "" if self.correction == "none" else f" {self.correction.capitalize()}-adjusted per metric"
        size = "" if self.n is None else f"{self.n} paired responses; "
        lines = [f"{test[self.method]}: {size}{self.resamples} resamples, seed {self.seed}; {level} bootstrap "
                 f"intervals; * = p{adjusted} < {self.alpha:g}; baseline {self.baseline}"]
        width = max(8, *(len(s) + 2 for s in self.systems))
        mwidth = max(8, *(len(m) + 2 for m in self.metrics))
        header = (f"{'metric':<{mwidth}}{'system':<{width}}{'score':>9}  {level + ' CI':<19}{'Δ':>9}  "
                  f"{level + ' CI of Δ':<21}{'p':>8}")
        if self.correction != "none":
            header += f"{'p adj':>8}"
        lines.append(header)
        for metric in self.metrics:
            first = True
            for r in (r for r in self.rows if r.metric == metric):
                label = metric if first else ""
                first = False
                line = (f"{label:<{mwidth}}{r.system:<{width}}{r.score:>9.4f}  "
                        f"{f'[{r.score_low:.4f}, {r.score_high:.4f}]':<19}")
                if r.system == self.baseline:
                    line += "  (baseline)"
                else:
                    line += (f"{r.difference:>+9.4f}  {f'[{r.ci_low:+.4f}, {r.ci_high:+.4f}]':<21}"
                             f"{r.p_value:>8.4f}")
                    if self.correction != "none":
                        line += f"{r.p_adjusted:>8.4f}"
                    if r.significant:
                        line += " *"
                    elif r.negligible and r.p_adjusted < self.alpha:
                        line += f" {NEGLIGIBLE_MARKS[r.negligible]}"
                lines.append(line.rstrip())
        lines += self.notes()
        return "\n".join(lines)

    __repr__ = __str__


def scored_together(pipeline: Pipeline, batches: dict) -> dict:
    """{metric name: {system: Chunk}} of the metrics that score every system at once
    (``Metric.scores_systems_together``), when the systems are scored reference-free: response
    i of every system side by side in one ``update``, so that the LM reads the context they
    answer once (a 10-turn context is ~15 times the tokens of the reply), in groups of
    ``DEFAULT_CHUNK_SIZE`` responses (the memory bound of ``evaluate``'s chunks), then split
    back per system. A response's numbers are those of scoring its system alone up to float
    rounding (the prefix tree's; ``NeuralLM``)."""
    first = next(iter(batches.values()))
    metrics = [m for m in pipeline.metrics if m.scores_systems_together]
    if first.refs is not None or first.contexts is None or len(batches) < 2 or not metrics:
        return {}
    joint = Pipeline(metrics, workers=pipeline.workers)
    names, n = list(batches), len(first)
    step = max(1, DEFAULT_CHUNK_SIZE // len(names))
    parts: dict[str, dict[str, list[dict[str, np.ndarray]]]] = {m.name: {name: [] for name in names}
                                                               for m in metrics}
    for start in range(0, n, step):
        rows = range(start, min(n, start + step))
        hyps = [batches[name].hyps.texts[i] for i in rows for name in names]
        contexts = [first.contexts[i] for i in rows for _ in names]
        for metric, chunk in joint.score_chunks(joint.batch(hyps, None, contexts, what="compare_systems")).items():
            if not isinstance(chunk.statistics, MeanStatistics):
                raise TypeError(f"metric {metric!r} sets scores_systems_together, but its corpus score comes "
                                f"from {type(chunk.statistics).__name__}, not from a mean of its columns")
            for k, name in enumerate(names):
                parts[metric][name].append({c: v[k::len(names)] for c, v in chunk.columns.items()})
    out: dict[str, dict[str, Chunk]] = {}
    for metric in metrics:
        out[metric.name] = {}
        for name in names:
            columns = {c: np.concatenate([p[c] for p in parts[metric.name][name]]) for c in parts[metric.name][name][0]}
            out[metric.name][name] = Chunk(columns=columns, statistics=MeanStatistics.of(columns))
    return out


def _check_systems(systems) -> dict:
    if not isinstance(systems, Mapping):
        raise TypeError(f"systems must be a mapping {{name: responses}}, got {type(systems).__name__}")
    systems = {str(k): v for k, v in systems.items()}
    if len(systems) < 2:
        raise ValueError(f"compare_systems needs at least two systems (a baseline and one to compare), got "
                         f"{len(systems)}: {list(systems)}")
    sizes = {}
    for name, hyps in systems.items():
        if isinstance(hyps, (str, bytes)) or not hasattr(hyps, "__len__"):
            raise TypeError(f"systems[{name!r}] must be a sequence of responses, got {type(hyps).__name__}")
        sizes[name] = len(hyps)
    first = next(iter(sizes))
    for name, size in sizes.items():
        if size != sizes[first]:
            raise ValueError(f"systems[{name!r}] has {size} responses but systems[{first!r}] has {sizes[first]}: "
                             f"paired tests compare the systems response by response")
    if sizes[first] < 2:
        raise ValueError(f"compare_systems needs at least 2 responses per system to resample, got {sizes[first]}")
    return systems


def small_sample_note(n: int, method: str, alpha: float) -> str:
    """Why ``method`` is unreliable on ``n`` paired responses (n below ``MIN_RESPONSES``)."""
    if method == "randomization":
        floor = 2.0 ** (1 - n)
        reach = (f"no p-value can go below {floor:.2g}, so nothing can be significant at {alpha:g}"
                 if floor >= alpha else "its p-values move in coarse steps")
        return (f"only {n} paired responses: approximate randomization has 2^{n} = {2 ** n} distinct swaps, "
                f"{reach}; compare systems on at least {MIN_RESPONSES} responses")
    return (f"only {n} paired responses: the bootstrap of so few responses is too coarse for its intervals "
            f"and p-values to be trusted; compare systems on at least {MIN_RESPONSES} responses")


def _check_min_difference(min_difference) -> float:
    if isinstance(min_difference, bool) or not isinstance(min_difference, (int, float)) or \
            not min_difference >= 0:
        raise ValueError(f"min_difference must be a number >= 0, got {min_difference!r}")
    return float(min_difference)


def _check_settings(method, resamples, seed, confidence, correction, alpha) -> tuple:
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    return check_resamples(resamples), check_seed(seed), check_confidence(confidence), check_correction(correction)


class ScoredSystems:
    """Every system scored once through the one pipeline, references prepared once:
    ``corpus`` {system: {column: corpus score}}, ``statistics`` {system: {metric:
    SentenceStatistics}}, ``signatures`` {metric: signature}. ``compare`` runs a test
    against any baseline without scoring again (``compare_systems`` is
    ``ScoredSystems.score(...).compare(...)``)."""

    def __init__(self, corpus: dict, statistics: dict, signatures: dict, epsilon: dict | None = None):
        self.corpus = corpus
        self.statistics = statistics
        self.signatures = signatures
        # {system: columns whose corpus score is set by the metric's smoothing constants}
        self.epsilon = epsilon or {name: frozenset() for name in corpus}

    @classmethod
    @reports_progress
    def score(cls, systems, refs=None, contexts=None, *, metrics=None, progress: ProgressOption = None,
              **options) -> "ScoredSystems":
        """Score ``systems`` ({name: responses}, all of the same length) on ``metrics``
        (see ``compare_systems``)."""
        systems = _check_systems(systems)
        pipeline = Pipeline.from_names(metrics, what="compare_systems", **options)
        n = len(next(iter(systems.values())))
        if refs is not None and not isinstance(refs, References):
            refs = References.of(refs, n, what="compare_systems", workers=pipeline.workers)
            # Scored by every system: keep what each metric derives from them.
            refs.reusable = True
        if pipeline.needs_reference_pass:
            if refs is None:
                raise ValueError(f"compare_systems: {metrics_need(pipeline.names)} references (refs=)")
            # CIDEr: document frequencies of the full reference set, the same for every system.
            pipeline = pipeline.with_reference_statistics(pipeline.reference_statistics(refs))
        batches = {name: pipeline.batch(hyps, refs, contexts, what=f"compare_systems: systems[{name!r}]")
                   for name, hyps in systems.items()}
        together = scored_together(pipeline, batches)
        unshared = [m for m in pipeline.metrics if m.name not in together]
        rest = Pipeline(unshared, workers=pipeline.workers) if unshared else None
        corpus: dict[str, dict[str, float]] = {}
        statistics: dict[str, dict[str, SentenceStatistics]] = {}
        epsilon: dict[str, frozenset] = {}
        for name, batch in batches.items():
            chunks = {**(rest.score_chunks(batch) if rest else {}),
                      **{metric: per[name] for metric, per in together.items()}}
            corpus[name], statistics[name], epsilon[name] = {}, {}, frozenset()
            for metric in pipeline.metrics:
                corpus[name].update(metric.compute(chunks[metric.name].statistics))
                statistics[name][metric.name] = metric.sentence_statistics(batch, chunks[metric.name])
                epsilon[name] |= metric.epsilon_columns(chunks[metric.name].statistics)
        return cls(corpus, statistics, pipeline.signatures(), epsilon)

    @property
    def systems(self) -> list:
        return list(self.corpus)

    @property
    def columns(self) -> list:
        return list(next(iter(self.corpus.values())))

    def best(self, column: str) -> str:
        """The system with the highest corpus score on ``column``."""
        return max(self.corpus, key=lambda s: self.corpus[s][column])

    def compare(self, *, baseline: str | None = None, method: str = "bootstrap", resamples: int = 1000,
                seed: int = 0, correction: str = "holm", confidence: float = 0.95,
                alpha: float = 0.05, min_difference: float = DISPLAY_RESOLUTION) -> SystemComparison:
        """Every system against ``baseline`` (default: the first); see ``compare_systems``."""
        resamples, seed, confidence, correction = _check_settings(method, resamples, seed, confidence, correction,
                                                                  alpha)
        min_difference = _check_min_difference(min_difference)
        systems = self.systems
        if baseline is None:
            baseline = systems[0]
        if baseline not in self.corpus:
            raise ValueError(f"baseline {baseline!r} is not one of the systems {systems}")
        corpus, statistics = self.corpus, self.statistics
        n = len(next(iter(statistics[baseline].values())))
        if n < MIN_RESPONSES:
            warnings.warn(f"compare_systems: {small_sample_note(n, method, alpha)}", RuntimeWarning, stacklevel=3)
        rng = np.random.default_rng(seed)
        swaps = randomization_swaps(rng, n, resamples) if method == "randomization" else None
        draws = bootstrap_draws(rng, n, resamples)

        # Every system's resampled scores, column by column, on the same draws.
        keys = [(name, metric) for name, per_metric in statistics.items() for metric in per_metric]
        resampled: dict[str, dict[str, np.ndarray]] = {name: {} for name in systems}
        for (name, metric), scores in zip(keys, bootstrap_scores([statistics[k][m] for k, m in keys], draws)):
            resampled[name].update(scores)
        others = [s for s in systems if s != baseline]
        trials = {}
        if swaps is not None:
            for name in others:
                for metric, stats in statistics[name].items():
                    pseudo_base, pseudo_system = randomization_scores(statistics[baseline][metric], stats, swaps)
                    for column in pseudo_base:
                        trials[name, column] = pseudo_system[column] - pseudo_base[column]

        rows = []
        for column in corpus[baseline]:
            base = corpus[baseline][column]
            raw = {}
            for name in others:
                observed = corpus[name][column] - base
                if swaps is None:
                    raw[name] = bootstrap_p_value(resampled[name][column] - resampled[baseline][column], observed)
                else:
                    raw[name] = randomization_p_value(trials[name, column], observed)
            adjusted = dict(zip(others, adjust_p_values([raw[s] for s in others], correction)))
            for name in systems:
                score = corpus[name][column]
                score_low, score_high = percentile_interval(resampled[name][column], confidence)
                if name == baseline:
                    rows.append(SystemDifference(name, column, score, score_low, score_high, base, 0.0, 0.0, 0.0,
                                                 math.nan, math.nan, False))
                    continue
                ci_low, ci_high = percentile_interval(resampled[name][column] - resampled[baseline][column],
                                                      confidence)
                negligible = ("epsilon" if column in self.epsilon[name] and column in self.epsilon[baseline] else
                              "precision" if abs(score - base) < min_difference else "")
                rows.append(SystemDifference(name, column, score, score_low, score_high, base, score - base, ci_low,
                                             ci_high, raw[name], float(adjusted[name]),
                                             bool(adjusted[name] < alpha) and not negligible, negligible))
        return SystemComparison(rows, baseline=baseline, method=method, resamples=resamples, seed=seed,
                                confidence=confidence, alpha=alpha, correction=correction,
                                signatures=self.signatures, n=n, min_difference=min_difference)


@reports_progress
def compare_systems(systems, refs=None, contexts=None, *, metrics=None, baseline: str | None = None,
                    method: str = "bootstrap", resamples: int = 1000, seed: int = 0, correction: str = "holm",
                    confidence: float = 0.95, alpha: float = 0.05, min_difference: float = DISPLAY_RESOLUTION,
                    progress: ProgressOption = None, **options) -> SystemComparison:
    """Paired significance of every system's difference from ``baseline`` on every metric.

    ``systems``: ``{name: responses}``, all answering the same n inputs in the same order;
    ``refs``/``contexts`` as for ``evaluate`` (shared by all systems); ``metrics``:
    registry names (default: nlg-eval's set, as ``evaluate``); ``options``: the metrics'
    options, as for ``evaluate``. ``baseline``: a system name (default: the first).

    ``method="bootstrap"``: paired bootstrap resampling (Koehn 2004), the p-value rule of
    ``sacrebleu --paired-bs``; ``"randomization"``: paired approximate randomization
    (``sacrebleu --paired-ar``). Both resample the responses ``resamples`` times with
    ``numpy.random.default_rng(seed)`` drawing as sacrebleu does, the same draws for
    every system and metric. The intervals (``confidence``) are percentile intervals of
    the paired bootstrap in both cases. ``correction``: ``"holm"`` (default),
    ``"bonferroni"`` or ``"none"``, over the systems compared on each metric column;
    ``alpha`` sets what is marked significant; a difference smaller than
    ``min_difference`` (default: below the printed table's precision), or between two
    scores set by the metric's smoothing constants, never is (see the module docstring).
    Fewer than ``MIN_RESPONSES`` paired responses: a ``RuntimeWarning`` and a note in the table.

    Corpus-level metrics are resampled from their summable per-response statistics
    (BLEU's n-gram counts and lengths, METEOR's 23 statistics, Distinct's n-gram sets),
    mean-type metrics from their sentence scores; CIDEr keeps the document frequencies of
    the full reference set (see the module docstring). To test against several
    baselines without scoring again: ``ScoredSystems.score(...).compare(...)``.
    ``progress``: per metric, forward batch and block of resamples (``fastamfm.progress``).

    Parameters
    ----------
    systems : mapping of str to sequence of str
        ``{name: responses}``: at least two systems, each with the same n >= 2 responses.
    refs : sequence of sequences of str, or References, optional
        The references, shared by every system (as for ``evaluate``).
    contexts : sequence, optional
        The dialogue contexts, for reference-free metrics.
    metrics : str or sequence of str, optional
        Registry names, nlg-eval keys or aliases; None: nlg-eval's set.
    baseline : str, optional
        The system the others are compared with; None: the first.
    method : {"bootstrap", "randomization"}, default "bootstrap"
        Paired bootstrap resampling or paired approximate randomization.
    resamples : int, default 1000
        How many resamples (a positive integer).
    seed : int, default 0
        The seed of ``numpy.random.default_rng`` (a non-negative integer).
    correction : {"holm", "bonferroni", "none"}, default "holm"
        The multiple-comparison correction over the systems, per metric column.
    confidence : float, default 0.95
        The level of the intervals, in (0, 1).
    alpha : float, default 0.05
        Adjusted p-values below it are significant, in (0, 1).
    min_difference : float, optional
        A difference smaller than this (>= 0) is never significant; default: the printed
        table's precision.
    progress : bool or callable, optional
        ``fastamfm.progress``'s option.
    **options
        The metrics' settings, as for ``evaluate``.

    Returns
    -------
    SystemComparison
        One ``SystemDifference`` per system and metric column (``table["S_2", "Bleu_4"]``,
        ``table.p_value(...)``); ``str(table)`` is the printed table.

    Raises
    ------
    TypeError
        ``systems`` not a mapping, or a system's responses not a sequence.
    ValueError
        Fewer than two systems or two responses, systems of different lengths, an unknown
        ``baseline``, a setting out of range, or what ``evaluate`` rejects.

    Examples
    --------
    >>> import fastamfm
    >>> refs = [["the cat sat on the mat"], ["a dog ran in the park"], ["it is raining"],
    ...         ["we are going home"], ["i like green tea"]] * 6
    >>> systems = {"base": ["the cat sat", "a dog ran", "it rains", "we go home", "i like tea"] * 6,
    ...            "new": ["the cat sat on the mat", "a dog ran in the park", "it is raining",
    ...                    "we are going home", "i like tea"] * 6}
    >>> table = fastamfm.compare_systems(systems, refs, metrics=["rouge_l"], resamples=200, progress=False)
    >>> row = table["new", "ROUGE_L"]
    >>> round(row.difference, 6), round(row.p_value, 6), row.significant
    (0.359823, 0.004975, True)
    """
    systems = _check_systems(systems)
    _check_settings(method, resamples, seed, confidence, correction, alpha)
    _check_min_difference(min_difference)
    if baseline is not None and baseline not in systems:
        raise ValueError(f"baseline {baseline!r} is not one of the systems {list(systems)}")
    scored = ScoredSystems.score(systems, refs, contexts, metrics=metrics, **options)
    return scored.compare(baseline=baseline, method=method, resamples=resamples, seed=seed, correction=correction,
                          confidence=confidence, alpha=alpha, min_difference=min_difference)
