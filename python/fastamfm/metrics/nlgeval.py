"""nlg-eval drop-in: ``compute_metrics``, ``compute_individual_metrics`` and the
``NLGEval`` class, as nlg-eval's users call them, on the one metric pipeline.

Keys are nlg-eval's: ``Bleu_1``..``Bleu_4``, ``METEOR``, ``ROUGE_L``, ``CIDEr``,
``EmbeddingAverageCosineSimilarity`` (and the misspelled ``...Similairty`` nlg-eval
emits beside it), ``VectorExtremaCosineSimilarity``, ``GreedyMatchingScore``. The
default key set is nlg-eval's; fastamfm's own metrics (``AM``, ``FM``, ``AM-FM``,
the neural ones) come only when asked for. A metric whose resources are missing
(word vectors, METEOR data) is left out, never replaced by a wrong number: in one INFO log
line saying how to enable it when it only came with nlg-eval's default set (the embedding
metrics without ``vectors=``: expected), with a warning when it was asked for by name.
SkipThought and SPICE are not provided: asking for them by name is an error that says so;
``NLGEval()``'s defaults (which include SkipThought) note it in an INFO log line.
"""
from __future__ import annotations

import logging
import os

from .. import registry
from ..io.readers import read_line_columns, read_lines
from ..pipeline import Pipeline
from ..references import References

# nlg-eval's switches.
NLGEVAL_SWITCHES = ("no_overlap", "no_skipthoughts", "no_glove")
OVERLAP_KEYS = ("Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "METEOR", "ROUGE_L", "CIDEr", "SPICE")
GLOVE_KEYS = ("EmbeddingAverageCosineSimilarity", "VectorExtremaCosineSimilarity", "GreedyMatchingScore")
# nlg-eval emits this misspelled key beside EmbeddingAverageCosineSimilarity, same value.
MISSPELLED_EMBEDDING_AVERAGE = "EmbeddingAverageCosineSimilairty"
# Metrics nlg-eval knows that fastamfm does not compute (they need TensorFlow-era
# SkipThought models, or Java + Stanford CoreNLP for SPICE).
NOT_PROVIDED = {
    "SkipThoughtCS": "SkipThought cosine similarity is not provided by fastamfm (nlg-eval's SkipThought models "
                     "are not available); omit it (no_skipthoughts=True / metrics_to_omit=['SkipThoughtCS'])",
    "SPICE": "SPICE is not provided by fastamfm (it needs Java and Stanford CoreNLP scene graphs); "
             "omit it (metrics_to_omit=['SPICE'])",
}
log = logging.getLogger(__name__)
# nlg-eval's compute_individual_metrics splits a single string into references on this.
INDIVIDUAL_REF_SEPARATOR = "||<|>||"


def _bleu_orders_kept(omitted) -> int:
    """nlg-eval's rule: omitting Bleu_i drops Bleu_i and every higher order."""
    for i in range(1, 5):
        if f"Bleu_{i}" in omitted:
            return i - 1
    return 4


def _plan(keys) -> tuple[list, dict, list]:
    """Requested keys -> (metric names, per-metric options, the keys to report in order)."""
    names, per_metric, out_keys = [], {}, []
    bleu_orders = [int(k.split("_")[1]) for k in keys if k.startswith("Bleu_") and k[5:].isdigit()]
    for key in keys:
        if key in NOT_PROVIDED:
            raise ValueError(NOT_PROVIDED[key])
        if key == MISSPELLED_EMBEDDING_AVERAGE:
            key = "EmbeddingAverageCosineSimilarity"
        metric = registry.metric_class(key)
        if metric.name not in names:
            names.append(metric.name)
        # A metric's name asks for all its columns (deep_amfm is also the name of one of
        # them); a column's name for that column alone.
        columns = [key] if key in metric.columns and key != metric.name else list(metric.columns)
        if metric.name == "bleu":
            per_metric["bleu"] = {"max_order": max(bleu_orders) if bleu_orders else 4}
            if key not in metric.columns:
                columns = [f"Bleu_{k}" for k in range(1, per_metric["bleu"]["max_order"] + 1)]
        for c in columns:
            if c not in out_keys:
                out_keys.append(c)
    return names, per_metric, out_keys


def _pipeline(keys, options: dict, what: str, defaults: bool = False) -> tuple[Pipeline, list]:
    """The pipeline that computes ``keys`` (nlg-eval names, registry names or aliases),
    and the keys to report, in order. ``defaults``: the keys are nlg-eval's default set,
    not named by the caller (a metric that cannot run is then an INFO line, not a warning)."""
    names, per_metric, out_keys = _plan(keys)
    for name, settings in per_metric.items():
        options = {**options, name: {**settings, **options.get(name, {})}}
    return Pipeline.from_names(names, what=what, defaults=defaults, **options), out_keys


def _report(corpus: dict, out_keys: list) -> dict:
    """nlg-eval's result dict: the asked keys present in ``corpus``, and the misspelled
    twin of the embedding-average key."""
    out = {}
    for key in out_keys:
        if key in corpus:
            out[key] = float(corpus[key])
            if key == "EmbeddingAverageCosineSimilarity":
                out[MISSPELLED_EMBEDDING_AVERAGE] = out[key]
    return out


def _default_keys(no_overlap: bool, no_glove: bool, omitted=()) -> list:
    omitted = set(omitted)
    keys = [f"Bleu_{k}" for k in range(1, _bleu_orders_kept(omitted) + 1)] if not no_overlap else []
    if not no_overlap:
        keys += [k for k in ("METEOR", "ROUGE_L", "CIDEr") if k not in omitted]
    if not no_glove:
        keys += [k for k in GLOVE_KEYS if k not in omitted]
    return keys


def _load(hypothesis, references) -> tuple[list, object]:
    """File paths (nlg-eval) or in-memory lists -> (hyps, refs)."""
    if not isinstance(hypothesis, (str, os.PathLike)):
        return hypothesis, references
    hyps = read_lines(hypothesis)
    if isinstance(references, References):
        refs = references  # prepared once, reused for every system file
    else:
        paths = [references] if isinstance(references, (str, os.PathLike)) else list(references)
        if not paths:
            raise ValueError("compute_metrics: references is empty (give one or more reference files)")
        if not all(isinstance(p, (str, os.PathLike)) for p in paths):
            raise TypeError("compute_metrics: with a hypothesis file, references must be reference file "
                            "paths or a fastamfm.References")
        refs = References.from_columns(read_line_columns(paths))
    if len(hyps) != len(refs):
        raise ValueError(f"compute_metrics: {os.fspath(hypothesis)} has {len(hyps)} lines but the reference "
                         f"files have {len(refs)}")
    return hyps, refs


def compute_metrics(hypothesis, references, metrics=None, *, no_overlap: bool = False, no_skipthoughts: bool = True,
                    no_glove: bool = False, layout: str | None = None, **options) -> dict[str, float]:
    """nlg-eval's ``compute_metrics``: corpus scores under nlg-eval's key names.

    ``hypothesis``: a file with one response per line, and ``references``: files
    line-aligned with it (nlg-eval's layout) or a ``fastamfm.References`` prepared once
    for many system files; or ``hypothesis`` as a list of str and ``references`` as
    per-response reference lists (``references[i]``: those of ``hypothesis[i]``; not
    nlg-eval's streams, which ``NLGEval.compute_metrics(ref_list=)`` takes) or a
    ``fastamfm.References``. In-memory lists that fit both layouts warn
    (``AmbiguousReferencesWarning``); ``layout="streams"`` reads them as streams
    (``references[j][i]``), ``layout="responses"`` says per response. ``metrics``: keys or
    registry names (default: nlg-eval's set, less what ``no_overlap``/``no_glove`` drop;
    ``"am"``, ``"fm"``, ``"amfm"`` add fastamfm's own). ``options``: ``workers`` and the
    metrics' settings (``vectors=`` for the embedding metrics, ``model=`` for AM-FM,
    ``meteor_resources=``, ``tokenize=``/``lowercase=`` for the overlap metrics, or a
    dict per metric, e.g. ``bleu={"max_order": 2}``).

    Parameters
    ----------
    hypothesis : path or sequence of str
        A file with one response per line, or the responses.
    references : path, sequence of paths, sequence of sequences of str, or References
        Reference files line-aligned with a hypothesis file; per-response reference
        lists with in-memory responses; or a ``References`` either way.
    metrics : str or sequence of str, optional
        nlg-eval keys (``"Bleu_4"``, ``"ROUGE_L"``), registry names or aliases; None:
        nlg-eval's default set.
    no_overlap : bool, default False
        Drop the overlap metrics (BLEU, METEOR, ROUGE-L, CIDEr), as nlg-eval's switch.
    no_skipthoughts : bool, default True
        SkipThought is not provided; False only notes that in an INFO log line.
    no_glove : bool, default False
        Drop the embedding metrics.
    layout : {None, "responses", "streams"}, optional
        How in-memory ``references`` are laid out (see ``References.of``).
    **options
        ``workers`` and the metrics' settings; a dict under a metric's name sets that one.

    Returns
    -------
    dict of str to float
        Corpus score per key, in the order asked; a metric that cannot run here is left out.

    Raises
    ------
    ValueError
        An unknown metric, SkipThoughtCS or SPICE by name, files or lists of different
        lengths, an empty reference list, a bad option.
    TypeError
        Reference paths mixed with other things beside a hypothesis file; inputs that are
        not strings.
    OSError
        A file that cannot be read.

    Examples
    --------
    >>> import fastamfm
    >>> scores = fastamfm.compute_metrics(["the cat sat on the mat", "a dog ran"],
    ...                                   [["the cat sat on a mat", "a cat was on the mat"], ["the dog ran away"]],
    ...                                   metrics=["Bleu_1", "Bleu_2", "ROUGE_L", "CIDEr"])
    >>> {key: round(score, 6) for key, score in scores.items()}
    {'Bleu_1': 0.695986, 'Bleu_2': 0.730633, 'ROUGE_L': 0.695205, 'CIDEr': 3.605474}
    """
    if metrics is None:
        keys = _default_keys(no_overlap, no_glove)
    else:
        keys = [metrics] if isinstance(metrics, str) else list(metrics)
        dropped = (set(OVERLAP_KEYS) if no_overlap else set()) | (set(GLOVE_KEYS) if no_glove else set())
        keys = [k for k in keys if k not in dropped]
    if not no_skipthoughts and metrics is None:
        log.info("compute_metrics: %s; left out", NOT_PROVIDED["SkipThoughtCS"])
    if not keys:
        return {}
    pipeline, out_keys = _pipeline(keys, options, "compute_metrics", defaults=metrics is None)
    hyps, refs = _load(hypothesis, references)
    return _report(pipeline.score(hyps, refs, what="compute_metrics", layout=layout).corpus, out_keys)


def compute_individual_metrics(ref, hyp: str, **options) -> dict[str, float]:
    """nlg-eval's ``compute_individual_metrics``: one hypothesis against its references.

    ``ref``: a list of reference strings (or one string, split on nlg-eval's separator
    ``"||<|>||"``). Like nlg-eval, CIDEr of a single segment is 0. Accepts ``metrics=``
    and the options of ``compute_metrics``.

    Parameters
    ----------
    ref : sequence of str, or str
        The references of ``hyp`` (a str: split on ``"||<|>||"``); each is stripped.
    hyp : str
        The response (stripped).
    **options
        ``metrics=`` and the other options of ``compute_metrics``.

    Returns
    -------
    dict of str to float
        The scores of this one segment under nlg-eval's keys.

    Raises
    ------
    TypeError
        ``hyp`` not a str; references that are not strings.
    ValueError
        As ``compute_metrics``; no reference.

    Examples
    --------
    >>> import fastamfm
    >>> scores = fastamfm.compute_individual_metrics(["the cat sat on a mat", "a cat was on the mat"],
    ...                                              "the cat sat on the mat", metrics=["Bleu_1", "ROUGE_L", "CIDEr"])
    >>> {key: round(score, 6) for key, score in scores.items()}
    {'Bleu_1': 0.833333, 'ROUGE_L': 0.833333, 'CIDEr': 0.0}
    """
    if not isinstance(hyp, str):
        raise TypeError(f"compute_individual_metrics: hyp must be a str, got {type(hyp).__name__}")
    if isinstance(ref, str):
        ref = ref.split(INDIVIDUAL_REF_SEPARATOR)
    ref = [r.strip() if isinstance(r, str) else r for r in ref]
    metrics = options.pop("metrics", None)
    return compute_metrics([hyp.strip()], [ref], metrics=metrics, **options)


class NLGEval:
    """nlg-eval's ``NLGEval``: choose the metrics once, then score many times.

    ``metrics_to_omit``: nlg-eval's key names (omitting ``Bleu_i`` drops ``Bleu_i`` and
    the higher orders, as nlg-eval does). ``no_skipthoughts=False`` (nlg-eval's default)
    leaves SkipThought out (not provided), saying so in an INFO log line; ``no_glove=False``
    needs ``vectors=`` (any GloVe/word2vec/fastText file: nlg-eval's GloVe 6B when you have
    it), else the embedding metrics are left out, in the same INFO line. Other keyword
    options are the metrics' settings, as for ``compute_metrics``. Its
    ``compute_metrics(ref_list, hyp_list)`` takes reference streams, as nlg-eval's does.

    Parameters
    ----------
    no_overlap : bool, default False
        Leave out BLEU, METEOR, ROUGE-L and CIDEr.
    no_skipthoughts : bool, default False
        SkipThought is never computed; False only says so in an INFO log line.
    no_glove : bool, default False
        Leave out the embedding metrics.
    metrics_to_omit : iterable of str, optional
        nlg-eval key names to leave out.
    **options
        The metrics' settings (``vectors=``, ``meteor_resources=``, ``workers``, ...).

    Raises
    ------
    ValueError
        An invalid key in ``metrics_to_omit``; a bad setting or a missing resource is
        reported here too (the metrics are built in the constructor, as nlg-eval loads them).

    Examples
    --------
    >>> import fastamfm
    >>> nlgeval = fastamfm.NLGEval(no_glove=True, no_skipthoughts=True, metrics_to_omit=["METEOR", "CIDEr"])
    >>> nlgeval.keys
    ['Bleu_1', 'Bleu_2', 'Bleu_3', 'Bleu_4', 'ROUGE_L']
    >>> scores = nlgeval.compute_metrics([["the cat sat on a mat", "the dog ran away"],    # reference stream 1
    ...                                   ["a cat was on the mat", "a dog ran off"]],      # reference stream 2
    ...                                  ["the cat sat on the mat", "a dog ran"])
    >>> {key: round(score, 6) for key, score in scores.items()}
    {'Bleu_1': 0.795413, 'Bleu_2': 0.843663, 'Bleu_3': 0.798713, 'Bleu_4': 0.62438, 'ROUGE_L': 0.834475}
    """

    valid_metrics = frozenset({*OVERLAP_KEYS, "SkipThoughtCS", *GLOVE_KEYS})

    def __init__(self, no_overlap: bool = False, no_skipthoughts: bool = False, no_glove: bool = False,
                 metrics_to_omit=None, **options):
        omitted = set(metrics_to_omit or ())
        if MISSPELLED_EMBEDDING_AVERAGE in omitted:
            omitted = (omitted - {MISSPELLED_EMBEDDING_AVERAGE}) | {"EmbeddingAverageCosineSimilarity"}
        invalid = omitted - self.valid_metrics
        if invalid:
            raise ValueError(f"NLGEval: invalid metrics to omit: {sorted(invalid)}; valid: {sorted(self.valid_metrics)}")
        self.metrics_to_omit = omitted
        for key, reason in NOT_PROVIDED.items():
            asked = key not in omitted and not (key == "SkipThoughtCS" and no_skipthoughts) and not (
                key == "SPICE" and no_overlap)
            if asked:
                log.info("NLGEval: %s; left out", reason)
        self.keys = _default_keys(no_overlap, no_glove, omitted)
        # Built now, as nlg-eval loads its scorers in the constructor: a bad option or a
        # missing resource is reported here, and resources load once.
        self._pipeline: Pipeline | None = None
        self._out_keys: list = []
        if self.keys:
            self._pipeline, self._out_keys = _pipeline(self.keys, options, "NLGEval", defaults=True)

    def _score(self, hyps, refs) -> dict:
        if self._pipeline is None:
            return {}
        return _report(self._pipeline.score(hyps, refs, what="NLGEval").corpus, self._out_keys)

    def compute_individual_metrics(self, ref, hyp: str) -> dict[str, float]:
        """Scores of one hypothesis against its list of references."""
        if not isinstance(hyp, str):
            raise TypeError(f"NLGEval.compute_individual_metrics: hyp must be a str, got {type(hyp).__name__}")
        return self._score([hyp.strip()], [[r.strip() for r in ref]])

    def compute_metrics(self, ref_list, hyp_list) -> dict[str, float]:
        """Corpus scores; ``ref_list`` as nlg-eval takes it: one list per reference
        stream (``ref_list[k][i]`` is the k-th reference of hypothesis i), never per
        response (so no layout to warn about); per-response lists go to
        ``fastamfm.compute_metrics(hyps, refs)``."""
        streams = [[r.strip() for r in stream] for stream in ref_list]
        hyps = [h.strip() for h in hyp_list]
        refs = References.from_columns(streams)
        if len(refs) != len(hyps):
            raise ValueError(f"NLGEval.compute_metrics: {len(hyps)} hypotheses but reference streams of "
                             f"{len(refs)}")
        return self._score(hyps, refs)
