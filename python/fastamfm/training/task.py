"""``TrainingTask``: what a model and its objective give the trainer (the plug-in point).

A task is any object with these members (a ``typing.Protocol``: no base class needed):

``name``                 short label ("encoder", "lm"): the checkpoint folder and progress label.
``model``                the ``torch.nn.Module`` trained: a ``transformers.PreTrainedModel`` or a
                         ``peft`` model, so checkpoints are written by ``save_pretrained`` (tied
                         weights handled, safetensors). Its parameters with ``requires_grad`` train.
``examples(dialogue)``   the training examples of one ``Dialogue`` (any picklable Python objects,
                         e.g. (context turns, response) tuples); called on the streamed corpus.
``collate(examples)``    a batch: a dict of tensors for ``loss``, plus the ints ``num_tokens``
                         (tokens the batch feeds the model: the progress bar's tokens/s) and
                         ``num_examples``; the trainer moves tensors to the device.
``loss(model, batch)``   a scalar loss tensor (the trainer backpropagates it).

The model is saved for scoring by the caller after ``train`` returns (the task knows the
form its scorer loads: e.g. ``SentenceEncoder`` or ``NeuralLM`` directories).
"""
from __future__ import annotations

from typing import Any, Iterable, Protocol, runtime_checkable


@runtime_checkable
class TrainingTask(Protocol):
    name: str
    model: Any

    def examples(self, dialogue) -> Iterable:
        ...

    def collate(self, examples: list) -> dict:
        ...

    def loss(self, model, batch: dict):
        ...


def check_task(task) -> None:
    missing = [m for m in ("name", "model", "examples", "collate", "loss") if not hasattr(task, m)]
    if missing:
        raise TypeError(f"a training task needs {missing} (see fastamfm.training.task)")
    if not isinstance(task.name, str) or not task.name.isidentifier():
        raise ValueError(f"task.name must be a short identifier, got {task.name!r}")
