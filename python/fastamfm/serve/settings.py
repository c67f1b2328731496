"""What one ``fastamfm serve`` process allows and how it batches: every bound the
service puts on a request (body, lines, tokens, time) and on itself (queue, batch size,
scoring threads), in one frozen object that the app, the batcher and the command line
share."""
from __future__ import annotations

from dataclasses import dataclass, field, fields


@dataclass(frozen=True)
class ServiceSettings:
    """Limits and batching of one server process (the command line's options, same names).

    Request limits (413 beyond them): ``max_body_bytes`` of JSON, ``max_lines`` responses,
    ``max_tokens`` whitespace-separated words over every text of the request (responses,
    references and contexts). ``request_timeout`` seconds from admission to answer (504
    after: the request's work is dropped if it has not started).
    Backpressure (429 with Retry-After beyond it): ``max_queue`` responses admitted and not
    yet answered, over all requests.
    Batching: requests for the same metrics and options that arrive within
    ``max_wait_ms`` of the first are scored as one batch of at most ``max_batch`` responses;
    ``scoring_threads`` batches run at once, off the event loop.
    Memory: at most ``max_metric_sets`` metric sets (names and options) are kept built; a
    new one beyond them evicts the one least recently asked for (the preloaded set is never
    evicted). Its models go once its last batch ends and no kept set shares them, beyond
    the process's model cache (``fastamfm.models.loaded_once``: eight models of a kind), so
    requests that each name other settings cannot make the server hold ever more models.
    ``reward_metric``: what ``/v1/reward`` rewards when a request names no metric, and what
    OpenRLHF's ``/get_reward`` (whose requests name none) always rewards; ``options``: settings
    of every metric this server scores (``model=``, ``encoder=``...: paths are only taken here,
    never from a request); ``preload``: metric names whose set is built (and its models
    loaded) before the server listens.
    """

    max_body_bytes: int = 8 << 20
    max_lines: int = 10_000
    max_tokens: int = 2_000_000
    request_timeout: float = 120.0
    max_queue: int = 50_000
    max_wait_ms: float = 5.0
    max_batch: int = 512
    scoring_threads: int = 1
    max_metric_sets: int = 16
    reward_metric: str = "amfm"
    options: dict = field(default_factory=dict)
    preload: tuple = ()

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in ("reward_metric", "options", "preload"):
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or \
                    (value == 0 and f.name != "max_wait_ms"):
                raise ValueError(f"serve: {f.name} must be a positive number, got {value!r}")
        if self.max_lines > self.max_queue:
            raise ValueError(f"serve: max_lines ({self.max_lines}) exceeds max_queue ({self.max_queue}): a request "
                             f"of max_lines responses could never be admitted")
        if not isinstance(self.options, dict):
            raise TypeError(f"serve: options must be a dict, got {type(self.options).__name__}")
