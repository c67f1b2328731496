"""The client of ``fastamfm serve``, with nothing but the standard library and numpy:
``Client(url).score(hyps, refs, metrics)`` gives what ``fastamfm.evaluate`` gives,
``Client(url).reward(completions, references)`` a float per completion; busy (429) and
restarting (503) servers are retried with backoff. ``remote_reward_function(url, metric)``
is a TRL reward function (sync or async) that the server computes.

- ``service``: ``Client``, ``AsyncClient``, ``ServedScores``;
- ``transport``: HTTP, retries, ``ServerError``;
- ``trl``: ``remote_reward_function``, ``RemoteRewardFunction``.
"""
from __future__ import annotations

from .service import AsyncClient, Client, ServedScores
from .transport import ServerError
from .trl import RemoteRewardFunction, remote_reward_function

__all__ = ["AsyncClient", "Client", "RemoteRewardFunction", "ServedScores", "ServerError", "remote_reward_function"]
