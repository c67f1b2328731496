"""Dynamic batching: requests for the same metrics and options that arrive close together
are scored as one batch, on a thread of a small pool, off the event loop.

A request is *admitted* (or refused with ``QueueFull`` when the responses already admitted
and not yet answered would exceed ``max_queue``) into the open group of its key. A group
becomes ready ``max_wait_ms`` after its first request, or at once when it holds
``max_batch`` responses; a ready group starts as soon as a scoring thread is free and keeps
taking requests until then, so under load the batches grow to what the threads can keep up
with instead of queueing many small ones. A request withdrawn before its group starts (its
client disconnected, its time ran out) is removed from the group: its work never runs.
"""
from __future__ import annotations

import asyncio
import collections
import math
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from .prometheus import ServiceMetrics
from .settings import ServiceSettings


class QueueFull(Exception):
    """The queue holds ``max_queue`` responses: try again in ``retry_after`` seconds."""

    def __init__(self, retry_after: int):
        super().__init__(f"the server's queue is full; retry in {retry_after} s")
        self.retry_after = retry_after


@dataclass(eq=False)
class Ticket:
    """One admitted request: its size, its result to come, and whether its group started."""

    key: object
    request: object
    size: int
    future: asyncio.Future
    group: _Group | None = None
    started: bool = False


@dataclass(eq=False)
class _Group:
    key: object
    tickets: list = field(default_factory=list)
    size: int = 0
    ready: bool = False
    timer: asyncio.TimerHandle | None = None


class DynamicBatcher:
    """Groups admitted requests by key and runs ``score(key, requests) -> [result or
    exception]`` on each group (see the module docstring)."""

    def __init__(self, score, settings: ServiceSettings, metrics: ServiceMetrics):
        self._score = score
        self.settings = settings
        self.metrics = metrics
        self._executor = ThreadPoolExecutor(settings.scoring_threads, thread_name_prefix="fastamfm-score")
        self._open: dict[object, _Group] = {}
        self._ready: collections.deque[_Group] = collections.deque()
        self._running = 0
        self.queued_responses = 0
        self.queued_requests = 0
        self.draining = False
        # Seconds of scoring per response, smoothed over batches: what Retry-After estimates from.
        self._seconds_per_response = 0.0

    # --- admission -----------------------------------------------------------------
    def admit(self, key, request, size: int) -> Ticket:
        if self.queued_responses + size > self.settings.max_queue:
            wait = self.queued_responses * self._seconds_per_response / self.settings.scoring_threads
            raise QueueFull(max(1, min(60, math.ceil(wait))))
        ticket = Ticket(key, request, size, asyncio.get_running_loop().create_future())
        self._count(size, 1)
        group = self._open.get(key)
        if group is not None and group.size + size > self.settings.max_batch and group.tickets:
            self._make_ready(group)
            del self._open[key]
            group = None
        if group is None:
            group = self._open[key] = _Group(key)
            if not self.draining:
                group.timer = asyncio.get_running_loop().call_later(self.settings.max_wait_ms / 1000,
                                                                    self._make_ready, group)
        group.tickets.append(ticket)
        group.size += size
        ticket.group = group
        if group.size >= self.settings.max_batch or self.draining:
            self._make_ready(group)
        return ticket

    def withdraw(self, ticket: Ticket) -> bool:
        """Take back a request whose answer nobody waits for; True when its work had not
        started (and now never will)."""
        if ticket.started or ticket.group is None:
            return False
        group = ticket.group
        group.tickets.remove(ticket)
        group.size -= ticket.size
        ticket.group = None
        if not group.tickets:
            self._discard(group)
        return True

    def release(self, ticket: Ticket) -> None:
        """The request is answered (or abandoned): its responses leave the queue."""
        self._count(-ticket.size, -1)

    def _count(self, responses: int, requests: int) -> None:
        self.queued_responses += responses
        self.queued_requests += requests
        self.metrics.queue_responses.set(value=self.queued_responses)
        self.metrics.queue_requests.set(value=self.queued_requests)

    # --- groups ------------------------------------------------------------------------
    def _make_ready(self, group: _Group) -> None:
        if group.timer is not None:
            group.timer.cancel()
            group.timer = None
        if not group.ready and group.tickets:
            group.ready = True
            self._ready.append(group)
        self._dispatch()

    def _discard(self, group: _Group) -> None:
        if group.timer is not None:
            group.timer.cancel()
        if self._open.get(group.key) is group:
            del self._open[group.key]
        if group in self._ready:
            self._ready.remove(group)

    def _dispatch(self) -> None:
        while self._ready and self._running < self.settings.scoring_threads:
            group = self._ready.popleft()
            if self._open.get(group.key) is group:
                del self._open[group.key]
            for ticket in group.tickets:
                ticket.started = True
            self._running += 1
            asyncio.get_running_loop().create_task(self._run(group))

    async def _run(self, group: _Group) -> None:
        requests = [t.request for t in group.tickets]
        self.metrics.batch_requests.observe(len(requests))
        self.metrics.batch_responses.observe(group.size)
        start = time.perf_counter()
        try:
            results = await asyncio.get_running_loop().run_in_executor(self._executor, self._score, group.key,
                                                                       requests)
        except Exception as exc:     # the whole batch failed (a model that does not load): every request hears it
            results = [exc] * len(requests)
        finally:
            self._running -= 1
        seconds = (time.perf_counter() - start) / max(group.size, 1)
        self._seconds_per_response = seconds if not self._seconds_per_response else \
            0.8 * self._seconds_per_response + 0.2 * seconds
        self.metrics.scored.inc(amount=group.size)
        for ticket, result in zip(group.tickets, results):
            if ticket.future.done():
                continue
            if isinstance(result, Exception):
                ticket.future.set_exception(result)
            else:
                ticket.future.set_result(result)
        self._dispatch()

    # --- shutdown ------------------------------------------------------------------------
    def drain(self) -> None:
        """Shutting down: start every open group now instead of waiting out its delay."""
        self.draining = True
        for group in list(self._open.values()):
            self._make_ready(group)

    def close(self) -> None:
        self._executor.shutdown(wait=True)
