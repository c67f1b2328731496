"""The load of benchmarks/serve/compare.py: every simulated user posts the same JSON body to
the same route as fast as answers come back (no think time), so the number of users is the
number of requests in flight. The body and route come from the environment
(``FASTAMFM_LOAD_BODY``: a file; ``FASTAMFM_LOAD_ROUTE``), set by workloads.run_locust."""
from __future__ import annotations

import os
from pathlib import Path

from locust import FastHttpUser, constant, task

BODY = Path(os.environ["FASTAMFM_LOAD_BODY"]).read_bytes()
ROUTE = os.environ.get("FASTAMFM_LOAD_ROUTE", "/v1/score")


class ScoringClient(FastHttpUser):
    wait_time = constant(0)

    @task
    def score(self) -> None:
        with self.client.post(ROUTE, data=BODY, headers={"Content-Type": "application/json"},
                              catch_response=True) as response:
            if response.status_code != 200:
                response.failure(f"HTTP {response.status_code}: {response.text[:200]}")
