"""LSI training (in memory and out of core) and AM scoring beside scikit-learn's
CountVectorizer + TruncatedSVD pipeline and numpy.

Run: ``python3 benchmarks/run.py lsi`` (the suite, bench.py) or
``python3 benchmarks/run.py lsi SCRIPT`` with SCRIPT one of compare
(each one's docstring gives its options).
"""
