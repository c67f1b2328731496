"""fastamfm.distributed on a 2-worker Dask LocalCluster beside single-process score_files, same
files and cores, outputs asserted equal.

Run: ``python3 benchmarks/run.py distributed`` (the suite, bench.py) or
``python3 benchmarks/run.py distributed SCRIPT`` with SCRIPT one of compare
(each one's docstring gives its options).
"""
