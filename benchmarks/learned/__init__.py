"""The learned scorers (ADEM, stacked): fitting beside scikit-learn; crossval: held-out human
correlation on the DSTC-10 development sets.

Run: ``python3 benchmarks/run.py learned`` (the suite, bench.py) or
``python3 benchmarks/run.py learned SCRIPT`` with SCRIPT one of crossval
(each one's docstring gives its options).
"""
