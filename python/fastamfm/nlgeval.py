"""nlg-eval drop-in: ``compute_metrics`` and ``compute_individual_metrics``.

Each metric family is one small function in ``FAMILIES``: it names the keys it
produces, the options it reads, and how to tell that its resources (word vectors,
METEOR data, a model) are missing. A family whose resources are missing is left out
with a warning that says how to enable it, never replaced by a wrong number. Users can
add their own families with ``register_family``.
"""
from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass

from .io import read_lines, read_parallel_files
from .metrics import Hypotheses, bleu, cider, rouge_l
from .metrics._inputs import encoded_hypotheses
from .references import References, as_references

# Options every family understands; a family lists its own extra ones.
COMMON_OPTIONS = ("tokenize", "lowercase", "workers")
# nlg-eval's switches, accepted so that existing calls keep working.
NLGEVAL_SWITCHES = ("no_overlap", "no_skipthoughts", "no_glove")
OVERLAP_KEYS = ("Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "METEOR", "ROUGE_L", "CIDEr")
GLOVE_KEYS = ("EmbeddingAverageCosineSimilarity", "VectorExtremaCosineSimilarity", "GreedyMatchingScore")
# nlg-eval's compute_individual_metrics splits a single string into references on this.
INDIVIDUAL_REF_SEPARATOR = "||<|>||"


@dataclass(frozen=True)
class MetricFamily:
    """Metrics computed together. ``compute(hyps, refs, options)`` gets the responses as
    ``Hypotheses`` (raw strings: ``hyps.texts``) and ``References`` (``refs[i]``), encoded
    once for all families, and returns {key: float}; ``missing(options)`` returns why the
    family cannot run (and how to enable it), or None."""

    keys: tuple
    compute: Callable[[Hypotheses, References, dict], dict]
    options: tuple = ()
    missing: Callable[[dict], "str | None"] = lambda options: None


def _common(options: dict) -> dict:
    return {k: options[k] for k in COMMON_OPTIONS if k in options}


def _bleu(hyps, refs, options):
    scores = bleu(hyps, refs, max_order=4, **_common(options)).corpus
    return {f"Bleu_{k + 1}": float(s) for k, s in enumerate(scores)}


def _rouge_l(hyps, refs, options):
    return {"ROUGE_L": rouge_l(hyps, refs, **_common(options)).corpus}


def _cider(hyps, refs, options):
    return {"CIDEr": cider(hyps, refs, **_common(options)).corpus}


def _raw_refs(refs: References) -> list[list]:
    return [refs[i] for i in range(len(refs))]


def _meteor(hyps, refs, options):
    from .metrics.meteor import meteor

    return {"METEOR": meteor(hyps.texts, refs, resources=options.get("meteor_resources", "auto"),
                             workers=options.get("workers", -1)).corpus}


def _meteor_missing(options):
    from .meteor_resources import MeteorResourcesNotFound, locate

    try:
        locate(options.get("meteor_resources", "auto"))
    except MeteorResourcesNotFound as exc:
        return str(exc)
    return None


def _vectors(options):
    from .vectors import WordVectors

    vectors = options.get("vectors")
    return WordVectors.load(vectors) if isinstance(vectors, (str, os.PathLike)) else vectors


def _embedding(hyps, refs, options):
    from .metrics.embedding import embedding_metrics

    # The embedding metrics tokenize as nlg-eval does (whitespace), whatever tokenize= says.
    return embedding_metrics(hyps.texts, _raw_refs(refs), vectors=_vectors(options),
                             workers=options.get("workers", -1))


def _embedding_missing(options):
    if options.get("vectors") is None:
        return ("no word vectors given: pass vectors=fastamfm.WordVectors.load(path) or a path to GloVe "
                "text, word2vec binary or fastText .vec vectors")
    return None


def _amfm(hyps, refs, options):
    from .amfm import amfm_metrics

    # The AM-FM model carries its own tokenizer, so it gets the raw texts.
    return amfm_metrics(hyps.texts, _raw_refs(refs), model=options.get("model", "default"))


def _amfm_missing(options):
    if options.get("model", "default") is None:
        return "model=None; pass model='default' (shipped) or an AM-FM model directory"
    return None


FAMILIES: list[MetricFamily] = [
    MetricFamily(("Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4"), _bleu),
    MetricFamily(("METEOR",), _meteor, ("meteor_resources",), _meteor_missing),
    MetricFamily(("ROUGE_L",), _rouge_l),
    MetricFamily(("CIDEr",), _cider),
    MetricFamily(GLOVE_KEYS, _embedding, ("vectors",), _embedding_missing),
    MetricFamily(("AM", "FM", "AM-FM"), _amfm, ("model",), _amfm_missing),
]


def register_family(family: MetricFamily) -> None:
    """Add a family; its keys must not clash with those already registered."""
    taken = {k for f in FAMILIES for k in f.keys}
    clash = taken.intersection(family.keys)
    if clash:
        raise ValueError(f"metric keys already registered: {sorted(clash)}")
    FAMILIES.append(family)


def available_metrics() -> list[str]:
    """Every key compute_metrics knows (whether or not its resources are present)."""
    return [k for f in FAMILIES for k in f.keys]


def _selected_keys(metrics, options: dict) -> list[str]:
    known = available_metrics()
    if metrics is None:
        keys = list(known)
    else:
        keys = [metrics] if isinstance(metrics, str) else list(metrics)
        unknown = [k for k in keys if k not in known]
        if unknown:
            raise ValueError(f"unknown metric(s) {unknown}; known: {known}")
    dropped = set()
    if options.get("no_overlap"):
        dropped.update(OVERLAP_KEYS)
    if options.get("no_glove"):
        dropped.update(GLOVE_KEYS)
    return [k for k in keys if k not in dropped]


def _check_options(options: dict) -> None:
    allowed = set(COMMON_OPTIONS) | set(NLGEVAL_SWITCHES) | {o for f in FAMILIES for o in f.options}
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise TypeError(f"unknown option(s) {unknown}; accepted: {sorted(allowed)}")


def _load(hypothesis, references) -> tuple[list, object]:
    """File paths (nlg-eval) or in-memory lists -> (hyps, refs)."""
    if isinstance(hypothesis, (str, os.PathLike)):
        hyps = read_lines(hypothesis)
        if isinstance(references, References):
            refs = references  # encoded once, reused for every system file
        else:
            paths = [references] if isinstance(references, (str, os.PathLike)) else list(references)
            if not paths:
                raise ValueError("compute_metrics: references is empty (give one or more reference files)")
            if not all(isinstance(p, (str, os.PathLike)) for p in paths):
                raise TypeError("compute_metrics: with a hypothesis file, references must be reference file "
                                "paths or a fastamfm.References")
            refs = read_parallel_files(paths)
        if len(hyps) != len(refs):
            raise ValueError(f"compute_metrics: {os.fspath(hypothesis)} has {len(hyps)} lines but the reference "
                             f"files have {len(refs)}")
        return hyps, refs
    return hypothesis, references


def compute_metrics(hypothesis, references, metrics=None, **options) -> dict[str, float]:
    """nlg-eval's ``compute_metrics``: corpus scores under nlg-eval's key names.

    ``hypothesis``: a file with one response per line, and ``references``: files
    line-aligned with it (nlg-eval's layout) or a ``fastamfm.References`` encoded once
    for many system files; or ``hypothesis`` as a list of str (or ``Hypotheses``) and
    ``references`` as per-response reference lists (or a ``fastamfm.References``).
    ``metrics``: keys to compute (default: all known). ``options``: ``tokenize``,
    ``lowercase``, ``workers``, nlg-eval's ``no_overlap``/``no_skipthoughts``/``no_glove``,
    and the options of the registered families.
    """
    _check_options(options)
    keys = _selected_keys(metrics, options)
    hyps, refs = _load(hypothesis, references)
    encoding = dict(tokenize=options.get("tokenize", "whitespace"), lowercase=options.get("lowercase", False),
                    workers=options.get("workers", -1))
    if not isinstance(hyps, Hypotheses):
        hyps = encoded_hypotheses(hyps, what="compute_metrics", max_order=4, **encoding)
    refs = as_references(refs, len(hyps), max_order=4, what="compute_metrics", **encoding)
    scores: dict[str, float] = {}
    for family in FAMILIES:
        wanted = [k for k in family.keys if k in keys]
        if not wanted:
            continue
        reason = family.missing(options)
        if reason is not None:
            warnings.warn(f"{', '.join(wanted)} left out: {reason}", stacklevel=2)
            continue
        values = family.compute(hyps, refs, options)
        scores.update({k: values[k] for k in wanted})
    return {k: scores[k] for k in keys if k in scores}


def compute_individual_metrics(ref, hyp: str, **options) -> dict[str, float]:
    """nlg-eval's ``compute_individual_metrics``: one hypothesis against its references.

    ``ref``: a list of reference strings (or one string, split on nlg-eval's separator
    ``"||<|>||"``). Like nlg-eval, CIDEr of a single segment is 0. Accepts ``metrics=``
    and the options of ``compute_metrics``.
    """
    if not isinstance(hyp, str):
        raise TypeError(f"compute_individual_metrics: hyp must be a str, got {type(hyp).__name__}")
    if isinstance(ref, str):
        ref = ref.split(INDIVIDUAL_REF_SEPARATOR)
    ref = [r.strip() if isinstance(r, str) else r for r in ref]
    metrics = options.pop("metrics", None)
    return compute_metrics([hyp.strip()], [ref], metrics=metrics, **options)
