"""fastamfm.client's transport against a real HTTP server on loopback that answers what a
busy or restarting fastamfm server answers: 429/503 are retried (Retry-After honoured,
backoff otherwise) until an answer or the last attempt, whose error is raised with the
server's status, field and message; a 400 is raised at once (retrying it would give the
same 400); a refused connection is retried until the server listens.

The stub stands in for ``fastamfm serve`` only to make those answers on demand (the real
server's 429 and 503 are in tests/test_serve.py); it needs no serve extra."""
from __future__ import annotations

import json
import socket
import threading
import urllib.error
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from fastamfm.client import Client, ServerError
from fastamfm.client.transport import Transport


class Scripted(BaseHTTPRequestHandler):
    """Answers each request with the next (status, headers, body) of the server's script;
    the last one is repeated."""

    def do_POST(self):  # noqa: N802  (http.server's name)
        self.rfile.read(int(self.headers["Content-Length"]))
        self._answer()

    def do_GET(self):  # noqa: N802
        self._answer()

    def _answer(self):
        server = self.server
        with server.lock:
            server.requests += 1
            status, headers, body = server.script[min(server.requests, len(server.script)) - 1]
        data = json.dumps(body).encode()
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", "Content-Length": str(len(data)), **headers}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):   # quiet: the test reads the answers
        pass


def _busy(status: int, retry_after: str | None = "0") -> tuple:
    return status, ({"Retry-After": retry_after} if retry_after is not None else {}), \
        {"error": {"status": status, "field": None, "message": "queue full" if status == 429 else "draining"}}


OK = (200, {}, {"status": "ok"})


@pytest.fixture
def stub():
    servers = []

    def start(script: list, port: int = 0) -> ThreadingHTTPServer:
        server = ThreadingHTTPServer(("127.0.0.1", port), Scripted)
        server.script, server.requests, server.lock = script, 0, threading.Lock()
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def _url(server: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


def test_busy_and_draining_answers_are_retried_until_the_server_answers(stub):
    server = stub([_busy(429), _busy(503), _busy(503, None), OK])
    assert Client(_url(server), retries=3, backoff=0.01).health() == {"status": "ok"}
    assert server.requests == 4


def test_the_last_attempts_error_is_raised_with_the_servers_status_and_message(stub):
    server = stub([_busy(503)])
    with pytest.raises(ServerError) as error:
        Client(_url(server), retries=2, backoff=0.01).health()
    assert server.requests == 3
    assert (error.value.status, error.value.message, error.value.retry_after) == (503, "draining", 0.0)


def test_a_refused_request_is_raised_at_once_naming_the_field(stub):
    server = stub([(400, {}, {"error": {"status": 400, "field": "refs[1][1]", "message": "expected a string"}})])
    with pytest.raises(ServerError, match=r"HTTP 400: refs\[1\]\[1\]: expected a string") as error:
        Client(_url(server), retries=5, backoff=0.01).score(["a", "b"], [["x"], ["y", None]])
    assert server.requests == 1 and error.value.field == "refs[1][1]"


def test_retry_after_is_honoured_and_capped():
    transport = Transport("http://127.0.0.1:1", backoff=0.25, max_backoff=30.0)
    assert transport.delay(0, 7.0) == 7.0
    assert transport.delay(0, 3600.0) == 30.0
    assert all(0.125 <= transport.delay(0, None) <= 0.25 for _ in range(100))       # jitter: half to all
    assert all(1.0 <= transport.delay(3, None) <= 2.0 for _ in range(100))          # doubled per attempt
    assert transport.delay(20, None) <= 30.0


def test_a_refused_connection_is_retried_until_the_server_listens(stub):
    with socket.socket() as probe:           # a free port, nobody listening yet
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(urllib.error.URLError):
        Client(f"http://127.0.0.1:{port}", retries=0).health()
    started = threading.Timer(0.3, stub, args=([OK], port))
    started.start()
    try:
        # 12 more attempts, waiting minutes in all: far longer than the 0.3 s before it listens
        assert Client(f"http://127.0.0.1:{port}", retries=12, backoff=0.05).health() == {"status": "ok"}
    finally:
        started.join()
