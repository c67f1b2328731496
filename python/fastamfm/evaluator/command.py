"""The evaluator on the command line.

    fastamfm train --evaluator --corpus F [--corpus F ...] --out DIR [--max-minutes 60] [--resume]
                   [--encoder BASE] [--negatives random=1,same_dialogue=1,...] [--device auto]
                   [--blocklist FILE | --no-blocklist] [--max-steps N] [--threads N] [--seed 0]
    fastamfm score --evaluator DIR --hyp H.txt --context C.txt [--ref R.txt ...] [--out scores.jsonl]

``train`` shares ``--max-minutes``, ``--max-steps``, ``--resume``, ``--encoder`` (the base
model), ``--blocklist``/``--no-blocklist``, ``--device`` and ``--threads`` with
``train --deep``; without a budget it trains for ``DEFAULT_MINUTES``.
"""
from __future__ import annotations

import time

DEFAULT_MINUTES = 60.0


def add_train_options(parser) -> None:
    group = parser.add_argument_group("dialogue evaluator (--evaluator)")
    group.add_argument("--evaluator", action="store_true",
                       help="train a dialogue evaluator (self-supervised: real next turns against negatives) on "
                            "dialogue corpora (plain text, jsonl {\"turns\": [...]} (.bz2), DSTC-10 JSON); "
                            "--corpus may be repeated; --encoder names the frozen base encoder")
    group.add_argument("--negatives", help="negative kinds and weights, e.g. random=1,same_dialogue=1,retrieval=1,"
                                           "generic=0.5,shuffle=0.25 (default: the shipped recipe's)")


def add_score_options(parser) -> None:
    parser.add_argument("--evaluator", metavar="DIR",
                        help="score with a trained dialogue evaluator (the 'evaluator' metric; needs --context, "
                             "uses --ref files too when given)")


def parse_negatives(text: str) -> dict:
    out = {}
    for item in text.split(","):
        kind, sep, weight = item.strip().partition("=")
        if not sep:
            raise ValueError(f"--negatives: expected KIND=WEIGHT, got {item!r}")
        try:
            out[kind.strip()] = float(weight)
        except ValueError:
            raise ValueError(f"--negatives: {weight!r} is not a number (in {item!r})") from None
    return out


def run_train(args) -> int:
    from .training import DEFAULT_BASE, train_evaluator

    if args.no_blocklist and args.blocklist:
        raise ValueError("give --blocklist or --no-blocklist, not both")
    minutes = args.max_minutes if args.max_minutes is not None or args.max_steps is not None else DEFAULT_MINUTES
    start = time.perf_counter()
    evaluator = train_evaluator(args.corpus, out=args.out, base=args.base_encoder or DEFAULT_BASE,
                                max_minutes=minutes, max_steps=args.max_steps, resume=args.resume, seed=args.seed,
                                negatives=None if args.negatives is None else parse_negatives(args.negatives),
                                blocklist=False if args.no_blocklist else args.blocklist, device=args.device,
                                threads=args.threads, progress=not args.quiet)
    print(f"saved {args.out} in {(time.perf_counter() - start) / 60:.1f} min: {evaluator!r}")
    print(f"score with: fastamfm score --evaluator {args.out} --hyp H.txt --context C.txt [--ref R.txt]")
    return 0


def metric_names(args, names: list) -> list:
    """``names`` with ``evaluator`` added when ``--evaluator`` is given."""
    if getattr(args, "evaluator", None) is None or "evaluator" in names:
        return names
    return names + ["evaluator"]


def score_options(args, path) -> dict:
    """The ``evaluator`` metric's own options from ``--evaluator`` (``path`` makes a path
    absolute for cluster workers)."""
    if getattr(args, "evaluator", None) is None:
        return {}
    if args.context is None and args.jsonl is None:
        raise ValueError("--evaluator scores responses given their dialogue context: give --context C.txt")
    return {"evaluator": {"model": path(args.evaluator)}}
