"""n-gram language model training, loading and querying beside kenlm (and IRSTLM where
installed).

Run: ``python3 benchmarks/run.py lm`` (the suite, bench.py) or
``python3 benchmarks/run.py lm SCRIPT`` with SCRIPT one of compare
(each one's docstring gives its options).
"""
