"""METEOR 1.5 on the 20 DSTC-6 systems beside the METEOR jar run through pycocoevalcap (Java),
in process and start-up included, scores asserted equal.

Run: ``python3 benchmarks/run.py meteor`` (the suite, bench.py) or
``python3 benchmarks/run.py meteor SCRIPT`` with SCRIPT one of compare
(each one's docstring gives its options).
"""
