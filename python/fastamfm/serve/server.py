"""uvicorn's server with the service's graceful SIGTERM (see ``command``): the signal
first tells the service to drain, then uvicorn stops listening and waits for the requests
in flight; the signal is not raised again once the server has drained."""
from __future__ import annotations

import contextlib
import logging
import signal
import threading

import uvicorn

log = logging.getLogger(__name__)


class DrainingServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, service):
        super().__init__(config)
        self.service = service

    def handle_exit(self, sig, frame) -> None:
        if self.service.loop is not None:
            # A signal handler runs between two bytecodes of the loop's own thread: the
            # batcher is changed from the loop, at its next turn, never mid-update.
            self.service.loop.call_soon_threadsafe(self.service.begin_drain)
        super().handle_exit(sig, frame)

    @contextlib.contextmanager
    def capture_signals(self):
        """uvicorn's, without raising the signal again after the drain (a drained server has
        ended normally: exit status 0)."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = {s: signal.signal(s, self.handle_exit) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)

    async def startup(self, sockets=None) -> None:
        await super().startup(sockets)
        for server in self.servers:
            for sock in server.sockets:
                host, port = sock.getsockname()[:2]
                log.info("listening on http://%s:%d", host, port)
