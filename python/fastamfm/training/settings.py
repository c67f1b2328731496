"""``TrainingSettings``: every knob of one training run (recorded in the provenance)."""
from __future__ import annotations

from dataclasses import asdict, dataclass

from ..progress import ProgressOption, checked

PRECISIONS = ("float32", "bfloat16")
SCHEDULES = ("constant_with_warmup", "linear", "cosine")


@dataclass(frozen=True)
class TrainingSettings:
    """``max_steps`` and/or ``max_minutes`` bound the run (at least one); with both, the
    first reached stops it. ``max_minutes`` counts training time across resumed sessions.
    ``schedule``: "constant_with_warmup" (default: right for a time budget, whose step count
    is not known in advance) or "linear"/"cosine" decay to ``max_steps`` (needs it).
    ``checkpoint_steps`` / ``checkpoint_minutes``: write a checkpoint every so many
    optimizer steps / minutes (whichever comes first), keeping the last ``keep_checkpoints``.
    ``threads``: torch CPU threads (None: every core this process may use).
    ``device``: "auto" (the GPU when torch sees one), "cpu", "cuda", "cuda:N".
    """

    seed: int = 0
    batch_size: int = 32
    learning_rate: float = 5e-5
    weight_decay: float = 0.0
    warmup_steps: int = 0
    schedule: str = "constant_with_warmup"
    max_grad_norm: float = 1.0
    max_steps: int | None = None
    max_minutes: float | None = None
    precision: str = "float32"
    device: str = "auto"
    threads: int | None = None
    checkpoint_steps: int = 500
    checkpoint_minutes: float | None = 10.0
    keep_checkpoints: int = 2
    shuffle_buffer: int = 4096
    # True: the bar with tokens/s (or the option of the call the run is in: False silences
    # it, a callable hears a ProgressUpdate per step); False: none; a callable: per step.
    progress: ProgressOption = True

    def check(self) -> None:
        def positive_int(name, value, allow_none=False):
            if value is None and allow_none:
                return
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"TrainingSettings: {name} must be a positive int, got {value!r}")

        positive_int("batch_size", self.batch_size)
        positive_int("max_steps", self.max_steps, allow_none=True)
        positive_int("checkpoint_steps", self.checkpoint_steps)
        positive_int("keep_checkpoints", self.keep_checkpoints)
        positive_int("shuffle_buffer", self.shuffle_buffer)
        positive_int("threads", self.threads, allow_none=True)
        if isinstance(self.warmup_steps, bool) or not isinstance(self.warmup_steps, int) or self.warmup_steps < 0:
            raise ValueError(f"TrainingSettings: warmup_steps must be a non-negative int, got {self.warmup_steps!r}")
        for name in ("max_minutes", "checkpoint_minutes"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0):
                raise ValueError(f"TrainingSettings: {name} must be a positive number or None, got {value!r}")
        if self.max_steps is None and self.max_minutes is None:
            raise ValueError("TrainingSettings: give a budget: max_steps and/or max_minutes")
        if self.precision not in PRECISIONS:
            raise ValueError(f"TrainingSettings: precision must be one of {PRECISIONS}, got {self.precision!r}")
        if self.schedule not in SCHEDULES:
            raise ValueError(f"TrainingSettings: schedule must be one of {SCHEDULES}, got {self.schedule!r}")
        if self.schedule != "constant_with_warmup" and self.max_steps is None:
            raise ValueError(f"TrainingSettings: schedule={self.schedule!r} decays to max_steps: give max_steps")
        checked(self.progress)
        if not self.learning_rate > 0:
            raise ValueError(f"TrainingSettings: learning_rate must be positive, got {self.learning_rate!r}")

    def as_dict(self) -> dict:
        """The settings as JSON values (a progress callable is recorded as ``"callable"``)."""
        settings = asdict(self)
        if callable(settings["progress"]) and not isinstance(settings["progress"], bool):
            settings["progress"] = "callable"
        return settings
