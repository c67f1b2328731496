"""What the training suite (bench.py) and the side-by-side script (compare.py) share: the
batches both sides train on, one optimizer step through ``fastamfm.training``, and the
plain loops a user would write with sentence-transformers and transformers.

A step returns (loss, tokens fed). The plain loops use the trainer's optimizer settings
(AdamW, no weight decay, a constant learning rate, gradients clipped to norm 1), so on the
same weights and batches both sides compute the same losses.
"""
from __future__ import annotations

from pathlib import Path

from benchmarks.training.twcs_corpus import DEFAULT_SOURCE, dialogues

MAX_GRAD_NORM = 1.0


def write_pair_corpus(path: Path, pairs: int, *, source: Path = DEFAULT_SOURCE) -> Path:
    """The first ``pairs`` (turn, reply) pairs of the TWCS airline dialogues, each written as a
    two-turn dialogue: the contrastive task then has no same-dialogue negative, so its loss is
    sentence-transformers' MultipleNegativesRankingLoss on (anchor, positive) columns."""
    written = 0
    with open(path, "w", encoding="utf-8") as f:
        for turns in dialogues(source):
            for turn, reply in zip(turns, turns[1:]):
                f.write(f"{turn}\n{reply}\n\n")
                written += 1
                if written == pairs:
                    return path
    return path


def example_batches(task, corpus, batch_size: int, count: int, seed: int = 0) -> list:
    """The first ``count`` batches of examples ``fastamfm.training.train`` would draw."""
    from fastamfm.training.example_stream import ExampleStream

    stream = iter(ExampleStream(corpus, task.examples, seed=seed, buffer=4096))
    return [[next(stream) for _ in range(batch_size)] for _ in range(count)]


def trainer_step(task, settings, device: str = "cpu"):
    """One optimizer step of ``fastamfm.training``'s ``TaskTrainer`` (transformers' Trainer
    with the task's loss), driven batch by batch outside its loop so that both sides train on
    the same batches and only the steps are timed."""
    import transformers
    from fastamfm.training.trainer import _Meter, _trainer_classes

    _, _, TaskTrainer = _trainer_classes()
    args = transformers.TrainingArguments(output_dir="/tmp/fastamfm-training-bench", max_steps=10 ** 6,
                                          per_device_train_batch_size=settings.batch_size,
                                          learning_rate=settings.learning_rate, weight_decay=settings.weight_decay,
                                          lr_scheduler_type="constant", max_grad_norm=settings.max_grad_norm,
                                          report_to="none", use_cpu=device == "cpu", disable_tqdm=True,
                                          remove_unused_columns=False, logging_strategy="no", save_strategy="no")
    trainer = TaskTrainer(model=task.model, args=args, task=task, meter=_Meter({}), keep=1,
                          data_collator=task.collate)
    trainer.create_optimizer_and_scheduler(num_training_steps=10 ** 6)
    trainer.current_gradient_accumulation_steps = 1     # set by Trainer's own loop, which this drives step by step
    task.model.train()

    def step(examples):
        batch = task.collate(examples)
        tokens = batch["num_tokens"]
        loss = trainer.training_step(task.model, trainer._prepare_inputs(batch))
        trainer.accelerator.clip_grad_norm_(task.model.parameters(), settings.max_grad_norm)
        trainer.optimizer.step()
        trainer.lr_scheduler.step()
        task.model.zero_grad()
        return float(loss), tokens

    return step


def sentence_transformers_step(directory, learning_rate: float, *, max_length: int, temperature: float,
                               device: str = "cpu"):
    """A user's loop: ``SentenceTransformer`` + ``MultipleNegativesRankingLoss`` (scale 1/temperature)
    + ``torch.optim.AdamW`` on (turn, reply) columns."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.losses import (
        MultipleNegativesRankingLoss,
    )

    model = SentenceTransformer(str(directory), device=device)
    model.max_seq_length = max_length
    loss = MultipleNegativesRankingLoss(model, scale=1.0 / temperature)
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.0)
    model.train()

    def step(examples):
        columns = [[e[0] for e in examples], [e[1] for e in examples]]
        features = [model.preprocess(c) for c in columns]
        features = [{k: v.to(device) if hasattr(v, "to") else v for k, v in f.items()} for f in features]
        value = loss(features, None)
        value.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), MAX_GRAD_NORM)
        optimizer.step()
        optimizer.zero_grad()
        return float(value.detach()), int(sum(f["attention_mask"].sum() for f in features))

    return step


def transformers_lm_step(model, learning_rate: float, *, pad_id: int, device: str = "cpu"):
    """A user's loop: a causal LM (or a peft model over one) with its own ``labels=`` loss and
    ``torch.optim.AdamW``, on (prefix ids, target ids) examples padded as a user pads them."""
    import torch

    model.to(device)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=learning_rate,
                                  weight_decay=0.0)
    model.train()

    def step(examples):
        width = max(len(p) + len(t) for p, t in examples)
        ids = torch.full((len(examples), width), pad_id, dtype=torch.long)
        labels = torch.full_like(ids, -100)
        mask = torch.zeros_like(ids)
        for row, (p, t) in enumerate(examples):
            ids[row, :len(p) + len(t)] = torch.tensor(p + t)
            labels[row, len(p):len(p) + len(t)] = torch.tensor(t)
            mask[row, :len(p) + len(t)] = 1
        out = model(input_ids=ids.to(device), attention_mask=mask.to(device), labels=labels.to(device))
        out.loss.backward()
        torch.nn.utils.clip_grad_norm_([p for p in model.parameters() if p.requires_grad], MAX_GRAD_NORM)
        optimizer.step()
        optimizer.zero_grad()
        return float(out.loss.detach()), int(mask.sum())

    return step
