"""``train(task, corpus, settings, directory=...)``: one training run of a ``TrainingTask``
on a ``DialogueCorpus``, by ``transformers.Trainer``.

What ``transformers.Trainer`` (and ``accelerate`` under it) provides and is used as is:
the optimizer (AdamW) and schedule, gradient clipping, bf16 autocast, device placement,
saving/restoring model, optimizer, scheduler and RNG states, and skipping the batches
already trained on when resuming. What is added, and why:

- atomic checkpoints (``checkpoints``): the Trainer writes into the final folder, so a
  SIGKILL while saving leaves a broken checkpoint that ``resume`` would load. Here it
  writes into a staging folder, renamed whole when complete; older ones are rotated here;
- a time budget (``max_minutes``, counted across resumed sessions) and checkpoints
  every ``checkpoint_minutes``: the Trainer knows steps only;
- the examples stream (``ExampleStream``), endless and seeded, so that a resumed run
  sees the same batches: with the RNG states the Trainer restores, a run killed and
  resumed ends with the same weights, bit for bit on the CPU (tests/test_training.py);
- progress with tokens/s and ETA (``TrainingProgress``): the Trainer's bar has neither.

Thread count: torch's intra-op threads are set to every core this process may use
(``threads``) for the run. ``collate`` must not draw from the global RNG (skipped
batches are collated again when resuming, which would shift it): seed any randomness
from the batch itself.
"""
from __future__ import annotations

import json
import logging
import os
import resource
import shutil
import time
from collections import deque
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..io.atomic import write_text_atomic
from .checkpoints import (
    STAGING_PREFIX,
    checkpoints,
    latest_checkpoint,
    publish,
    remove_staging,
)
from .example_stream import ExampleStream
from .progress import TrainingProgress
from .settings import TrainingSettings
from .task import check_task

log = logging.getLogger(__name__)
RUN_STATE = "fastamfm_run.json"
# Trainer needs a step limit; a time-only budget stops long before this one.
_UNBOUNDED_STEPS = 1 << 40


@dataclass
class TrainingRun:
    """What a run did. ``seconds``, ``tokens`` and ``examples`` count every session of the
    run (a resumed run adds to the killed one's, up to its last checkpoint)."""

    task: str
    steps: int
    examples: int
    tokens: int
    seconds: float
    stopped_by: str            # "max_steps" or "max_minutes"
    resumed_from: int | None   # the step of the checkpoint resumed from
    loss: float | None         # mean loss of the last 50 steps
    device: str
    precision: str
    threads: int
    peak_rss_mib: float
    session_seconds: float     # this session's training time
    session_tokens: int
    settings: dict = field(default_factory=dict)     # the TrainingSettings of the run

    @property
    def tokens_per_second(self) -> float:
        return self.session_tokens / max(self.session_seconds, 1e-9)

    def as_dict(self) -> dict:
        out = asdict(self)
        out["tokens_per_second"] = self.tokens_per_second
        return out


class _Meter:
    """Counts of the run so far (restored from a checkpoint's ``RUN_STATE`` on resume)."""

    def __init__(self, saved: dict):
        self.elapsed_before = float(saved.get("seconds", 0.0))
        self.tokens = self.tokens_before = int(saved.get("tokens", 0))
        self.examples = self.examples_before = int(saved.get("examples", 0))
        self.losses = deque(saved.get("losses", []), maxlen=50)
        self.started: float | None = None

    def start(self) -> None:
        self.started = time.monotonic()

    def elapsed(self) -> float:
        return self.elapsed_before + (0.0 if self.started is None else time.monotonic() - self.started)

    def count(self, tokens: int, examples: int, loss: float) -> None:
        self.tokens += tokens
        self.examples += examples
        self.losses.append(loss)

    def loss(self) -> float | None:
        return sum(self.losses) / len(self.losses) if self.losses else None

    def state(self) -> dict:
        return {"seconds": self.elapsed(), "tokens": self.tokens, "examples": self.examples,
                "losses": list(self.losses)}


def _trainer_classes():
    import torch
    import transformers

    class ExamplesDataset(torch.utils.data.IterableDataset):
        def __init__(self, stream):
            self.stream = stream

        def __iter__(self):
            return iter(self.stream)

    class Budget(transformers.TrainerCallback):
        def __init__(self, settings: TrainingSettings, meter: _Meter, progress: TrainingProgress):
            self.settings, self.meter, self.progress = settings, meter, progress
            self.stopped_by = "max_steps"
            self.last_save = time.monotonic()

        def on_train_begin(self, args, state, control, **kwargs):
            self.meter.start()
            self.last_save = time.monotonic()

        def on_step_end(self, args, state, control, **kwargs):
            elapsed = self.meter.elapsed()
            if self.settings.max_minutes is not None and elapsed >= 60.0 * self.settings.max_minutes:
                control.should_training_stop = True
                control.should_save = True        # a later resume with a larger budget goes on from here
                self.stopped_by = "max_minutes"
            elif self.settings.checkpoint_minutes is not None and \
                    time.monotonic() - self.last_save >= 60.0 * self.settings.checkpoint_minutes:
                control.should_save = True
            self.progress.update(state.global_step, elapsed, self.meter.tokens - self.meter.tokens_before,
                                 self.meter.examples - self.meter.examples_before, self.meter.loss())
            return control

        def on_save(self, args, state, control, **kwargs):
            self.last_save = time.monotonic()

    class TaskTrainer(transformers.Trainer):
        """``transformers.Trainer`` with the task's loss and atomic checkpoints."""

        def __init__(self, *args, task, meter: _Meter, keep: int, **kwargs):
            super().__init__(*args, **kwargs)
            self.task, self.meter, self.keep = task, meter, keep

        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            tokens, examples = int(inputs.pop("num_tokens")), int(inputs.pop("num_examples"))
            loss = self.task.loss(model, inputs)
            self.meter.count(tokens, examples, float(loss.detach()))
            return (loss, None) if return_outputs else loss

        def _save_checkpoint(self, model, trial):
            final_dir = Path(self.args.output_dir)
            staging = final_dir / f"{STAGING_PREFIX}{os.getpid()}"
            shutil.rmtree(staging, ignore_errors=True)
            self.args.output_dir = str(staging)
            try:
                super()._save_checkpoint(model, trial)
            finally:
                self.args.output_dir = str(final_dir)
            staged = staging / f"checkpoint-{self.state.global_step}"
            write_text_atomic(staged / RUN_STATE, json.dumps(self.meter.state()))
            publish(staged, final_dir, self.keep)
            shutil.rmtree(staging, ignore_errors=True)

    return ExamplesDataset, Budget, TaskTrainer


def set_seed(seed: int) -> None:
    """Seed Python, numpy and torch (before building a task's model: its random initialisation)."""
    from ..runtime import import_transformers

    import_transformers().set_seed(seed)


def _read_run_state(checkpoint: Path | None) -> dict:
    if checkpoint is None or not (checkpoint / RUN_STATE).is_file():
        return {}
    return json.loads((checkpoint / RUN_STATE).read_text())


def train(task, corpus, settings: TrainingSettings, *, directory, resume: bool = False) -> TrainingRun:
    """Train ``task.model`` on ``corpus`` (a ``DialogueCorpus``) under ``settings``.

    Checkpoints go to ``directory/<task.name>/checkpoint-<step>``. ``resume``: continue
    from the newest complete checkpoint there (none: start afresh); without it, earlier
    checkpoints there are removed first. Returns a ``TrainingRun``; the trained weights
    are in ``task.model``."""
    from ..runtime import (
        available_cores,
        import_torch,
        import_transformers,
        resolve_torch_device,
    )

    settings.check()
    check_task(task)
    torch = import_torch()
    transformers = import_transformers()
    device = resolve_torch_device(settings.device)
    folder = Path(directory) / task.name
    folder.mkdir(parents=True, exist_ok=True)
    remove_staging(folder)
    checkpoint = latest_checkpoint(folder) if resume else None
    if not resume:
        for old in checkpoints(folder):
            shutil.rmtree(old)
    threads = settings.threads or available_cores()
    torch.set_num_threads(threads)
    if device.startswith("cuda:"):
        torch.cuda.set_device(int(device.split(":")[1]))

    saved = _read_run_state(checkpoint)
    meter = _Meter(saved)
    start_step = int(checkpoint.name.split("-")[1]) if checkpoint is not None else 0
    progress = TrainingProgress(task.name, max_steps=settings.max_steps, max_minutes=settings.max_minutes,
                                enabled=settings.progress, start_step=start_step,
                                elapsed_before=meter.elapsed_before)
    ExamplesDataset, Budget, TaskTrainer = _trainer_classes()
    stream = ExampleStream(corpus, task.examples, seed=settings.seed, buffer=settings.shuffle_buffer)
    args = transformers.TrainingArguments(
        output_dir=str(folder), max_steps=settings.max_steps or _UNBOUNDED_STEPS,
        per_device_train_batch_size=settings.batch_size, learning_rate=settings.learning_rate,
        weight_decay=settings.weight_decay, warmup_steps=settings.warmup_steps,
        lr_scheduler_type=settings.schedule, max_grad_norm=settings.max_grad_norm, seed=settings.seed,
        data_seed=settings.seed, bf16=settings.precision == "bfloat16", use_cpu=device == "cpu",
        save_strategy="steps", save_steps=settings.checkpoint_steps, save_total_limit=None,
        logging_strategy="no", report_to="none", disable_tqdm=True, remove_unused_columns=False,
        dataloader_num_workers=0, dataloader_pin_memory=False, accelerator_config={"dispatch_batches": False})
    budget = Budget(settings, meter, progress)
    trainer = TaskTrainer(model=task.model, args=args, train_dataset=ExamplesDataset(stream),
                          data_collator=task.collate, callbacks=[budget], task=task, meter=meter,
                          keep=settings.keep_checkpoints)
    trainer.remove_callback(transformers.PrinterCallback)      # ours reports; it would print raw dicts
    session_start = time.monotonic()
    bars = transformers.utils.logging.is_progress_bar_enabled()
    transformers.utils.logging.disable_progress_bar()          # per-checkpoint "Writing shards" bars
    try:
        trainer.train(resume_from_checkpoint=str(checkpoint) if checkpoint is not None else None)
    finally:
        progress.close()
        if bars:
            transformers.utils.logging.enable_progress_bar()
    session = time.monotonic() - session_start
    run = TrainingRun(task=task.name, steps=int(trainer.state.global_step), examples=meter.examples,
                      tokens=meter.tokens, seconds=meter.elapsed(), stopped_by=budget.stopped_by,
                      resumed_from=start_step if checkpoint is not None else None, loss=meter.loss(),
                      device=device, precision=settings.precision, threads=threads,
                      peak_rss_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      session_seconds=session, session_tokens=meter.tokens - meter.tokens_before,
                      settings=settings.as_dict())
    log.info("%s: %d steps, %d examples, %.0f tokens/s, loss %s, stopped by %s", task.name, run.steps, run.examples,
             run.tokens_per_second, "-" if run.loss is None else f"{run.loss:.4f}", run.stopped_by)
    return run
