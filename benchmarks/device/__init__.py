"""The prepared GPU run: one command that builds the project on a lent GPU machine, runs the
LM crash hunt and the CUDA tests, and measures every CUDA path beside its peer on the same
device (cosine and embedding kernels against the device's measured copy bandwidth and the C++
core, AM-FM of DSTC-6 on CUDA vs CPU, ReferenceIndex vs brute force, Deep AM / BERTScore /
NeuralLM vs sentence-transformers / bert-score / a transformers loop, the TRL neural reward,
training steps vs plain loops), resumable, each stage under its own time limit.

Run: ``python3 benchmarks/device/run_all.py --out DIR`` (the whole run, JSON + log in DIR),
``python3 benchmarks/run.py device`` (the suite, bench.py) or
``python3 benchmarks/run.py device SCRIPT`` with SCRIPT one of compare (one or more
sections), run_all, lm_crash_hunt (each one's docstring gives its options).
"""
