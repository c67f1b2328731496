"""The pipeline on a stream: score_files, the fastamfm score command line and evaluate on the
same data; compare: throughput and peak memory beside other fastamfm trees.

Run: ``python3 benchmarks/run.py streaming`` (the suite, bench.py) or
``python3 benchmarks/run.py streaming SCRIPT`` with SCRIPT one of compare
(each one's docstring gives its options).
"""
