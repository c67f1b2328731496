"""``Client``: a ``fastamfm serve`` server called like the library (``score`` as
``fastamfm.evaluate``, ``reward`` as a reward function), synchronously; ``AsyncClient``:
the same from asyncio code (each call on a thread, so the event loop never blocks)."""
from __future__ import annotations

import asyncio
from dataclasses import dataclass

import numpy as np

from .transport import Transport


@dataclass(frozen=True)
class ServedScores:
    """What ``/v1/score`` answers, shaped as ``fastamfm.evaluate``'s table: ``sentences``
    {column: ndarray[n]} (NaN where the server sent null), ``corpus`` {column: float},
    ``signatures`` {metric: signature}, ``signature``."""

    sentences: dict
    corpus: dict
    signatures: dict
    signature: str

    @classmethod
    def from_json(cls, data: dict) -> ServedScores:
        def number(v):
            return float("nan") if v is None else v

        sentences = {c: np.array([number(v) for v in values], dtype=np.float64)
                     for c, values in data["columns"].items()}
        return cls(sentences, {c: number(v) for c, v in data["corpus"].items()}, data["signatures"],
                   data["signature"])


class Client:
    """A fastamfm server at ``url`` (``http://127.0.0.1:8000``). ``retries``/``backoff``:
    how 429 (queue full) and 503 (shutting down, restarting) are retried (``Transport``).

    Nothing is sent until a method is called.

    Parameters
    ----------
    url : str
        The server's base URL (a trailing "/" is dropped).
    timeout : float, default 300.0
        Seconds per HTTP attempt.
    retries : int, default 5
        More attempts after a 429/503 answer or a refused or reset connection.
    backoff : float, default 0.25
        The first wait in seconds, doubled per attempt (with jitter, at most 30 s), unless
        the server sends ``Retry-After``.

    Examples
    --------
    >>> from fastamfm.client import Client
    >>> Client("http://127.0.0.1:8000/")
    Client('http://127.0.0.1:8000')
    """

    def __init__(self, url: str, *, timeout: float = 300.0, retries: int = 5, backoff: float = 0.25):
        self.transport = Transport(url, timeout=timeout, retries=retries, backoff=backoff)

    def __repr__(self) -> str:
        return f"Client({self.transport.url!r})"

    def score(self, hyps, refs=None, metrics=None, *, contexts=None, **options) -> ServedScores:
        """The numbers ``fastamfm.evaluate(hyps, refs, metrics, contexts=contexts, **options)``
        gives, computed by the server (``refs``: per response a list of references).

        Parameters
        ----------
        hyps : sequence of str
            The n responses.
        refs : sequence of sequences of str, optional
            Per response its references.
        metrics : str or sequence of str, optional
            As for ``evaluate``; None: the server's default.
        contexts : sequence, optional
            Per response the dialogue before it (a str or a list of turns).
        **options
            The metrics' settings, sent as JSON.

        Returns
        -------
        ServedScores
            ``sentences`` {column: float64 [n], NaN where the server sent null}, ``corpus``,
            ``signatures`` and ``signature``.

        Raises
        ------
        ServerError
            The server refused the request (its status, and the field at fault), or stayed
            busy (429/503) through every retry.
        urllib.error.URLError
            The server cannot be reached (a refused connection after every retry).
        """
        payload: dict = {"hyps": list(hyps)}
        if refs is not None:
            payload["refs"] = [list(r) for r in refs]
        if contexts is not None:
            payload["contexts"] = [c if isinstance(c, str) else list(c) for c in contexts]
        if metrics is not None:
            payload["metrics"] = metrics if isinstance(metrics, str) else list(metrics)
        if options:
            payload["options"] = options
        return ServedScores.from_json(self.transport.request("POST", "/v1/score", payload))

    def reward(self, completions, references=None, *, contexts=None, metric=None, **options) -> np.ndarray:
        """One float per completion (float64), as ``fastamfm.integrations.trl.reward_function(metric,
        **options)`` computes it; ``metric`` None: the server's ``--reward-metric``;
        ``references``: per completion a list of references or one string.

        Parameters
        ----------
        completions : sequence of str
            The n completions.
        references : sequence, optional
            Per completion a list of references or one string.
        contexts : sequence, optional
            Per completion the dialogue before it.
        metric : str, optional
            The reward metric; None: the server's ``--reward-metric``.
        **options
            The metric's settings, sent as JSON.

        Returns
        -------
        numpy.ndarray
            float64 [n] (NaN where the server sent null).

        Raises
        ------
        ServerError
            The server refused the request, or stayed busy through every retry.
        urllib.error.URLError
            The server cannot be reached.
        """
        payload: dict = {"completions": list(completions)}
        if references is not None:
            payload["references"] = [r if isinstance(r, str) else list(r) for r in references]
        if contexts is not None:
            payload["contexts"] = [c if isinstance(c, str) else list(c) for c in contexts]
        if metric is not None:
            payload["metric"] = metric
        if options:
            payload["options"] = options
        rewards = self.transport.request("POST", "/v1/reward", payload)["rewards"]
        return np.array([float("nan") if r is None else r for r in rewards], dtype=np.float64)

    def metrics(self) -> list:
        """The server's registry: per metric its columns, needs and whether it runs there.

        Returns
        -------
        list of dict
            One entry per registered metric, as ``GET /v1/metrics`` answers.

        Raises
        ------
        ServerError
            The server refused the request, or stayed busy through every retry.
        urllib.error.URLError
            The server cannot be reached.
        """
        return self.transport.request("GET", "/v1/metrics")["metrics"]

    def health(self) -> dict:
        """The server's ``GET /healthz`` answer.

        Returns
        -------
        dict
            The decoded JSON.

        Raises
        ------
        ServerError
            The server refused the request, or stayed busy through every retry.
        urllib.error.URLError
            The server cannot be reached.
        """
        return self.transport.request("GET", "/healthz")


class AsyncClient:
    """``Client``'s calls as coroutines, for asyncio code (TRL's async reward functions).

    Each call runs the blocking ``Client`` call on a thread (``asyncio.to_thread``), so the
    event loop keeps running while the server scores, and calls made together are sent
    together (the server may merge them into one batch).

    Parameters
    ----------
    url : str
        The server's base URL.
    **settings
        ``timeout``, ``retries``, ``backoff``: as for ``Client``.

    Examples
    --------
    >>> from fastamfm.client import AsyncClient
    >>> AsyncClient("http://127.0.0.1:8000", retries=2)
    AsyncClient('http://127.0.0.1:8000')
    """

    def __init__(self, url: str, **settings):
        self.client = Client(url, **settings)

    def __repr__(self) -> str:
        return f"AsyncClient({self.client.transport.url!r})"

    async def score(self, hyps, refs=None, **kwargs) -> ServedScores:
        """``Client.score`` (the same arguments and answer), awaited.

        Returns
        -------
        ServedScores
            As ``Client.score``.

        Raises
        ------
        ServerError
            The server refused the request, or stayed busy through every retry.
        urllib.error.URLError
            The server cannot be reached.
        """
        return await asyncio.to_thread(self.client.score, hyps, refs, **kwargs)

    async def reward(self, completions, references=None, **kwargs) -> np.ndarray:
        """``Client.reward`` (the same arguments and answer), awaited.

        Returns
        -------
        numpy.ndarray
            float64 [n], as ``Client.reward``.

        Raises
        ------
        ServerError
            The server refused the request, or stayed busy through every retry.
        urllib.error.URLError
            The server cannot be reached.
        """
        return await asyncio.to_thread(self.client.reward, completions, references, **kwargs)
