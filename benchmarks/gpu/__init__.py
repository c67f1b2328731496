"""The CUDA kernels beside the vectorised numpy/scipy CPU pipeline, and ReferenceIndex beside
numpy brute force (skips without a CUDA device / FAISS).

Run: ``python3 benchmarks/run.py gpu`` (the suite, bench.py) or
``python3 benchmarks/run.py gpu SCRIPT`` with SCRIPT one of compare
(each one's docstring gives its options).
"""
