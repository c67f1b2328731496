"""The ASGI application of ``fastamfm serve`` (Starlette): routes, limits, timeouts,
disconnects and shutdown around one ``DynamicBatcher``.

Routes: ``POST /v1/score`` (``fastamfm.evaluate``'s columns, corpus scores and signatures
per request), ``POST /v1/reward`` (a float per completion, as the TRL reward functions of
``fastamfm.integrations.trl`` compute it), ``POST /get_reward`` (OpenRLHF's remote reward
model: ``{"query", "prompts", "labels"}`` -> ``{"rewards"}``), ``GET /v1/metrics`` (the
registry), ``GET /healthz``, ``GET /metrics`` (Prometheus).

Each metric set (names and options) is built once per process, on a thread, the first
time a request asks for it; its models load then (``fastamfm_model_load_seconds``).
Answers are JSON; every error is ``{"error": {"status", "field", "message"}}``, with
``field`` naming the item at fault (``refs[3][1]``) where there is one. Scores that are
not finite numbers (NaN) are ``null``.
"""
from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import json
import logging
import math
import time
from typing import Any

import numpy as np
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .. import registry
from ..pipeline import COMMON_OPTIONS, Pipeline
from ..progress import reporting
from . import payloads
from .batcher import DynamicBatcher, QueueFull
from .payloads import RequestError
from .prometheus import ServiceMetrics
from .scoring import MergedScoring
from .settings import ServiceSettings

log = logging.getLogger(__name__)


def json_response(data, status: int = 200, headers: dict | None = None) -> Response:
    body = json.dumps(_finite(data), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return Response(body, status_code=status, headers=headers, media_type="application/json")


def _finite(value):
    """NaN and infinities as null: JSON has no such numbers."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def error_response(error: RequestError, headers: dict | None = None) -> Response:
    return json_response(error.to_json(), error.status, headers)


class MetricSets:
    """The metric sets this process has built, by (names, options): each built once, on a
    thread (models load there), shared by every request that names it. At most
    ``max_metric_sets`` are kept, least recently used out first; ``pinned`` ones (the
    preloaded set) stay."""

    def __init__(self, settings: ServiceSettings, metrics: ServiceMetrics):
        self.settings, self.metrics = settings, metrics
        self._built: collections.OrderedDict = collections.OrderedDict()
        self.pinned: set = set()
        # The model-load series of each built set, by key: a freed set's series is removed
        # too, so that requests naming ever other metrics cannot grow /metrics without bound.
        self._load_labels: dict = {}

    def _with_server_options(self, names: list, options: dict) -> str:
        """The request's options over the server's, of which only those the metrics read
        (a server-wide ``model=`` is no unknown option of BLEU), as a canonical key."""
        known = registry.option_names(names) | set(COMMON_OPTIONS)
        served = {k: v for k, v in self.settings.options.items() if k in known}
        return json.dumps({**served, **options}, sort_keys=True, separators=(",", ":"))

    def score_key(self, names: tuple, options: dict) -> tuple:
        try:
            resolved = registry.resolve(list(names) or None)
        except KeyError as exc:
            raise RequestError(400, "metrics", exc.args[0]) from None
        except ValueError as exc:
            raise RequestError(400, "metrics", str(exc)) from None
        return ("score", tuple(resolved) if names else (), self._with_server_options(resolved, options))

    def reward_key(self, spec, options: dict) -> tuple:
        spec = self.settings.reward_metric if spec is None else spec
        specs = spec.split(",") if isinstance(spec, str) else list(spec)
        try:
            names = list(dict.fromkeys(registry.metric_class(s.strip()).name for s in specs))
        except (KeyError, ValueError) as exc:
            raise RequestError(400, "metric", exc.args[0]) from None
        return ("reward", json.dumps(spec, sort_keys=True), self._with_server_options(names, options))

    async def get(self, key: tuple):
        """(MergedScoring, reward terms or None) of ``key``, built on first use."""
        task = self._built.get(key)
        if task is None:
            task = self._built[key] = asyncio.get_running_loop().create_task(asyncio.to_thread(self._build, key))
            task.add_done_callback(lambda done: self._record_load(key, done))
            self._evict(keep=key)
        self._built.move_to_end(key)
        try:
            scoring, terms, _ = await asyncio.shield(task)
            return scoring, terms
        except Exception:
            if self._built.get(key) is task:   # a set that failed to build is not kept: the next request tries afresh
                del self._built[key]
                self.metrics.pipelines.set(value=len(self._built))
            raise

    def _evict(self, keep: tuple) -> None:
        """Down to ``max_metric_sets`` (``keep``, the set just asked for, and the pinned ones
        stay): a batch scoring with an evicted set holds it until it ends; its models outlive
        it only where another set or the bounded model cache (``LoadedOnce``) holds them."""
        evictable = [k for k in self._built if k not in self.pinned and k != keep]
        for key in evictable[:max(0, len(self._built) - self.settings.max_metric_sets)]:
            del self._built[key]
            label = self._load_labels.pop(key, None)
            if label is not None and label not in self._load_labels.values():
                self.metrics.model_load.remove(label)
        self.metrics.pipelines.set(value=len(self._built))

    def _record_load(self, key: tuple, task: asyncio.Task) -> None:
        """On the event loop, once ``key``'s build ended: its model-load series, if it is
        still kept (a set freed while it was being built records nothing)."""
        if task.cancelled() or task.exception() is not None or self._built.get(key) is not task:
            return
        _, _, (label, seconds) = task.result()
        self._load_labels[key] = label
        self.metrics.model_load.set(label, value=seconds)

    def _build(self, key: tuple) -> tuple:
        """(MergedScoring, reward terms or None, (model-load label, seconds)), on a thread."""
        kind, what, options = key[0], key[1], json.loads(key[2])
        start = time.perf_counter()
        with reporting(False):
            try:
                if kind == "score":
                    pipeline = Pipeline.from_names(list(what) or None, strict=bool(what), warn=False, what="serve",
                                                   **options)
                    terms = None
                else:
                    from ..integrations.trl import RewardFunction

                    reward = RewardFunction(json.loads(what), references=None, contexts=None, **options)
                    pipeline, terms = reward.pipeline, reward.terms
            except TypeError as exc:
                raise RequestError(400, "options", str(exc)) from None
            except KeyError as exc:      # a name the registry does not know
                raise RequestError(400, "metrics" if kind == "score" else "metric", exc.args[0]) from None
            except ValueError as exc:    # a setting refused: the message names the metric and the setting
                raise RequestError(400, None, str(exc)) from None
        seconds = time.perf_counter() - start
        log.info("built %s in %.1f s", ", ".join(pipeline.names), seconds)
        return MergedScoring(pipeline), terms, (",".join(pipeline.names), seconds)


class Service:
    """The state of one server: settings, measurements, metric sets, the batcher."""

    def __init__(self, settings: ServiceSettings):
        self.settings = settings
        self.metrics = ServiceMetrics()
        self.sets = MetricSets(settings, self.metrics)
        self._batcher: DynamicBatcher | None = None
        self.loop: asyncio.AbstractEventLoop | None = None

    @property
    def batcher(self) -> DynamicBatcher:
        if self._batcher is None:
            raise RuntimeError("the service has not started (its batcher starts with the app's lifespan)")
        return self._batcher

    # --- lifetime ---------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def lifespan(self, app):
        self.loop = asyncio.get_running_loop()
        self._batcher = DynamicBatcher(self._score_group, self.settings, self.metrics)
        if self.settings.preload:
            key = self.sets.score_key(self.settings.preload, {})
            self.sets.pinned.add(key)
            await self.sets.get(key)
        try:
            yield
        finally:
            self.batcher.close()

    def begin_drain(self) -> None:
        """SIGTERM: refuse new work (503), start what is queued now."""
        if self._batcher is not None:
            self._batcher.drain()

    @property
    def draining(self) -> bool:
        return self._batcher is None or self._batcher.draining

    @staticmethod
    def _score_group(batch_key, requests: list) -> list:
        scoring = batch_key[0]
        with reporting(False):
            return scoring.score(requests)

    # --- requests ---------------------------------------------------------------------------
    async def read_json(self, request: Request) -> dict:
        limit = self.settings.max_body_bytes
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise RequestError(413, None, f"the body is {declared} bytes, more than the server's max_body_bytes "
                                          f"({limit})")
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                raise RequestError(413, None, f"the body exceeds the server's max_body_bytes ({limit})")
        return payloads.decode_body(bytes(body))

    async def answer(self, request: Request, scoring: MergedScoring, scored_request, arrived: float):
        """The request's ``Scored``, or None when its client left before it was answered."""
        # Requests merge when they share the metric set and the inputs present.
        batch_key = (scoring, scored_request.refs is not None, scored_request.contexts is not None)
        ticket = self.batcher.admit(batch_key, scored_request, len(scored_request.hyps))
        disconnect = asyncio.get_running_loop().create_task(_wait_for_disconnect(request))
        try:
            remaining = self.settings.request_timeout - (time.perf_counter() - arrived)
            done, _ = await asyncio.wait({ticket.future, disconnect}, timeout=max(remaining, 0),
                                         return_when=asyncio.FIRST_COMPLETED)
            if ticket.future in done:
                return ticket.future.result()
            reason = "disconnected" if disconnect in done else "timeout"
            if self.batcher.withdraw(ticket):
                self.metrics.dropped.inc(reason)
            else:
                ticket.future.add_done_callback(_consume_exception)
            if reason == "disconnected":
                return None
            raise RequestError(504, None, f"not answered within the server's request_timeout "
                                          f"({self.settings.request_timeout:g} s)")
        finally:
            disconnect.cancel()
            self.batcher.release(ticket)


async def _wait_for_disconnect(request: Request) -> None:
    """Returns when the client closes the connection (the body has been read: the
    server's next message is the disconnect)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


def _consume_exception(future: asyncio.Future) -> None:
    if not future.cancelled():
        future.exception()   # an answer nobody waits for: retrieved, so asyncio does not log it


def _library_error(exc: Exception) -> RequestError:
    return RequestError(400, None, str(exc))


def create_app(settings: ServiceSettings | None = None) -> Starlette:
    """The ASGI app of one server (run it with uvicorn; ``fastamfm serve`` does)."""
    settings = settings or ServiceSettings()
    service = Service(settings)
    metrics = service.metrics

    def measured(route: str):
        def decorate(handler):
            async def endpoint(request: Request) -> Response:
                arrived = time.perf_counter()
                try:
                    if service.draining and request.method == "POST":
                        response = error_response(RequestError(503, None, "the server is shutting down"),
                                                  {"Retry-After": "1"})
                    else:
                        response = await handler(request, arrived)
                except QueueFull as exc:
                    response = error_response(RequestError(429, None, str(exc)), {"Retry-After": str(exc.retry_after)})
                except RequestError as exc:
                    response = error_response(exc)
                except (TypeError, ValueError) as exc:
                    response = error_response(_library_error(exc))
                metrics.requests.inc(route, str(response.status_code))
                metrics.latency.observe(time.perf_counter() - arrived, route)
                return response

            return endpoint

        return decorate

    async def scored_answer(request: Request, scoring: MergedScoring, scored_request, arrived: float):
        result = await service.answer(request, scoring, scored_request, arrived)
        if result is None:
            return Response(status_code=499)    # nobody reads it: the client has gone
        return result

    @measured("/v1/score")
    async def score(request: Request, arrived: float) -> Response:
        data = await service.read_json(request)
        parsed = payloads.score_request(data, max_lines=settings.max_lines, max_tokens=settings.max_tokens)
        scoring, _ = await service.sets.get(service.sets.score_key(parsed.metrics, parsed.options))
        result = await scored_answer(request, scoring, parsed, arrived)
        if isinstance(result, Response):
            return result
        return json_response({"responses": len(parsed.hyps), **result.to_json()})

    async def reward_values(request: Request, parsed, arrived: float):
        scoring, terms = await service.sets.get(service.sets.reward_key(parsed.metric, parsed.options))
        if not scoring.reads_contexts:
            # As the TRL reward functions: contexts (the prompts) only reach metrics that read them.
            parsed = dataclasses.replace(parsed, contexts=None)
        result = await scored_answer(request, scoring, parsed, arrived)
        if isinstance(result, Response):
            return result
        # As RewardFunction.__call__ adds its terms, so the floats are the same.
        total = np.zeros(len(parsed.hyps), dtype=np.float64)
        for column, weight in terms:
            total += weight * result.columns[column]
        return total.tolist()

    @measured("/v1/reward")
    async def reward(request: Request, arrived: float) -> Response:
        data = await service.read_json(request)
        parsed = payloads.reward_request(data, max_lines=settings.max_lines, max_tokens=settings.max_tokens)
        rewards = await reward_values(request, parsed, arrived)
        return rewards if isinstance(rewards, Response) else json_response({"rewards": rewards})

    @measured("/get_reward")
    async def openrlhf_reward(request: Request, arrived: float) -> Response:
        data = await service.read_json(request)
        parsed = payloads.openrlhf_request(data, metric=None, max_lines=settings.max_lines,
                                           max_tokens=settings.max_tokens)
        rewards = await reward_values(request, parsed, arrived)
        return rewards if isinstance(rewards, Response) else json_response({"rewards": rewards})

    @measured("/v1/metrics")
    async def list_metrics(request: Request, arrived: float) -> Response:
        rows = []
        for name in registry.names():
            cls = registry.metric_class(name)
            reason = cls.missing(**settings.options)
            rows.append({"name": name, "aliases": list(cls.aliases), "columns": list(cls.columns),
                         "needs_references": cls.needs_references, "needs_contexts": cls.needs_contexts,
                         "options": list(cls.option_names()), "available": reason is None, "missing": reason})
        return json_response({"metrics": rows, "reward_metric": settings.reward_metric})

    @measured("/healthz")
    async def health(request: Request, arrived: float) -> Response:
        status = "draining" if service.draining else "ok"
        return json_response({"status": status, "queued_responses": service.batcher.queued_responses},
                             503 if service.draining else 200)

    async def prometheus(request: Request) -> Response:
        return Response(metrics.render(), media_type="text/plain; version=0.0.4; charset=utf-8")

    async def http_error(request: Request, exc: HTTPException) -> Response:
        return error_response(RequestError(exc.status_code, None, exc.detail))

    async def internal_error(request: Request, exc: Exception) -> Response:
        log.exception("internal error on %s", request.url.path)
        metrics.requests.inc(request.url.path, "500")
        return error_response(RequestError(500, None, f"internal error: {type(exc).__name__}: {exc}"))

    routes = [Route("/v1/score", score, methods=["POST"]), Route("/v1/reward", reward, methods=["POST"]),
              Route("/get_reward", openrlhf_reward, methods=["POST"]),
              Route("/v1/metrics", list_metrics, methods=["GET"]), Route("/healthz", health, methods=["GET"]),
              Route("/metrics", prometheus, methods=["GET"])]
    handlers: dict[Any, Any] = {HTTPException: http_error, Exception: internal_error}
    app = Starlette(routes=routes, lifespan=service.lifespan, exception_handlers=handlers)
    app.state.service = service
    return app
