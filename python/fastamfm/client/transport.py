"""HTTP with the standard library only (``urllib``): JSON out, JSON back, and retries with
exponential backoff when the server says it is busy (429) or unavailable (503), honouring
its ``Retry-After``, or when the connection is refused or reset (a server restarting).
Every other error is raised at once: retrying a malformed request gives the same 400."""
from __future__ import annotations

import json
import random
import time
import urllib.error
import urllib.request

RETRIED_STATUSES = (429, 503)


class ServerError(Exception):
    """The server's answer to a request it refused: ``status``, and its JSON error's
    ``field`` (the item at fault, e.g. ``"refs[3][1]"``) and ``message``."""

    def __init__(self, status: int, message: str, field: str | None = None, retry_after: float | None = None):
        super().__init__(f"HTTP {status}: {field + ': ' if field else ''}{message}")
        self.status, self.message, self.field, self.retry_after = status, message, field, retry_after


def _server_error(exc: urllib.error.HTTPError) -> ServerError:
    body = exc.read()
    try:
        error = json.loads(body)["error"]
        message, field = error["message"], error.get("field")
    except (ValueError, KeyError, TypeError):
        message, field = body.decode("utf-8", "replace")[:500] or exc.reason, None
    header = exc.headers.get("Retry-After")
    try:
        retry_after = float(header) if header is not None else None
    except ValueError:
        retry_after = None        # an HTTP date: the client's own backoff instead
    return ServerError(exc.code, message, field, retry_after)


class Transport:
    """Requests to one server: ``retries`` more attempts after a 429/503 or a refused
    connection, waiting ``backoff * 2**attempt`` seconds (with jitter, at most
    ``max_backoff``) or the server's Retry-After when it gives one."""

    def __init__(self, url: str, *, timeout: float = 300.0, retries: int = 5, backoff: float = 0.25,
                 max_backoff: float = 30.0):
        self.url = url.rstrip("/")
        self.timeout, self.retries, self.backoff, self.max_backoff = timeout, retries, backoff, max_backoff

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self.max_backoff)
        return min(self.backoff * 2 ** attempt, self.max_backoff) * (0.5 + random.random() / 2)

    def request(self, method: str, path: str, payload=None):
        """The decoded JSON answer (text for a non-JSON one, e.g. ``/metrics``)."""
        data = None if payload is None else json.dumps(payload, ensure_ascii=False).encode("utf-8")
        headers = {"Content-Type": "application/json"} if data is not None else {}
        for attempt in range(self.retries + 1):
            request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    body = response.read()
                    if response.headers.get_content_type() == "application/json":
                        return json.loads(body)
                    return body.decode("utf-8")
            except urllib.error.HTTPError as exc:
                error = _server_error(exc)
                if error.status not in RETRIED_STATUSES or attempt == self.retries:
                    raise error from None
                time.sleep(self.delay(attempt, error.retry_after))
            except (ConnectionRefusedError, ConnectionResetError, urllib.error.URLError) as exc:
                reason = getattr(exc, "reason", exc)
                if not isinstance(reason, (ConnectionRefusedError, ConnectionResetError)) or attempt == self.retries:
                    raise
                time.sleep(self.delay(attempt, None))
        raise AssertionError("unreachable: the last attempt returns or raises")
