"""The service's own measurements in Prometheus' text format (``GET /metrics``), written by
hand: four kinds of series are all it needs, and a dependency (prometheus_client) would be
one more package for every server to install.

Series: ``fastamfm_requests_total{route,status}``, ``fastamfm_request_seconds{route}``
(histogram), ``fastamfm_batch_requests`` and ``fastamfm_batch_responses`` (histograms: how
many requests and responses each scored batch merged), ``fastamfm_queue_responses`` and
``fastamfm_queue_requests`` (gauges: admitted, not yet answered),
``fastamfm_scored_responses_total``, ``fastamfm_dropped_requests_total{reason}`` (work
never started: the client disconnected or its time ran out),
``fastamfm_model_load_seconds{metrics}`` (gauge: building each metric set kept, model loads
included; a freed set's series goes with it) and ``fastamfm_pipelines_loaded``.
"""
from __future__ import annotations

import bisect
import math
import threading

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)
SIZE_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096, 16384)


def _labels(names: tuple, values: tuple) -> str:
    if not names:
        return ""
    escaped = (str(v).replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"') for v in values)
    return "{" + ",".join(f'{n}="{v}"' for n, v in zip(names, escaped)) + "}"


def _number(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(float(value)) if not float(value).is_integer() else str(int(value))


class _Series:
    """One metric family: a value per label set (threads of the scoring pool and the
    event loop both update them, hence the lock)."""

    kind = ""

    def __init__(self, name: str, help_text: str, labels: tuple = ()):
        self.name, self.help, self.label_names = name, help_text, labels
        self._values: dict = {}
        self._lock = threading.Lock()

    def _header(self) -> list:
        return [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} {self.kind}"]


class Counter(_Series):
    kind = "counter"

    def inc(self, *labels, amount: float = 1) -> None:
        with self._lock:
            self._values[labels] = self._values.get(labels, 0) + amount

    def value(self, *labels) -> float:
        return self._values.get(labels, 0)

    def lines(self) -> list:
        with self._lock:
            items = sorted(self._values.items())
        return self._header() + [f"{self.name}{_labels(self.label_names, k)} {_number(v)}" for k, v in items]


class Gauge(Counter):
    kind = "gauge"

    def set(self, *labels, value: float) -> None:
        with self._lock:
            self._values[labels] = value

    def remove(self, *labels) -> None:
        """Drop the series of ``labels`` (what it measured is gone)."""
        with self._lock:
            self._values.pop(labels, None)


class Histogram(_Series):
    kind = "histogram"

    def __init__(self, name: str, help_text: str, buckets: tuple, labels: tuple = ()):
        super().__init__(name, help_text, labels)
        self.buckets = tuple(buckets)

    def observe(self, value: float, *labels) -> None:
        with self._lock:
            counts, total = self._values.get(labels, ([0] * (len(self.buckets) + 1), 0.0))
            counts[bisect.bisect_left(self.buckets, value)] += 1
            self._values[labels] = (counts, total + value)

    def lines(self) -> list:
        out = self._header()
        with self._lock:
            items = sorted((k, (list(c), s)) for k, (c, s) in self._values.items())
        for labels, (counts, total) in items:
            cumulative = 0
            for bound, count in zip((*self.buckets, math.inf), counts):
                cumulative += count
                le = _labels((*self.label_names, "le"), (*labels, _number(bound)))
                out.append(f"{self.name}_bucket{le} {cumulative}")
            out.append(f"{self.name}_sum{_labels(self.label_names, labels)} {_number(total)}")
            out.append(f"{self.name}_count{_labels(self.label_names, labels)} {cumulative}")
        return out


class ServiceMetrics:
    """Every series of one server process."""

    def __init__(self):
        self.requests = Counter("fastamfm_requests_total", "HTTP requests answered, by route and status",
                                ("route", "status"))
        self.latency = Histogram("fastamfm_request_seconds", "Seconds from a request's arrival to its answer",
                                 LATENCY_BUCKETS, ("route",))
        self.batch_requests = Histogram("fastamfm_batch_requests", "Requests merged into one scored batch",
                                        SIZE_BUCKETS)
        self.batch_responses = Histogram("fastamfm_batch_responses", "Responses in one scored batch", SIZE_BUCKETS)
        self.queue_responses = Gauge("fastamfm_queue_responses", "Responses admitted and not yet answered")
        self.queue_requests = Gauge("fastamfm_queue_requests", "Requests admitted and not yet answered")
        self.scored = Counter("fastamfm_scored_responses_total", "Responses scored")
        self.dropped = Counter("fastamfm_dropped_requests_total",
                               "Requests whose work was dropped before it started, by reason", ("reason",))
        self.model_load = Gauge("fastamfm_model_load_seconds",
                                "Seconds it took to build each metric set, its model loads included", ("metrics",))
        self.pipelines = Gauge("fastamfm_pipelines_loaded", "Metric sets built and kept in memory")
        for gauge in (self.queue_responses, self.queue_requests, self.pipelines):
            gauge.set(value=0)        # shown from the start, not only after the first request

    def render(self) -> str:
        series = (self.requests, self.latency, self.batch_requests, self.batch_responses, self.queue_responses,
                  self.queue_requests, self.scored, self.dropped, self.model_load, self.pipelines)
        return "\n".join(line for s in series for line in s.lines()) + "\n"
