"""TRL reward functions whose rewards a ``fastamfm serve`` server computes: the trainer
process loads no metric model, and many trainers share one server's batches.

    from fastamfm.client import remote_reward_function
    reward = remote_reward_function("http://127.0.0.1:8000", "amfm")
    trainer = GRPOTrainer(model, reward_funcs=reward, args=config, train_dataset=dataset)

They read TRL's call as ``fastamfm.integrations.trl.reward_function`` does (completions
as text or chat messages, references from a dataset column, the context from the prompt
for metrics that use one) and give the same floats. ``asynchronous=True`` returns an
``async def`` reward function: TRL runs those concurrently with the other reward
functions (TRL >= 1.0), so a remote reward overlaps the local ones.
"""
from __future__ import annotations

import asyncio

from ..integrations.trl import (
    DEFAULT_REFERENCES,
    PROMPT,
    _completion_text,
    _prompt_turns,
)
from .service import Client


def remote_reward_function(url: str, metric=None, *, references: str | None = DEFAULT_REFERENCES,
                           contexts: str | None = PROMPT, name: str | None = None, asynchronous: bool = False,
                           **options):
    """A TRL reward function calling the server at ``url``: ``metric`` (a name, column,
    list or {name: weight}; None: the server's ``--reward-metric``), ``options``: metric
    settings the server allows from a request (no paths)."""
    reward = RemoteRewardFunction(url, metric, references=references, contexts=contexts, name=name, **options)
    if not asynchronous:
        return reward

    async def remote_reward(prompts=None, completions=None, **kwargs) -> list:
        return await asyncio.to_thread(reward, prompts=prompts, completions=completions, **kwargs)

    remote_reward.__name__ = reward.__name__
    return remote_reward


class RemoteRewardFunction:
    """A callable with TRL's ``reward_funcs`` signature; ``__name__`` is what TRL logs it as."""

    def __init__(self, url: str, metric=None, *, references: str | None = DEFAULT_REFERENCES,
                 contexts: str | None = PROMPT, name: str | None = None, **options):
        self.client = Client(url)
        self.metric, self.references, self.contexts, self.options = metric, references, contexts, options
        label = metric if isinstance(metric, str) else "+".join(metric) if metric else "server"
        self.__name__ = name or f"fastamfm_remote_{label}"

    def __repr__(self) -> str:
        return f"RemoteRewardFunction({self.__name__!r} at {self.client.transport.url})"

    def __call__(self, prompts=None, completions=None, completion_ids=None, **kwargs) -> list:
        if completions is None:
            raise TypeError(f"{self.__name__}: called without completions= (TRL passes prompts=, completions=, ...)")
        hyps = [_completion_text(c, i, self.__name__) for i, c in enumerate(completions)]
        refs = kwargs.get(self.references) if self.references is not None else None
        contexts = None
        if self.contexts == PROMPT and prompts is not None:
            contexts = [_prompt_turns(p, i, self.__name__) for i, p in enumerate(prompts)]
        elif self.contexts not in (None, PROMPT):
            contexts = kwargs.get(self.contexts)
        return self.client.reward(hyps, refs, contexts=contexts, metric=self.metric, **self.options).tolist()
