"""Embedding Average, Vector Extrema, Greedy Matching and word-vector loading beside the numpy
port of nlg-eval's formulas.

Run: ``python3 benchmarks/run.py embedding`` (the suite, bench.py) or
``python3 benchmarks/run.py embedding SCRIPT`` with SCRIPT one of compare
(each one's docstring gives its options).
"""
