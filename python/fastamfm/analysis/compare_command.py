"""``fastamfm compare``: paired significance of several systems' differences from a
baseline, and what ``fastamfm report`` adds from it.

    fastamfm compare --hyp A.txt --hyp B.txt [--hyp NAME=C.txt ...] --ref R1.txt [--ref R2.txt ...]
                     [--metrics bleu,meteor,rouge_l,cider] [--baseline NAME] [--method bootstrap|randomization]
                     [--resamples 1000] [--seed 0] [--correction holm|bonferroni|none] [--json]

A system is named by ``NAME=PATH`` or by its file's stem. The table lists per metric
column each system's score with its bootstrap interval, the difference from the
baseline with its interval, the p-value and, after the correction, a ``*`` where the
difference is significant (the layout of ``sacrebleu --paired-bs``, one row per system).
A difference below the table's precision, or between two scores set by a metric's
smoothing constants, is never marked (``≈`` / ``ε`` and a line under the table say why),
and fewer than 30 responses get a warning and a note (``system_comparison``).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from .multiple_testing import CORRECTIONS
from .system_comparison import DISPLAY_RESOLUTION, METHODS

DEFAULT_METRICS = "bleu,meteor,rouge_l,cider"


def _system_files(values) -> dict:
    """--hyp values (PATH or NAME=PATH) -> {name: path}, names unique."""
    out = {}
    for value in values:
        name, sep, path = value.partition("=")
        if not sep:
            name, path = Path(value).stem, value
        if not name or not path:
            raise ValueError(f"--hyp must be PATH or NAME=PATH, got {value!r}")
        if name in out:
            raise ValueError(f"--hyp: system {name!r} given twice (name one of them with NAME=PATH)")
        out[name] = path
    return out


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--hyp", action="append", required=True,
                   help="one system's responses, one per line, as PATH or NAME=PATH (repeat for each system; the "
                        "first is the baseline unless --baseline names another)")
    p.add_argument("--ref", action="append", help="reference file, line-aligned with every --hyp (repeatable)")
    p.add_argument("--context", help="context file, line-aligned: the dialogue so far, turns separated by tabs "
                                     "(reference-free metrics)")
    p.add_argument("--metrics", default=DEFAULT_METRICS, help=f"comma-separated registry names (default "
                                                               f"{DEFAULT_METRICS})")
    p.add_argument("--baseline", help="the system every other is compared with (default: the first --hyp)")
    p.add_argument("--method", choices=METHODS, default="bootstrap",
                   help="paired bootstrap resampling (sacrebleu --paired-bs) or approximate randomization "
                        "(--paired-ar)")
    p.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples or randomization trials")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--correction", choices=CORRECTIONS, default="holm",
                   help="multiple-comparison correction over the systems, per metric column")
    p.add_argument("--confidence", type=float, default=0.95, help="level of the bootstrap intervals")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level of the * markers")
    p.add_argument("--min-difference", type=float, default=DISPLAY_RESOLUTION,
                   help="never mark a difference smaller than this (default: below the table's fourth decimal)")
    p.add_argument("--model", default="default", help="AM-FM model for am/fm/amfm: 'default' or a directory")
    p.add_argument("--vectors", help="word-vector file for the embedding metrics")
    p.add_argument("--workers", type=int, default=-1)
    p.add_argument("--json", action="store_true", help="print the comparison as JSON instead of a table")


def run(args) -> int:
    from .. import registry
    from ..io.readers import read_line_columns, read_lines
    from ..references import References
    from .system_comparison import compare_systems

    files = _system_files(args.hyp)
    if not args.ref and not args.context:
        raise ValueError("compare needs --ref files (or --context for reference-free metrics)")
    systems = {name: read_lines(path) for name, path in files.items()}
    refs = References.from_columns(read_line_columns(args.ref), workers=args.workers) if args.ref else None
    contexts = [line.split("\t") for line in read_lines(args.context)] if args.context else None
    for name, hyps in systems.items():
        expected = len(refs) if refs is not None else len(contexts or [])   # one of the two is given (above)
        if len(hyps) != expected:
            source = args.ref[0] if refs is not None else args.context
            raise ValueError(f"{files[name]}: {len(hyps)} lines but {source} has {expected}")
    names = registry.resolve(args.metrics)
    options = {"workers": args.workers}
    if "model" in registry.option_names(names):
        options["model"] = args.model
    if args.vectors is not None:
        options["vectors"] = args.vectors
    table = compare_systems(systems, refs, contexts, metrics=names, baseline=args.baseline, method=args.method,
                            resamples=args.resamples, seed=args.seed, correction=args.correction,
                            confidence=args.confidence, alpha=args.alpha, min_difference=args.min_difference,
                            **options)
    if args.json:
        print(json.dumps(table.to_dict(), indent=2))
    else:
        print(table)
        for name, signature in table.signatures.items():
            print(f"signature {name}: {signature}|{table.describe()}")
    return 0


def report_comparison(hyps: dict, refs, human: dict, metrics, *, model, workers: int, resamples: int, seed: int):
    """What ``fastamfm report`` draws as its forest plot: every system against the one
    people rated best, on the report's metrics (Distinct-n left out: it is drawn apart)."""
    from .. import registry
    from .system_comparison import compare_systems

    baseline = max(hyps, key=lambda s: human[s])
    metrics = [m for m in registry.resolve(metrics) if m != "distinct"]
    options = {"model": model} if "model" in registry.option_names(metrics) else {}
    return compare_systems(hyps, refs, metrics=metrics, baseline=baseline, resamples=resamples, seed=seed,
                           workers=workers, **options)
