"""Token-id rewards for TRL's trainers: sentence BLEU or ROUGE of each completion's ids
against reference ids from a dataset column, with no decoding.

    from fastamfm.integrations.trl_token_ids import token_reward_function
    reward = token_reward_function("bleu", references="reference_ids", pad_id=tokenizer.pad_token_id)
    trainer = GRPOTrainer(model, reward_funcs=reward, ...)                  # TRL's synchronous path
    trainer = GRPOTrainer(model, reward_funcs=reward.asynchronous(), ...)   # TRL's async path

TRL passes ``completion_ids`` (one list of ids per completion) and the dataset's columns;
the reference column holds per row one id list or a list of them (several references).
``metric``: "bleu" (``fastamfm.metrics.token_ids.token_bleu``; options ``smooth``,
``max_order``, ``convention``...) or a rouge type such as "rougeL" / "rouge2"
(``token_rouge``; option ``measure``). Returns one float per completion. The async form
runs the same computation on a worker thread (the core releases the GIL), so TRL's
``asyncio.gather`` overlaps it with its other async rewards.
"""
from __future__ import annotations

import asyncio

from ..metrics.token_ids import token_bleu, token_rouge

DEFAULT_REFERENCES = "reference_ids"


def token_reward_function(metric: str = "bleu", *, references: str = DEFAULT_REFERENCES, name: str | None = None,
                          **options) -> "TokenIdReward":
    return TokenIdReward(metric, references=references, name=name, **options)


class TokenIdReward:
    """A TRL reward function over ``completion_ids`` (see the module docstring)."""

    def __init__(self, metric: str = "bleu", *, references: str = DEFAULT_REFERENCES, name: str | None = None,
                 **options):
        if not isinstance(metric, str):
            raise TypeError(f"token_reward_function: metric must be 'bleu' or a rouge type, got {metric!r}")
        self.metric = metric
        self.references = references
        self.options = options
        self.__name__ = name or f"fastamfm_token_{metric}"
        self._score = token_bleu if metric == "bleu" else token_rouge
        if metric != "bleu":
            self.options = {"rouge_type": metric, **options}
        # Fails now, not in the first training step, on a bad metric or option.
        self._score([[1]], [[[1]]], **self.options)

    def __repr__(self) -> str:
        return f"TokenIdReward({self.__name__!r}, references={self.references!r}, {self.options})"

    def __call__(self, prompts=None, completions=None, completion_ids=None, **kwargs) -> list:
        if completion_ids is None:
            raise TypeError(f"{self.__name__}: called without completion_ids= (TRL passes them to reward functions)")
        if self.references not in kwargs:
            given = sorted(k for k in kwargs if k not in ("trainer_state", "log_extra", "log_metric", "environments"))
            raise KeyError(f"{self.__name__}: no dataset column {self.references!r} with reference ids "
                           f"(columns TRL passed: {given})")
        refs = kwargs[self.references]
        if len(refs) != len(completion_ids):
            raise ValueError(f"{self.__name__}: {len(completion_ids)} completions but {len(refs)} rows of "
                             f"{self.references!r}")
        scores = self._score(list(completion_ids), list(refs), **self.options)
        return [float(x) for x in scores]

    def asynchronous(self) -> "AsyncTokenIdReward":
        """The same reward for TRL's async reward path (an awaitable ``__call__``)."""
        return AsyncTokenIdReward(self)


class AsyncTokenIdReward:
    """``TokenIdReward`` awaited on a worker thread; TRL runs it through ``asyncio.gather``."""

    def __init__(self, reward: TokenIdReward):
        self.reward = reward
        self.__name__ = reward.__name__

    async def __call__(self, prompts=None, completions=None, completion_ids=None, **kwargs) -> list:
        return await asyncio.to_thread(self.reward, prompts, completions, completion_ids, **kwargs)


__all__ = ["AsyncTokenIdReward", "TokenIdReward", "token_reward_function"]
