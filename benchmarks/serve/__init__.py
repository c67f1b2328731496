"""fastamfm serve under load: throughput and p50/p99 latency of the service driven by a real
load generator (locust) on loopback at concurrency 1, 8 and 64, beside in-process calls of
the same batches; the neural rate with and without dynamic batching; the memory of one
server against eight in-process workers.

Run: ``python3 benchmarks/run.py serve`` (the suite, bench.py: one served call beside the
in-process call, the numbers asserted equal) or ``python3 benchmarks/run.py serve compare``
(the load table; its docstring gives its options).
"""
