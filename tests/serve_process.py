"""``fastamfm serve`` in a child process on loopback, started as users start it (the command
line, any free port), with the fastamfm this process imported, for what talks to a real
server: tests/test_serve.py, tests/test_integrations_trl.py and benchmarks/serve."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import fastamfm
from fastamfm.client import Client

PYTHON_DIR = Path(fastamfm.__file__).resolve().parents[1]
# Generous: a loaded CI machine may take this long to import and start; nothing is timed.
START_SECONDS = 180


class Server:
    """``python -m fastamfm serve --port 0 ARGS`` in a child process; ``url`` once it listens."""

    def __init__(self, *args: str, start_seconds: float = START_SECONDS):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(PYTHON_DIR), os.environ.get("PYTHONPATH"))
                                                           if p))
        self.process = subprocess.Popen([sys.executable, "-m", "fastamfm", "serve", "--port", "0", *args],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
        self.log: list = []
        self._listening = threading.Event()
        self.url = None
        threading.Thread(target=self._read_log, daemon=True).start()
        if not self._listening.wait(start_seconds) or self.url is None:
            self.stop()
            raise RuntimeError("the server did not start:\n" + "".join(self.log))
        self.client = Client(self.url, retries=0)

    def _read_log(self) -> None:
        for line in self.process.stderr:
            self.log.append(line)
            found = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
            if found:
                self.url = found.group(1)
                self._listening.set()
        self._listening.set()

    def post(self, path: str, body: bytes, headers: dict | None = None) -> tuple:
        """(status, decoded JSON, headers) of a raw POST."""
        request = urllib.request.Request(self.url + path, data=body, method="POST",
                                         headers=headers or {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return response.status, json.loads(response.read()), response.headers
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read()), exc.headers

    def prometheus(self) -> dict:
        """{series with labels: value} from /metrics."""
        with urllib.request.urlopen(self.url + "/metrics", timeout=60) as response:
            text = response.read().decode()
        return {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                if line and not line.startswith("#")}

    def wait_for(self, series: str, value: float) -> None:
        """Until /metrics shows ``series`` at ``value`` or above (the server's own count)."""
        deadline = time.monotonic() + START_SECONDS
        while self.prometheus().get(series, 0) < value:
            if time.monotonic() > deadline:
                raise AssertionError(f"{series} never reached {value}: {self.prometheus()}")
            time.sleep(0.05)

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=START_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
